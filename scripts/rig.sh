#!/bin/bash
# The tagged-TLB rig (rig.conf; README, "The tagged-TLB rig"): a test-only
# QEMU built from Debian's qemu source package with rig/patches/*.patch
# applied in order, kept in the download cache as one entry per key, the
# sha256 of rig.conf and of each patch (name and content): a changed
# patch is a new entry.
#   rig.sh           build the entry if it is missing; print its directory
#                    (DIR/bin/qemu-system-x86_64, DIR/bin/qemu-system-aarch64)
#   rig.sh --deps    only install the build dependencies (make check runs
#                    this in the foreground: stopping a build never stops apt)
#   rig.sh --key     print the key
#   rig.sh --cached  print the entry's directory if it is built, else fail
#                    (4-boot.sh --rig: a boot never builds QEMU)
# A miss unpacks the source package again (dpkg-source -x applies Debian's
# patches), applies rig/patches/ to it, and copies into the kept source tree
# ($CACHE/rig-build/src) only the files whose content differs, so that the
# kept build directory (ninja, with ccache) recompiles only what changed.
# One build at a time (a lock); an entry that 4-boot.sh uses holds a shared
# lock (ENTRY.lock), and entries of other keys are pruned only when unused
# (not locked, not used for 14 days).
# RIG_CONF, RIG_PATCHES and APT_PRIVATE (for its mirror), for the
# self-tests only, replace rig.conf, rig/patches and apt-private.sh.
. "$(dirname "$0")/lib.sh"
apt=${APT_PRIVATE:-$TOP/scripts/apt-private.sh}
conf=${RIG_CONF:-$TOP/rig.conf}
pdir=${RIG_PATCHES:-$TOP/rig/patches}
# shellcheck source=../rig.conf
. "$conf"

shopt -s nullglob
patches=("$pdir"/*.patch)
shopt -u nullglob
key=$({
	sha256sum <"$conf"
	for p in "${patches[@]}"; do
		printf '%s ' "${p##*/}"
		sha256sum <"$p"
	done
} | sha256sum | cut -c1-16)
entry=$CACHE/rig/$key
sum_ok() { [ -f "$2" ] && [ "$(sha256sum <"$2" | cut -d' ' -f1)" = "$1" ]; } # sum_ok SHA256 FILE
built() {
	local t
	for t in $RIG_TARGETS; do
		[ -x "$entry/bin/$t" ] || return 1
	done
}

case ${1:-} in
--key)
	echo "$key"
	exit 0
	;;
--cached)
	built || die "rig: no rig built for this rig.conf and rig/patches (key $key): run scripts/rig.sh"
	echo "$entry"
	exit 0
	;;
--deps)
	# shellcheck disable=SC2086 # a list of package names
	apt_install rig $RIG_BUILD_DEPS
	exit 0
	;;
'') ;;
*) die "usage: rig.sh [--deps | --key | --cached]" ;;
esac
if built; then
	touch "$entry" # used: not pruned
	echo "$entry"
	exit 0
fi
# shellcheck disable=SC2086 # a list of package names
apt_install rig $RIG_BUILD_DEPS
B=$CACHE/rig-build
mkdir -p "$CACHE/rig" "$B"
exec 7>"$CACHE/rig-build.lock"
flock 7
if built; then # built by another run while this one waited
	echo "$entry"
	exit 0
fi
w=$(mktemp -d "$B/unpack.XXXXXX")
trap 'rm -rf "$w"' EXIT

# The source package: the .dsc against its pinned sha256, each file it
# lists against the .dsc (kept in $CACHE/rig-src, fetched once).
dl=$CACHE/rig-src/${RIG_VERSION/:/_}
dsc=$(basename "$RIG_DSC")
mkdir -p "$dl"
if ! sum_ok "$RIG_DSC_SHA256" "$dl/$dsc"; then
	m=$("$apt" mirror)
	[ -n "$m" ] || die "no Debian mirror in the machine's apt configuration"
	log "rig: fetching Debian's qemu $RIG_VERSION"
	curl -fsS -o "$w/$dsc" "${m%/}/$RIG_DSC" || die "rig: cannot fetch $RIG_DSC"
	sum_ok "$RIG_DSC_SHA256" "$w/$dsc" ||
		die "rig: $dsc does not match the pinned sha256 (rig.conf)"
	mv "$w/$dsc" "$dl/$dsc"
fi
awk '/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 } on { print $1, $3 }' "$dl/$dsc" |
	while read -r sum f; do
		! sum_ok "$sum" "$dl/$f" || continue
		m=$("$apt" mirror)
		log "rig: fetching $f"
		curl -fsS -o "$w/$f" "${m%/}/$(dirname "$RIG_DSC")/$f" || die "rig: cannot fetch $f"
		sum_ok "$sum" "$w/$f" || die "rig: $f does not match $dsc"
		mv "$w/$f" "$dl/$f"
	done

log "rig: unpacking qemu $RIG_VERSION, ${#patches[@]} patches of $(basename "$pdir")/ (key $key)"
(cd "$dl" && dpkg-source -q -x "$dsc" "$w/src" >"$w/x.log" 2>&1) ||
	{ cat "$w/x.log" >&2; die "rig: cannot unpack $dsc"; }
for p in "${patches[@]}"; do
	# git apply: no fuzz, all or nothing. GIT_DIR: never a repository
	# that $CACHE may lie in.
	(cd "$w/src" && GIT_DIR=/nonexistent git apply --whitespace=nowarn "$p") >"$w/apply.log" 2>&1 || {
		sed 's/^/    /' "$w/apply.log" >&2
		die "rig: ${p##*/} does not apply to Debian's qemu $RIG_VERSION (with the patches before it)"
	}
done
# Only what differs is written (it gets the current time, so ninja
# rebuilds it); files gone from the source go from the kept tree.
mkdir -p "$B/src"
rsync -rlpc --delete "$w/src/" "$B/src/"
rm -rf "$w/src"

# configure again when its options or the configure script changed.
stamp=$(printf '%q ' "${RIG_CONFIGURE[@]}"; sha256sum <"$B/src/configure")
if [ "$(cat "$B/build/.rig-configure" 2>/dev/null)" != "$stamp" ]; then
	log "rig: configure"
	rm -rf "$B/build"
	mkdir -p "$B/build"
	(cd "$B/build" && ../src/configure "${RIG_CONFIGURE[@]}") >"$B/build.log" 2>&1 ||
		{ tail -n 30 "$B/build.log" >&2; die "rig: configure failed (log: $B/build.log)"; }
	echo "$stamp" >"$B/build/.rig-configure"
fi
log "rig: build"
# shellcheck disable=SC2086 # the targets are words
ninja -C "$B/build" -j"$JOBS" $RIG_TARGETS >"$B/build.log" 2>&1 ||
	{ tail -n 30 "$B/build.log" >&2; die "rig: build failed (log: $B/build.log)"; }

# The entry appears whole (a rename), with what it was built from.
tmp=$(mktemp -d "$entry.XXXXXX")
chmod 755 "$tmp"
mkdir "$tmp/bin"
for t in $RIG_TARGETS; do
	cp "$B/build/$t" "$tmp/bin/"
done
cp "$conf" "$tmp/rig.conf"
for p in "${patches[@]}"; do
	printf '%s  %s\n' "$(sha256sum <"$p" | cut -d' ' -f1)" "${p##*/}"
done >"$tmp/patches.sha256"
rm -rf "$entry"
mv -T "$tmp" "$entry"
log "rig: built $entry"
# Entries of other keys not used for 14 days go, unless in use (4-boot.sh
# holds ENTRY.lock during a boot), and what a killed run left a day ago.
find "$CACHE/rig" -mindepth 1 -maxdepth 1 -type d ! -name "$key" \
	\( -mtime +14 -o -name '*.*' -mtime +1 \) -print |
	while read -r e; do
		if flock -n -x "$e.lock" rm -rf "$e"; then
			rm -f "$e.lock"
		fi
	done
echo "$entry"
