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
#   repro.sh watchdog   the rows of view repro:watchdog (guest/views:
#                       x86_64 boots that only reach init and power off,
#                       with the clocksource watchdog on the TSC, the
#                       command lines, judges and why), booted by group,
#                       the rows of a group in turn while each has rounds
#                       left, two boots at a time, so that each meets the
#                       same load. First group held, WATCHDOG_HELD rounds
#                       (at least 1; default its rows' rounds column):
#                       base must hang in every round, the series (its
#                       patch 1) in none. Then group plain, the kernels as
#                       they are: WATCHDOG_BOOTS rounds of the series rows
#                       (0 skips the group), WATCHDOG_BASE_BOOTS of base's;
#                       the series must not hang, base's rate is printed.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/boot-row.sh"
lock_out

# watchdog_ok GROUP KERNEL P N H: a row's verdict from its rounds (P
# passed and H hung of N). held: base (a kernel base*) must hang in every
# round, the series in none; plain: the series must not hang, base's
# rate is only printed.
watchdog_ok() {
	case $1:$2 in
	held:base*) [ "$3" = "$4" ] && [ "$5" = "$4" ] ;;
	plain:base*) true ;;
	*) [ "$3" = "$4" ] && [ "$5" = 0 ] ;;
	esac
}
# watchdog_boots GROUP: the rows of view repro:watchdog:GROUP, each its
# rounds (WATCHDOG_HELD for held; WATCHDOG_BOOTS, WATCHDOG_BASE_BOOTS for
# plain), booted by boot-row.sh boot_row, the rows in turn while each has
# rounds left, two at a time. Prints per row "TAG: passed P of N, hung H
# (KERNEL)" (H: rounds whose console went silent, from 5-results.py's console
# verdict); each failed round's first FAIL line goes to stderr, and so
# does the evidence of each round that passed with some. Sets wd_rc to
# 1 if a row fails watchdog_ok, and counts the rows of base kernels and
# of others in wd_nbase and wd_nseries. Not to be called in a subshell:
# a row it cannot use must stop the repro (die), and the counts must
# reach the caller.
watchdog_boots() {
	local group=$1 b n row tag kernel i j r rc vf more=1 pids
	local -A want cnt rowof pass hung kof
	local -a rs tags=() order=()
	table_read rs -l "repro:watchdog:$group"
	[ ${#rs[@]} -gt 0 ] || die "no row of view repro:watchdog:$group in guest/views"
	for b in "${rs[@]}"; do
		IFS=$'\t' read -r n _ row <<<"$b"
		IFS='|' read -r tag _ kernel _ <<<"$row"
		case $group:$kernel in
		held:*) n=${WATCHDOG_HELD:-$n} ;;
		plain:base*) n=${WATCHDOG_BASE_BOOTS:-$n} ;;
		plain:*) n=${WATCHDOG_BOOTS:-$n} ;;
		esac
		[ "$group" != held ] || [ "$n" -ge 1 ] ||
			die "repro watchdog: $tag has $n rounds: the held boots are the evidence"
		tags+=("$tag")
		want[$tag]=$n cnt[$tag]=0 pass[$tag]=0 hung[$tag]=0 rowof[$tag]=$row kof[$tag]=$kernel
	done
	while [ $more = 1 ]; do
		more=0
		for tag in "${tags[@]}"; do
			[ "${cnt[$tag]}" -lt "${want[$tag]}" ] || continue
			cnt[$tag]=$((cnt[$tag] + 1))
			order+=("$tag ${cnt[$tag]}")
			more=1
		done
	done
	for ((i = 0; i < ${#order[@]}; i += 2)); do
		pids=()
		for ((j = i; j < ${#order[@]} && j < i + 2; j++)); do
			read -r tag r <<<"${order[$j]}"
			boot_row "$(row_round "${rowof[$tag]}" "$r")" \
				>/dev/null 2>"$(row_log "$tag-r$r").err" &
			pids+=($!)
		done
		for j in "${pids[@]}"; do
			rc=0
			wait "$j" || rc=$?
			[ "$rc" = 0 ] || [ "$rc" = 123 ] || log "watchdog: a boot ended with status $rc"
		done
	done
	for b in "${order[@]}"; do
		read -r tag r <<<"$b"
		vf=$(row_log "$tag-r$r").verdict
		if grep -qE '^(FAIL [^ ]+ console -- hang:|(PASS|FAIL) [^ ]+ console -- hung)' "$vf" 2>/dev/null; then
			hung[$tag]=$((hung[$tag] + 1))
		fi
		if grep -q '^counts [0-9]* 0 ' "$vf" 2>/dev/null; then
			pass[$tag]=$((pass[$tag] + 1))
			# The evidence of a boot that passed (where the hang was,
			# the hold's message); a plain boot's PASS has none.
			{ grep '^PASS .* -- ' "$vf" || true; } | cut -c1-200 |
				while read -r l; do log "watchdog: $l"; done
		else
			log "watchdog: $(grep -m1 '^FAIL' "$vf" 2>/dev/null | cut -c1-240 || echo "$tag-r$r: no verdict (see $(row_log "$tag-r$r"))")"
		fi
	done
	for tag in "${tags[@]}"; do
		echo "$tag: passed ${pass[$tag]} of ${want[$tag]}, hung ${hung[$tag]} (${kof[$tag]})"
		watchdog_ok "$group" "${kof[$tag]}" "${pass[$tag]}" "${want[$tag]}" "${hung[$tag]}" || wd_rc=1
		case ${kof[$tag]} in
		base*) wd_nbase=$((wd_nbase + 1)) ;;
		*) wd_nseries=$((wd_nseries + 1)) ;;
		esac
	done
}
if [ "${1:-}" = watchdog ]; then
	rows=()
	table_read rows repro:watchdog
	[ ${#rows[@]} -gt 0 ] || die "no row of view repro:watchdog in guest/views"
	"$TOP"/scripts/2-tree.sh
	build_rows "${rows[@]}"
	LOGS=$OUT/logs/repro-watchdog
	rm -rf "$LOGS"
	mkdir -p "$LOGS"
	wd_rc=0 wd_nbase=0 wd_nseries=0
	echo "held, the rows in turn:"
	watchdog_boots held
	if [ "$wd_nbase" = 0 ] || [ "$wd_nseries" = 0 ]; then
		die "repro watchdog: the held rows need a base and a series kernel"
	fi
	if [ "${WATCHDOG_BOOTS:-1}" -lt 1 ]; then
		echo "as they are: not run (WATCHDOG_BOOTS=$WATCHDOG_BOOTS)"
		exit $wd_rc
	fi
	echo "as they are, the rows in turn while each has rounds left:"
	watchdog_boots plain
	exit $wd_rc
fi

case ${1:-} in
hv-shadow | mremap) ;;
*) die "usage: $0 hv-shadow|mremap|watchdog" ;;
esac
# The rows of view repro:NAME (guest/views), each booted REPRO_ROUNDS
# times (default: its rounds column) and judged by boot_row.
rows=()
table_read rows -l "repro:$1"
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
