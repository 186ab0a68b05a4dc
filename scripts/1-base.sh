#!/bin/bash
# Step 1: fetch the pinned Debian kernel source package, verify the
# tarball's sha256 and leave it in the cache. Prints the tarball's path.
. "$(dirname "$0")/lib.sh"
# The self-tests replace apt-private.sh with a stand-in that needs no network.
apt=${APT_PRIVATE:-$TOP/scripts/apt-private.sh}

ver_file=${BASE_VERSION//\~/_}
tarball=$CACHE/base/$BASE_PKG-$ver_file.tar.xz

verify() {
	echo "$BASE_TARBALL_SHA256  $1" | sha256sum --check --status
}

if [ -f "$tarball" ] && verify "$tarball"; then
	echo "$tarball"
	exit 0
fi

# The pinned .deb from the suite's index, or, once the suite has moved on
# to a newer upload and its index no longer lists this version, from the
# archive pool of the same mirror (Debian keeps a version there for a
# while after the index drops it).  Either way the tarball inside must
# have the sha256 of base.conf, so where the .deb came from does not matter.
log "base: fetching $BASE_PKG=$BASE_VERSION from $BASE_SUITE"
"$apt" update ||
	log "base: apt-get update failed; trying the index as it is, then the pool"
debs=$("$apt" path)
err=$(dirname "$debs")/download.err
mkdir -p "$debs"
deb=$debs/${BASE_PKG}_${BASE_VERSION}_all.deb
rm -f "$deb"
if ! "$apt" download "$BASE_PKG=$BASE_VERSION" 2>"$err"; then
	pool=$("$apt" mirror)
	pool=${pool%/}/pool/main/${BASE_SRC:0:1}/$BASE_SRC/${BASE_PKG}_${BASE_VERSION//\~/%7E}_all.deb
	log "base: $BASE_VERSION is not in $BASE_SUITE's index; trying the archive pool"
	if ! curl -fsSL --retry 2 -o "$deb.tmp" "$pool" 2>>"$err"; then
		rm -f "$deb.tmp"
		cat "$err" >&2
		newest=$("$apt" policy "$BASE_PKG" 2>/dev/null |
			awk '$1 == "Candidate:" { print $2 }')
		die "$BASE_PKG $BASE_VERSION is neither in $BASE_SUITE's index nor in the archive pool ($pool).
The series needs exactly that version; $BASE_SUITE now offers ${newest:-no $BASE_PKG}.
A tarball verified once stays in $CACHE/base: copy it there from a machine that has it,
or rebase the series onto the new version: in base.conf set BASE_VERSION (for another
major version also BASE_PKG and BASE_TARBALL) and BASE_TARBALL_SHA256 (the sha256sum of
the tarball inside the new .deb), run 'make tree', mend in out/linux the patches that no
longer apply, and regenerate patches/ with scripts/export.sh."
	fi
	mv "$deb.tmp" "$deb"
fi
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
