#!/bin/bash
# Step 3b: build the guest userspace for one arch: static kselftests and
# KVM selftests from the tree at REF, Debian's busybox-static and
# bash-static, guest/init.
#   3-build-tests.sh ARCH REF     -> prints the initramfs path
# Needs the kernel build dir of ARCH-REF (for its uapi headers).
# TEST_IDS="id,id" builds only the binaries of those ids of
# guest/tests.list ("-": none), for a tree that lacks the others (make
# split-check: a series of split/ without the series' other tests).
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
# names the binary. An mm command may start with a script of the mm
# selftests (./ksft_tlb.sh, the entry point kselftest CI runs): it is
# copied with run_vmtests.sh, and the binaries run_vmtests.sh runs for
# the category that "run_vmtests.sh -t CAT" names (in the command or in
# the script) are built.
mmsrc=$src/tools/testing/selftests/mm
ids=${TEST_IDS:-}
for id in ${ids//,/ }; do
	[ "$id" = - ] || grep -q "^$id|" "$TOP/guest/tests.list" ||
		die "tests $arch: TEST_IDS names $id, which guest/tests.list has not"
done
mm=() mm_sh=() mm_cat=() kvm=() bench=()
while IFS='|' read -r id _ _ cmd; do
	[ -z "${TEST_IDS:-}" ] || [[ ,$TEST_IDS, == *",$id,"* ]] || continue
	# (none: a command of busybox's alone, nested.l2_dmesg)
	bin=$({ grep -o '\./[A-Za-z0-9_.-]*' <<<"$cmd" || true; } | head -n 1 | cut -c3-)
	case $id:$bin in
	mm.*:*.sh)
		mm_sh+=("$bin" run_vmtests.sh)
		mm_cat+=("$({ echo "$cmd"; cat "$mmsrc/$bin"; } |
			sed -n 's/.*run_vmtests\.sh -t \([A-Za-z0-9_-]*\).*/\1/p')")
		;;
	mm.*) mm+=("$tdir/mm/$bin") ;;
	kvm.*) [ "$arch" = x86_64 ] && kvm+=("$tdir/kvm/x86/$bin") ;;
	bench.*) bench+=("$bin") ;;
	esac
done < <(grep -v '^#' "$TOP/guest/tests.list")
while read -r c; do
	mapfile -t b < <(sed -En "s/^CATEGORY=\"$c\" run_test \\.\/([A-Za-z0-9_-]+)( .*)?$/\\1/p" \
		"$mmsrc/run_vmtests.sh")
	[ ${#b[@]} -gt 0 ] || die "tests $arch: run_vmtests.sh runs no binary of category $c"
	mm+=("${b[@]/#/$tdir/mm/}")
done < <(printf '%s\n' "${mm_cat[@]}" | sort -u | grep .)
mapfile -t mm < <(printf '%s\n' "${mm[@]}" | sort -u | grep . || true)
mapfile -t mm_sh < <(printf '%s\n' "${mm_sh[@]}" | sort -u | grep . || true)
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
rm -rf "${tdir:?}/bin"
mkdir -p "$tdir/bin"
[ $((${#mm[@]} + ${#kvm[@]})) -eq 0 ] || cp "${mm[@]}" "${kvm[@]}" "$tdir/bin/"
rm -rf "$tdir/sh"
mkdir -p "$tdir/sh"
[ ${#mm_sh[@]} -eq 0 ] || cp "${mm_sh[@]/#/$mmsrc/}" "$tdir/sh/"
mkdir -p "$tdir/bench"
for b in $(printf '%s\n' "${bench[@]}" | sort -u); do
	ccache "${cc}gcc" -O2 -Wall -static -pthread -o "$tdir/bench/$b" \
		"$TOP/guest/bench/$b.c" >"$tdir/bench/$b.log" 2>&1 ||
		{ cat "$tdir/bench/$b.log" >&2; die "tests $arch: guest/bench/$b.c failed to build"; }
	cp "$tdir/bench/$b" "$tdir/bin/"
done

src_built "$tdir"
# (Not a subset's build: the next full build would only rebuild it.)
if [ "${KBUILD_CACHE:-1}" = 1 ] && [ -z "${TEST_IDS:-}" ] && ! cmp -s "$tdir/.tree" "$tcache/.tree"; then
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

# Debian's bash-static for the guest arch: run_vmtests.sh, which
# kselftest CI runs for mm (ksft_*.sh), is a bash script. Not pinned, as
# busybox is not: the version fetched is kept beside it and logged.
bash=$CACHE/bash-$deb_arch
if [ ! -x "$bash" ] || [ ! -s "$bash.version" ]; then
	log "tests $arch: fetching bash-static:$deb_arch"
	"$TOP"/scripts/apt-private.sh update
	"$TOP"/scripts/apt-private.sh download "bash-static:$deb_arch"
	deb=$(find "$("$TOP"/scripts/apt-private.sh path)" -name "bash-static_*_$deb_arch.deb" \
		-printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
	x=$(mktemp -d)
	dpkg-deb -x "$deb" "$x"
	cp "$(find "$x" -path "*/bin/bash-static" -type f | head -n 1)" "$bash.tmp"
	dpkg-deb -f "$deb" Version > "$bash.version.tmp"
	mv "$bash.tmp" "$bash" && mv "$bash.version.tmp" "$bash.version"
	rm -rf "$x" "$deb"
fi
log "tests $arch: bash-static $(cat "$bash.version") ($deb_arch)"

root=$tdir/root
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,tests/bin}
cp "$bb" "$root/bin/busybox"
cp "$bash" "$root/bin/bash"
cp "$TOP/guest/init" "$root/init"
chmod +x "$root/init"
if [ -n "$(ls -A "$tdir/bin")" ]; then
	cp "$tdir"/bin/* "$root/tests/bin/"
	"${cc}strip" "$root"/tests/bin/*
fi
[ ${#mm_sh[@]} -eq 0 ] || cp "${mm_sh[@]/#/$tdir/sh/}" "$root/tests/bin/"
grep -v '^#' "$TOP/guest/tests.list" > "$root/tests/list"
grep -v "^#" "$TOP/mutants/matrix" > "$root/tests/matrix"
img=$OUT/initramfs-$arch.cpio.gz
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$img.tmp"
mv "$img.tmp" "$img"
log "tests $arch: $(basename "$img") $(du -h "$img" | cut -f1)"
echo "$img"
