#!/bin/bash
# Step 4: boot one kernel under QEMU TCG and capture its console.
#   4-boot.sh ARCH KERNEL_BUILD_NAME LOG [options]
#     --smp N         vCPUs (default 4)
#     --tests a,b     test ids from guest/tests.list to run in the guest
#     --append "..."  extra kernel command line
#     --timeout S     hard limit for the whole boot (default 900)
#     --kunit GLOB    KUnit suites to run at boot (default: none)
#     --pin           pin vCPU N's host thread to host CPU N mod nproc, so
#                     that two busy vCPUs never share a host CPU by chance
#                     (make bench: otherwise the host scheduler's placement
#                     makes repeated runs differ by half)
# Exit status: 0 if the guest powered itself off, 124 on timeout.
. "$(dirname "$0")/lib.sh"

arch=$1 name=$2 logf=$3
shift 3
smp=4 tests= append= tmo=900 kunit= pin=0
while [ $# -gt 0 ]; do
	case $1 in
	--smp) smp=$2 ;;
	--tests) tests=$2 ;;
	--append) append=$2 ;;
	--timeout) tmo=$2 ;;
	--kunit) kunit=$2 ;;
	--pin) pin=1; shift; continue ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done

bdir=$OUT/build/$name
kernel=$bdir/$(kimage "$arch")
initrd=$OUT/initramfs-$arch.cpio.gz
[ -f "$kernel" ] || die "no kernel image $kernel"
[ -f "$initrd" ] || die "no initramfs $initrd"

if [ -n "$kunit" ]; then
	kopt="kunit.enable=1 kunit.filter_glob=$kunit"
else
	kopt="kunit.enable=0"
fi
cmdline="panic=-1 oops=panic rdinit=/init $kopt tlbtests=$tests $append"
case $arch in
x86_64)
	qemu=(qemu-system-x86_64 -cpu max -append "console=ttyS0 $cmdline")
	;;
arm64)
	qemu=(qemu-system-aarch64 -M virt,gic-version=3 -cpu max
		-append "console=ttyAMA0 $cmdline")
	;;
esac
mkdir -p "$(dirname "$logf")"
log "boot $name smp=$smp${tests:+ tests=$tests}${kunit:+ kunit=$kunit}${append:+ [$append]}"
# pin_vcpus PID: once QEMU (a child of PID) has named its $smp vCPU
# threads "CPU N/TCG", bind each to a host CPU.
pin_vcpus() {
	local qpid= t n i ncpu
	ncpu=$(nproc)
	for i in $(seq 100); do
		qpid=${qpid:-$(pgrep -P "$1" qemu-system || true)}
		n=0
		[ -n "$qpid" ] && n=$(cat /proc/"$qpid"/task/*/comm 2>/dev/null | grep -c '^CPU [0-9]*/TCG' || true)
		[ "$n" -ge "$smp" ] && break
		sleep 0.1
	done
	[ "$n" -ge "$smp" ] || { log "boot $name: vCPU threads not found, not pinned"; return 0; }
	for t in /proc/"$qpid"/task/*; do
		n=$(sed -n 's|^CPU \([0-9]*\)/TCG$|\1|p' "$t/comm" 2>/dev/null)
		[ -n "$n" ] && taskset -p -c $((n % ncpu)) "${t##*/}" >/dev/null
	done
	return 0
}
rc=0
timeout --foreground -k 10 "$tmo" "${qemu[@]}" -accel tcg,thread=multi \
	-name "tlb-$arch,debug-threads=on" \
	-smp "$smp" -m "${MEM:-4G}" -display none -no-reboot -monitor none -serial stdio \
	-kernel "$kernel" -initrd "$initrd" </dev/null >"$logf" 2>&1 &
qemu_job=$!
[ "$pin" = 1 ] && pin_vcpus "$qemu_job"
wait "$qemu_job" || rc=$?
# QEMU prints "terminating on signal" etc. on stderr; keep it in the log.
[ $rc = 124 ] && echo "### tlb-series: boot timed out after ${tmo}s" >>"$logf"
log "boot $name: rc=$rc ($(wc -l <"$logf") console lines)"
exit $rc
