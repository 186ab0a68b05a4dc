#!/bin/bash
# Step 3c: the initramfs of the nested Hyper-V boot (x86_64 only): the
# guest initramfs of 3-build-tests.sh, with a second archive appended
# (the kernel unpacks both) that holds what L1 needs to run an L2 guest
# on its KVM with Hyper-V enlightenments (guest/nested-hv.sh):
#   - Debian's qemu-system-x86_64 of the host, with the shared libraries
#     ldd names and the firmware of -M microvm (qboot) and -M pc, at
#     their own paths;
#   - the L2 kernels, /nested/bzImage-NAME for each build x86_64-NAME
#     given (base-count and series by default);
#   - the L2 initramfs /nested/l2.cpio.gz: busybox, guest/init, the test
#     list and the binaries of the tests L2 runs (tlb_coherency,
#     tlb_flush_history);
#   - guest/nested-hv.sh as /tests/bin/nested-hv.sh.
#   3-build-nested.sh [L2_BUILD...]  -> prints the initramfs path
# Needs 3-build-tests.sh x86_64 first, and the L2 kernels built.
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || set -- base-count series
tdir=$OUT/tests/x86_64
base=$OUT/initramfs-x86_64.cpio.gz
img=$OUT/initramfs-x86_64-nested.cpio.gz
[ -f "$base" ] || die "no $base: run 3-build-tests.sh x86_64 first"
qemu=$(command -v qemu-system-x86_64) || die "no qemu-system-x86_64 on the host"

root=$tdir/nested-root
rm -rf "$root"
mkdir -p "$root"/{nested,tests/bin} "$root/usr/bin"
# QEMU and its libraries, at the paths the binary and ld.so look in.
cp "$qemu" "$root/usr/bin/"
ldd "$qemu" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	while read -r l; do
		mkdir -p "$root$(dirname "$l")"
		cp -L "$l" "$root$l"
	done
# Firmware: qboot for microvm, SeaBIOS and the Linux loader ROMs for pc.
for f in /usr/share/seabios/bios-256k.bin /usr/share/seabios/bios-microvm.bin \
	/usr/share/qemu/linuxboot_dma.bin /usr/share/qemu/kvmvapic.bin \
	/usr/share/qemu/qboot.rom; do
	[ -e "$f" ] || continue
	mkdir -p "$root$(dirname "$f")"
	cp -L "$f" "$root$f"
done
# Debian's /usr/share/qemu links to SeaBIOS's files: keep the names QEMU
# looks for there too.
for f in bios-256k.bin bios-microvm.bin; do
	[ -e "$root/usr/share/qemu/$f" ] || ln -s "../seabios/$f" "$root/usr/share/qemu/$f"
done
for k in "$@"; do
	b=$OUT/build/x86_64-$k/arch/x86/boot/bzImage
	[ -f "$b" ] || die "no L2 kernel $b: build x86_64 $k first"
	cp "$b" "$root/nested/bzImage-$k"
done

# The L2 initramfs.
l2=$tdir/nested-l2
rm -rf "$l2"
mkdir -p "$l2"/{bin,dev,proc,sys,tmp,tests/bin}
cp "$CACHE/busybox-amd64" "$l2/bin/busybox"
cp "$TOP/guest/init" "$l2/init"
chmod +x "$l2/init"
for t in tlb_coherency tlb_flush_history; do
	cp "$tdir/bin/$t" "$l2/tests/bin/"
done
strip "$l2"/tests/bin/*
grep -v '^#' "$TOP/guest/tests.list" > "$l2/tests/list"
(cd "$l2" && find . | cpio -o -H newc --quiet | gzip -1) > "$root/nested/l2.cpio.gz"

grep -v "^#" "$TOP/guest/tests.list" > "$root/tests/list"
cp "$TOP/guest/nested-hv.sh" "$root/tests/bin/nested-hv.sh"
chmod +x "$root/tests/bin/nested-hv.sh"

(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$img.extra"
cat "$base" "$img.extra" > "$img.tmp"
rm -f "$img.extra"
mv "$img.tmp" "$img"
log "nested: $(basename "$img") $(du -h "$img" | cut -f1) (guest initramfs $(du -h "$base" | cut -f1), L1 payload $(du -sh "$root" | cut -f1) unpacked; L2 kernels: $*)"
echo "$img"
