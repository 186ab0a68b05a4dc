#!/bin/bash
# make repro-*: a test that fails only now and then, run many times.
#   repro.sh hv-shadow  the rows of view repro:hv-shadow, repro:mremap
#   repro.sh mremap     (guest/views: the tests, the kernels and why),
#                       each booted REPRO_ROUNDS times (default its
#                       rounds column) by scripts/boot-row.sh boot_row
#                       and judged by 5-results.py; a round passes if
#                       its verdict has no FAIL (a splat or a test that
#                       did not finish fails it as a failed test does).
#                       Prints "TAG: passed P of N rounds" per row; the
#                       series must pass every round (base's rows show
#                       the bug: printed, not judged).
#   repro.sh watchdog   x86_64 boots that only reach init and power off,
#                       with the clocksource watchdog on the TSC (no
#                       tsc=reliable), a hang being a console silent for
#                       30 s (4-boot.sh --silence: the log keeps the
#                       registers of every vCPU), two boots at a time.
#                       First WATCHDOG_HELD (5, at least 1) boots each of
#                       base and series held in the window: the
#                       test-only hold of the boot CPU in the first
#                       boot-time stop_machine() (testonly/), with the
#                       command line and 4-boot.sh options of make
#                       check's held boot (guest/boots). Base must hang
#                       in every one with CPU 0 in watchdog_check_skew(),
#                       the series (its patch 1) in none (its console
#                       says the check's wait timed out instead); each
#                       boot is judged by 5-results.py with the options
#                       make check gives its own boot of that kind.
#                       Then WATCHDOG_BOOTS (200; 0 skips them) boots of
#                       the series kernel and WATCHDOG_BASE_BOOTS (80) of
#                       base as they are, in turn (a loaded host widens
#                       the window): the series must not hang; base's
#                       rate is printed beside it.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/boot-row.sh"
lock_out

# boots_field TAG N: field N of make check's boot TAG (guest/boots), so
# that a repro boots and judges as make check does; fails unless exactly
# one line has that tag.
boots_field() {
	awk -F'|' -v t="$1" -v f="$2" '!/^#/ && $1 == t { print $f; n++ } END { exit n != 1 }' \
		"$TOP/guest/boots"
}

# watchdog_boots TAG "KERNEL:N:JUDGE ..." [APPEND [4-BOOT.SH OPTIONS]]: N
# boots of each KERNEL, the kernels taken in turn (while each has boots
# left), two at a time, so that each kernel's boots meet the same load.
# Each is a row of guest/boots' format (scripts/boot-row.sh boot_row: one
# memory node, the clocksource watchdog on the TSC, a hang a console
# silent for 30 s, then the options given), judged by 5-results.py with
# the options of make check's boot JUDGE (guest/boots field 7), or none
# for "-". Prints per KERNEL "KERNEL: passed P of N, hung H" (H: boots
# whose console went silent, from 5-results.py's console verdict); each
# failed boot's first FAIL line goes to stderr, and so does the evidence
# of each boot that passed with some. Not to be called in a command
# substitution: a guest/boots line it cannot use must stop the repro
# (die), not just a subshell.
watchdog_boots() {
	local tag=$1 specs=$2 append=${3:-} bopts="--tsc-watchdog --silence 30 --timeout 300 --nodes 1${4:+ $4}"
	local k n i j rc vf order=() more=1 spec o pids
	local -A want cnt judge pass hung
	local -a vo
	for spec in $specs; do
		IFS=: read -r k n j <<<"$spec"
		want[$k]=$n cnt[$k]=0 pass[$k]=0 hung[$k]=0 judge[$k]=
		if [ "$j" != - ]; then
			o=$(boots_field "$j" 7) || die "no single line $j in guest/boots"
			words vo "$o" || die "bad options for $j in guest/boots"
			judge[$k]=$o
		fi
	done
	while [ $more = 1 ]; do
		more=0
		for spec in $specs; do
			k=${spec%%:*}
			[ "${cnt[$k]}" -lt "${want[$k]}" ] || continue
			cnt[$k]=$((cnt[$k] + 1))
			order+=("$k-$tag-${cnt[$k]}")
			more=1
		done
	done
	for ((i = 0; i < ${#order[@]}; i += 2)); do
		pids=()
		for ((j = i; j < ${#order[@]} && j < i + 2; j++)); do
			n=${order[$j]}
			k=${n%-"$tag"-*}
			boot_row "$n|x86_64|${k#x86_64-}|||$append|${judge[$k]}|$bopts" \
				>/dev/null 2>"$(row_log "$n").err" &
			pids+=($!)
		done
		for j in "${pids[@]}"; do
			rc=0
			wait "$j" || rc=$?
			[ "$rc" = 0 ] || [ "$rc" = 123 ] || log "watchdog: a boot ended with status $rc"
		done
	done
	for n in "${order[@]}"; do
		k=${n%-"$tag"-*}
		vf=$(row_log "$n").verdict
		if grep -qE '^(FAIL [^ ]+ console -- hang:|(PASS|FAIL) [^ ]+ console -- hung)' "$vf" 2>/dev/null; then
			hung[$k]=$((hung[$k] + 1))
		fi
		if grep -q '^counts [0-9]* 0 ' "$vf" 2>/dev/null; then
			pass[$k]=$((pass[$k] + 1))
			# The evidence of a boot that passed (where the hang was,
			# the hold's message); a plain boot's PASS has none.
			{ grep '^PASS .* -- ' "$vf" || true; } | cut -c1-200 |
				while read -r l; do log "watchdog: $l"; done
		else
			log "watchdog: $(grep -m1 '^FAIL' "$vf" 2>/dev/null | cut -c1-240 || echo "$n: no verdict (see $(row_log "$n"))")"
		fi
	done
	for spec in $specs; do
		k=${spec%%:*}
		echo "$k: passed ${pass[$k]} of ${want[$k]}, hung ${hung[$k]}"
	done
}
if [ "${1:-}" = watchdog ]; then
	"$TOP"/scripts/2-tree.sh
	for k in base-emu emu series; do
		"$TOP"/scripts/3-build-kernel.sh x86_64 "$k" >/dev/null
	done
	"$TOP"/scripts/3-build-tests.sh x86_64 series >/dev/null
	LOGS=$OUT/logs/repro-watchdog
	rm -rf "$LOGS"
	mkdir -p "$LOGS"
	sum=$LOGS/summary
	rc=0
	n=${WATCHDOG_HELD:-5} s=${WATCHDOG_BOOTS:-200} b=${WATCHDOG_BASE_BOOTS:-80}
	[ "$n" -ge 1 ] || die "WATCHDOG_HELD must be at least 1: the held boots are the evidence"
	# Held: the hold (kernel command line) and the 4-boot.sh options of
	# make check's held boot; base is judged as make check judges the
	# mutant that brings the old clock back (it must hang, CPU 0 in
	# watchdog_check_skew()), the series as make check judges the held
	# boot of the fixed code (the hold's end with at least one timed-out
	# skew check, then the switch to tsc-early, then power off).
	hold=$(boots_field x86_64/mutants/watchdog-held 6) || die "no single line x86_64/mutants/watchdog-held in guest/boots"
	o=$(boots_field x86_64/mutants/watchdog-held 8) || die "no single line x86_64/mutants/watchdog-held in guest/boots"
	words bo "$o" || die "bad 4-boot.sh options for x86_64/mutants/watchdog-held in guest/boots"
	echo "held ($hold), base (base-emu) and series (emu) in turn:"
	watchdog_boots held "x86_64-base-emu:$n:x86_64/mutants/cs-tick-clock x86_64-emu:$n:x86_64/mutants/watchdog-held" \
		"$hold" "$o" >"$sum"
	cat "$sum"
	grep -qx "x86_64-base-emu: passed $n of $n, hung $n" "$sum" || rc=1
	grep -qx "x86_64-emu: passed $n of $n, hung 0" "$sum" || rc=1
	if [ "$s" -lt 1 ]; then
		echo "as they are: not run (WATCHDOG_BOOTS=$s)"
		exit $rc
	fi
	echo "as they are, series and base (base-emu) in turn while base has boots left:"
	watchdog_boots plain "x86_64-series:$s:- x86_64-base-emu:$b:-" >"$sum"
	cat "$sum"
	grep -qx "x86_64-series: passed $s of $s, hung 0" "$sum" || rc=1
	exit $rc
fi

case ${1:-} in
hv-shadow | mremap) ;;
*) die "usage: $0 hv-shadow|mremap|watchdog" ;;
esac
# The rows of view repro:NAME (guest/views), each booted REPRO_ROUNDS
# times (default: its rounds column) and judged by boot_row.
mapfile -t rows < <(table_rows -l "repro:$1")
[ ${#rows[@]} -gt 0 ] || die "no row of view repro:$1 in guest/views"
"$TOP"/scripts/2-tree.sh
build_rows "${rows[@]##*$'\t'}"
LOGS=$OUT/logs/repro-$1
rm -rf "$LOGS"
mkdir -p "$LOGS"
rc=0
for b in "${rows[@]}"; do
	IFS=$'\t' read -r n _ row <<<"$b"
	n=${REPRO_ROUNDS:-$n} p=0
	IFS='|' read -r tag _ kernel _ <<<"$row"
	for r in $(seq "$n"); do
		boot_row "$(row_round "$row" "$r")" >/dev/null || true
		vf=$(row_log "$tag-r$r").verdict
		if grep -q '^counts [0-9]* 0 ' "$vf" 2>/dev/null; then
			p=$((p + 1))
		else
			log "repro: $(grep -m1 '^FAIL' "$vf" 2>/dev/null | cut -c1-240 || echo "$tag-r$r: no verdict (see $(row_log "$tag-r$r"))")"
		fi
	done
	echo "$tag: passed $p of $n rounds"
	# Base's rounds are the bug's rate; the series must pass each one.
	[ "${kernel%%[-:]*}" = base ] || [ "$p" = "$n" ] || rc=1
done
exit $rc
