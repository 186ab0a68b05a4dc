#!/bin/bash
# Step 1: fetch the pinned Debian kernel source package, verify the
# tarball's sha256 and leave it in the cache. Prints the tarball's path.
. "$(dirname "$0")/lib.sh"

ver_file=${BASE_VERSION//\~/_}
tarball=$CACHE/base/$BASE_PKG-$ver_file.tar.xz

verify() {
	echo "$BASE_TARBALL_SHA256  $1" | sha256sum --check --status
}

if [ -f "$tarball" ] && verify "$tarball"; then
	echo "$tarball"
	exit 0
fi

log "base: fetching $BASE_PKG=$BASE_VERSION from $BASE_SUITE"
"$TOP"/scripts/apt-private.sh update
debs=$("$TOP"/scripts/apt-private.sh path)
deb=$debs/${BASE_PKG}_${BASE_VERSION}_all.deb
rm -f "$deb"
if ! "$TOP"/scripts/apt-private.sh download "$BASE_PKG=$BASE_VERSION" 2>"$CACHE/apt/download.err"; then
	cat "$CACHE/apt/download.err" >&2
	die "base package $BASE_PKG version $BASE_VERSION is not available from $BASE_SUITE; the series needs exactly that version (see base.conf)"
fi
[ -f "$deb" ] || die "download of $BASE_PKG $BASE_VERSION left no .deb in $debs"

tmp=$(mktemp -d "$CACHE/base.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "./$BASE_TARBALL"
verify "$tmp/$BASE_TARBALL" ||
	die "sha256 of $BASE_TARBALL from $BASE_PKG $BASE_VERSION does not match base.conf"
mkdir -p "$(dirname "$tarball")"
mv "$tmp/$BASE_TARBALL" "$tarball"
rm -f "$deb"
log "base: verified $(basename "$tarball")"
echo "$tarball"
