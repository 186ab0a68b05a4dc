#!/bin/bash
# Print the path of a sparse that the kernel at $OUT/src accepts: the
# system's if it passes the kernel's own check, otherwise Debian's source
# package pinned in sparse.conf, built once into the download cache (the
# .dsc is checked against its pinned sha256, the tarballs against the
# .dsc by dpkg-source). sparse.sh --build: only build it (when the
# system's is not the pinned version), print nothing; for make check,
# before $OUT/src exists.
. "$(dirname "$0")/lib.sh"
. "$TOP/sparse.conf"
build_only=0
[ "${1:-}" = --build ] && build_only=1

valid() { [ "$(sh "$OUT/src/scripts/checker-valid.sh" "$1" 2>/dev/null)" = 1 ]; }

if [ $build_only = 1 ]; then
	# The tree's checker-valid.sh (out/src may not exist yet).
	command -v sparse >/dev/null &&
		[ "$(sh "$TREE/scripts/checker-valid.sh" sparse 2>/dev/null)" = 1 ] && exit 0
elif command -v sparse >/dev/null && valid sparse; then
	command -v sparse
	exit 0
fi
dest=$CACHE/sparse-$SPARSE_VERSION
# One build at a time (make check's early lint, a self-test's copy of
# the harness, make lint).
mkdir -p "$CACHE"
exec 7>"$CACHE/sparse.lock"
flock 7
if [ ! -x "$dest/bin/sparse" ]; then
	m=$("$TOP"/scripts/apt-private.sh mirror)
	[ -n "$m" ] || die "no Debian mirror in the machine's apt configuration"
	w=$(mktemp -d)
	trap 'rm -rf "$w"' EXIT
	dsc=$(basename "$SPARSE_DSC")
	log "sparse: building Debian's $SPARSE_VERSION"
	curl -fsS -o "$w/$dsc" "${m%/}/$SPARSE_DSC"
	echo "$SPARSE_DSC_SHA256  $w/$dsc" | sha256sum -c --quiet ||
		die "sparse: $dsc does not match the pinned sha256"
	# shellcheck disable=SC2013 # the .dsc's file names: words
	for f in $(awk '/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 } on { print $3 }' "$w/$dsc"); do
		curl -fsS -o "$w/$f" "${m%/}/$(dirname "$SPARSE_DSC")/$f"
	done
	(cd "$w" && dpkg-source -q -x "$dsc" src >"$w/x.log" 2>&1) ||
		{ cat "$w/x.log" >&2; die "sparse: cannot unpack $dsc"; }
	make -s -C "$w/src" -j"$JOBS" CC=gcc PREFIX="$dest.tmp" sparse >"$w/build.log" 2>&1 ||
		{ tail -n 20 "$w/build.log" >&2; die "sparse: build failed"; }
	mkdir -p "$dest.tmp/bin"
	cp "$w/src/sparse" "$dest.tmp/bin/"
	rm -rf "$dest" && mv "$dest.tmp" "$dest"
fi
[ $build_only = 0 ] || exit 0
valid "$dest/bin/sparse" || die "sparse: $dest/bin/sparse is refused by this kernel too"
echo "$dest/bin/sparse"
