#!/bin/bash
# Step 3b: build the guest userspace for one arch: static kselftests and
# KVM selftests from the tree at REF, Debian's busybox-static, guest/init.
#   3-build-tests.sh ARCH REF     -> prints the initramfs path
# Needs the kernel build dir of ARCH-REF (for its uapi headers).
. "$(dirname "$0")/lib.sh"

arch=$1 ref=$2
bdir=$OUT/build/$arch-$ref
tdir=$OUT/tests/$arch
src=$OUT/src
cc=$(cross_compile "$arch")
[ -f "$bdir/.config" ] || die "no kernel build $bdir: build the kernel first"

# Restored from the build cache ($CACHE/ktests, the last build of any
# clone) when this clone has none: make then rebuilds what differs in
# content (src_checkout in lib.sh).
tcache=$CACHE/ktests/$arch
if [ ! -d "$tdir" ] && [ "${KBUILD_CACHE:-1}" = 1 ] && cache_get "$tdir" "$tcache"; then
	log "tests $arch: from the build cache"
fi
# The uapi headers come from the kernel build dir: the sources as that
# dir sees them (nothing changed, it was just built), then as the
# selftests' dir does.
src_checkout "$ref" "$bdir"
log "tests $arch: headers"
kmake "$bdir" "$arch" INSTALL_HDR_PATH="$tdir/hdr" headers_install >/dev/null
src_checkout "$ref" "$tdir"

mkdir -p "$tdir/bin"

# Binaries named by guest/tests.list: an id mm.* or kvm.* says which
# selftest directory builds it, bench.* that it is the harness's own
# guest/bench/NAME.c (benchmarks, not tests); the command's first ./word
# names the binary.
mm=() kvm=() bench=()
while IFS='|' read -r id _ _ cmd; do
	bin=$(grep -o '\./[A-Za-z0-9_-]*' <<<"$cmd" | head -n 1 | cut -c3-)
	case $id in
	mm.*) mm+=("$tdir/mm/$bin") ;;
	kvm.*) [ "$arch" = x86_64 ] && kvm+=("$tdir/kvm/x86/$bin") ;;
	bench.*) bench+=("$bin") ;;
	esac
done < <(grep -v '^#' "$TOP/guest/tests.list")
mapfile -t mm < <(printf '%s\n' "${mm[@]}" | sort -u)
mapfile -t kvm < <(printf '%s\n' "${kvm[@]}" | sort -u | grep . || true)
sel() {
	make -s -C "$src/tools/testing/selftests/$1" OUTPUT="$tdir/$1" \
		ARCH="${arch/x86_64/x86}" CROSS_COMPILE="$cc" CC="ccache ${cc}gcc" \
		KHDR_INCLUDES="-isystem $tdir/hdr/include" EXTRA_CFLAGS=-static \
		-j"$JOBS" "${@:2}" >"$tdir/$1.log" 2>&1 ||
		{ tail -n 30 "$tdir/$1.log" >&2; die "tests $arch: $1 selftests failed to build"; }
}
log "tests $arch: ${#mm[@]} mm selftests, ${#kvm[@]} KVM selftests"
mkdir -p "$tdir/mm" "$tdir/kvm"
[ ${#mm[@]} -eq 0 ] || sel mm "${mm[@]}"
[ ${#kvm[@]} -eq 0 ] || sel kvm "${kvm[@]}"
cp "${mm[@]}" "${kvm[@]}" "$tdir/bin/"
mkdir -p "$tdir/bench"
for b in $(printf '%s\n' "${bench[@]}" | sort -u); do
	ccache "${cc}gcc" -O2 -Wall -static -pthread -o "$tdir/bench/$b" \
		"$TOP/guest/bench/$b.c" >"$tdir/bench/$b.log" 2>&1 ||
		{ cat "$tdir/bench/$b.log" >&2; die "tests $arch: guest/bench/$b.c failed to build"; }
	cp "$tdir/bench/$b" "$tdir/bin/"
done

src_built "$tdir"
if [ "${KBUILD_CACHE:-1}" = 1 ] && ! cmp -s "$tdir/.tree" "$tcache/.tree"; then
	cache_put "$tdir" "$tcache"
fi

# Debian's busybox-static for the guest arch.
deb_arch=${arch/x86_64/amd64}
bb=$CACHE/busybox-$deb_arch
if [ ! -x "$bb" ]; then
	log "tests $arch: fetching busybox-static:$deb_arch"
	"$TOP"/scripts/apt-private.sh update
	"$TOP"/scripts/apt-private.sh download "busybox-static:$deb_arch"
	# shellcheck disable=SC2012 # ls -t: the newest first; Debian's names
	deb=$(ls -t "$("$TOP"/scripts/apt-private.sh path)"/busybox-static_*_"$deb_arch".deb | head -n 1)
	x=$(mktemp -d)
	dpkg-deb -x "$deb" "$x"
	cp "$x/bin/busybox" "$bb.tmp" && mv "$bb.tmp" "$bb"
	rm -rf "$x" "$deb"
fi

root=$tdir/root
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,tests/bin}
cp "$bb" "$root/bin/busybox"
cp "$TOP/guest/init" "$root/init"
chmod +x "$root/init"
cp "$tdir"/bin/* "$root/tests/bin/"
"${cc}strip" "$root"/tests/bin/*
grep -v '^#' "$TOP/guest/tests.list" > "$root/tests/list"
grep -v "^#" "$TOP/mutants/matrix" > "$root/tests/matrix"
img=$OUT/initramfs-$arch.cpio.gz
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$img.tmp"
mv "$img.tmp" "$img"
log "tests $arch: $(basename "$img") $(du -h "$img" | cut -f1)"
echo "$img"
