#!/bin/bash
# make repro-*: one test that fails only now and then, run many times in
# a row in one boot, on the kernels named below. Each run prints
# "KERNEL: NAME passed N of M"; the series must pass M of M.
#   repro.sh hv-shadow  the KVM selftest hyperv_tlb_flush, ten times with
#                       kvm_amd.npt=0 (shadow paging), on base and series.
#                       Base sees stale translations: svm_flush_tlb_asid()
#                       drops a pending Hyper-V flush request that shadow
#                       paging still needs (see the "KVM: SVM: Don't drop
#                       pending Hyper-V TLB flushes" patch).
#   repro.sh mremap     mremap_test, 60 times, on the x86_64 and arm64
#                       series kernels. Without the "mremap_test: check
#                       that the destination preamble is free" patch, its
#                       40MB-preamble case fails whenever the randomized
#                       heap lies below the destination (1 run in 15 to
#                       70 here).
#   repro.sh watchdog   x86_64 boots that only reach init and power off,
#                       with the clocksource watchdog on the TSC (no
#                       tsc=reliable), a hang being a console silent for
#                       30 s (4-boot.sh --silence: the log keeps the
#                       registers of every vCPU). First WATCHDOG_HELD (5)
#                       boots each of base and series with the test-only
#                       hold in boot-time stop_machine() calls
#                       (testonly/, stop_machine_test_hold_ms=1100), which
#                       puts the watchdog's remote skew check inside the
#                       window on every boot: base must hang in every
#                       one, the series (its clocksource fix) in none.
#                       Then WATCHDOG_BOOTS (200) boots of the series
#                       kernel and WATCHDOG_BASE_BOOTS (80) of base as
#                       they are, two at a time (a loaded host widens the
#                       window): the series must not hang; base's rate is
#                       printed beside it.
. "$(dirname "$0")/lib.sh"
lock_out

# watchdog_boots KERNEL N TAG [4-boot.sh options]: N boots, two at a
# time; prints "hung H of N" (and each hang's log and CPU0's RIP on
# stderr).
watchdog_boots() {
	local k=$1 n=$2 tag=$3 i j rc hung=0 logf
	shift 3
	for ((i = 1; i <= n; i += 2)); do
		for ((j = i; j <= n && j < i + 2; j++)); do
			"$TOP"/scripts/4-boot.sh x86_64 "$k" "$OUT/logs/repro-watchdog/$k-$tag-$j.log" \
				--tsc-watchdog --silence 30 --timeout 300 "$@" >/dev/null 2>&1 &
		done
		for ((j = i; j <= n && j < i + 2; j++)); do
			rc=0
			wait -n || rc=$?
			[ "$rc" = 0 ] || [ "$rc" = 123 ] || log "watchdog: a $k boot ended with status $rc"
		done
	done
	for ((j = 1; j <= n; j++)); do
		logf=$OUT/logs/repro-watchdog/$k-$tag-$j.log
		if grep -q '^### tlb-series: hang:' "$logf"; then
			hung=$((hung + 1))
			log "watchdog: $k $tag boot $j hung: $(grep -m1 '^### tlb-series: hang:' "$logf" | cut -c1-120); CPU0 $(grep -m1 -o 'RIP=[0-9a-f]*' "$logf" || echo 'RIP ?')"
		elif ! grep -q 'reboot: Power down' "$logf"; then
			log "watchdog: $k $tag boot $j neither hung nor powered off (see $logf)"
			hung=$((hung + 1))
		fi
	done
	echo "hung $hung of $n"
}
if [ "${1:-}" = watchdog ]; then
	"$TOP"/scripts/2-tree.sh
	for k in base-emu emu series; do
		"$TOP"/scripts/3-build-kernel.sh x86_64 "$k" >/dev/null
	done
	"$TOP"/scripts/3-build-tests.sh x86_64 series >/dev/null
	rm -rf "$OUT/logs/repro-watchdog"
	mkdir -p "$OUT/logs/repro-watchdog"
	rc=0
	hold=stop_machine_test_hold_ms=1100
	b=$(watchdog_boots x86_64-base-emu "${WATCHDOG_HELD:-5}" held --append "$hold")
	s=$(watchdog_boots x86_64-emu "${WATCHDOG_HELD:-5}" held --append "$hold")
	echo "x86_64 base, held ($hold): $b"
	echo "x86_64 series, held ($hold): $s"
	# The hold must make base hang every time, or this check shows
	# nothing; the series must never hang.
	[ "$b" = "hung ${WATCHDOG_HELD:-5} of ${WATCHDOG_HELD:-5}" ] || rc=1
	[ "${s%% of *}" = "hung 0" ] || rc=1
	s=$(watchdog_boots x86_64-series "${WATCHDOG_BOOTS:-200}" plain)
	b=$(watchdog_boots x86_64-base-emu "${WATCHDOG_BASE_BOOTS:-80}" plain)
	echo "x86_64 series, as it is: $s"
	echo "x86_64 base, as it is: $b"
	[ "${s%% of *}" = "hung 0" ] || rc=1
	exit $rc
fi

case ${1:-} in
hv-shadow) kernels="x86_64-base x86_64-series" id=kvm.hyperv_tlb_flush_10x append=kvm_amd.npt=0 ;;
mremap) kernels="x86_64-series arm64-series" id=mm.mremap_test_60x append= ;;
*) die "usage: $0 hv-shadow|mremap|watchdog" ;;
esac

"$TOP"/scripts/2-tree.sh
for k in $kernels; do
	"$TOP"/scripts/3-build-kernel.sh "${k%%-*}" "${k#*-}" >/dev/null
done
for arch in $(printf '%s\n' $kernels | cut -d- -f1 | sort -u); do
	"$TOP"/scripts/3-build-tests.sh "$arch" series >/dev/null
done
rc=0
for k in $kernels; do
	logf=$OUT/logs/repro-$1-$k.log
	"$TOP"/scripts/4-boot.sh "${k%%-*}" "$k" "$logf" --tests "$id" \
		${append:+--append "$append"} --timeout 1500 || true
	res=$(grep -o '[a-z_]* passed [0-9]* of [0-9]*' "$logf" | tail -n 1)
	echo "$k: ${res:-no result (see $logf)}"
	read -r _ _ n _ m <<<"${res:-x passed 0 of 1}"
	[ "${k#*-}" = series ] && [ "$n" != "$m" ] && rc=1
done
exit $rc
