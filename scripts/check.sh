#!/bin/bash
# make check: harness self-tests, then the series applied to the pinned
# base, built for both arches, booted under QEMU TCG, with every KUnit
# suite and kselftest the series adds plus the upstream regression suites.
# Ends with "N passed, N failed[, N skipped]"; non-zero exit on any failure.
# Its logs: out/logs/check (the last run's kept in check.prev, or
# check.failed, until a run succeeds: lib.sh logs_rotate). What it
# renders (check.json, mutants.md, evidence.md, decisions.md, kunit.md)
# goes to out/logs/check/results/; PUBLISH=1 copies it to results/ at the
# end of a run that was not stopped: results/ is tracked, and only a
# request rewrites it.
. "$(dirname "$0")/lib.sh"
lock_out
shopt -s lastpipe

LOGS=$OUT/logs/check
logs_rotate "$LOGS"
CRESULTS=$LOGS/results
mkdir -p "$CRESULTS"
P=0 F=0 S=0
declare -A bg_pid=() # background stages (bg_start, below)
# Background stages: herd7 (built from source where it is missing,
# about 5 min, then its checks), the arm64 barrier check (once the arm64
# series kernel is built), the tagged-TLB rig (rig_stage, below),
# the lint checks that need no kernel build (checkpatch, Cc:,
# MAINTAINERS, shellcheck, pyflakes3 and mypy on the harness; and the
# sparse build), the harness self-tests. Each runs at a lower priority beside the
# builds and boots, its verdict lines in $LOGS/NAME.verdict, and is
# stopped with make check. collect NAME waits for one and adds up its
# counts.
bg_start() { # bg_start NAME CMD...: CMD a command or a function
	local name=$1
	shift
	set -m
	(
		renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true
		"$@"
	) >"$LOGS/$name.verdict" 2>"$LOGS/$name.err" &
	bg_pid[$name]=$!
	set +m
}
collect() { # collect NAME
	[ -z "${bg_pid[$1]:-}" ] || wait "${bg_pid[$1]}" || true
	unset "bg_pid[$1]"
	tally <"$LOGS/$1.verdict"
	counted_or_fail "harness $1" "no counts line (see $LOGS/$1.verdict, $LOGS/$1.err)"
}
stop_bg() { # every process of each group, as stop_lanes does; what they
	# printed is not counted (kept as NAME.verdict.partial)
	local n
	stop_groups "${bg_pid[@]}"
	for n in "${!bg_pid[@]}"; do
		wait "${bg_pid[$n]}" 2>/dev/null || true
		mv -f "$LOGS/$n.verdict" "$LOGS/$n.verdict.partial" 2>/dev/null || true
	done
	bg_pid=()
}
# stop_groups PGID...: TERM to each process group, then wait (up to a
# minute each) until none of its processes is left: 4-boot.sh stops its
# QEMU on TERM, in up to about 20 s, and nothing may outlive make check
# or its lock.
stop_groups() {
	local g
	for g in "$@"; do
		kill -TERM -- "-$g" 2>/dev/null || true
	done
	for g in "$@"; do
		for _ in $(seq 600); do
			kill -0 -- "-$g" 2>/dev/null || break
			sleep 0.1
		done
	done
}

tally() { # verdict lines on stdin: print them and add up the counts
	local st rest
	counted=0
	while read -r st rest; do
		case $st in
		PASS|FAIL|SKIP) printf '  %s %s\n' "$st" "$rest" ;;
		counts)
			# shellcheck disable=SC2086 # split on purpose: "P F S"
			set -- $rest
			P=$((P + $1)) F=$((F + $2)) S=$((S + $3))
			counted=1
			;;
		esac
	done
}
gate() { # gate NAME CMD...: a harness step is one counted item
	local name=$1
	shift
	if "$@" >"$LOGS/${name// /_}.out" 2>&1; then
		printf 'PASS harness %s\ncounts 1 0 0\n' "$name"
	else
		tail -n 20 "$LOGS/${name// /_}.out" | sed 's/^/    /' >&2
		printf 'FAIL harness %s\ncounts 0 1 0\n' "$name"
		return 1
	fi
}
finish() {
	# Background stages still running (a failed build, the tree step)
	# are stopped, uncounted: check.json has what the summary has.
	stop_bg
	# Every verdict, also as KCIDB data (check.json).
	"$TOP"/scripts/5-kcidb.py check "$LOGS" --tree "$TREE" --out "$CRESULTS/check.json" ||
		log "check: $CRESULTS/check.json not written"
	[ "$F" -ne 0 ] || logs_succeeded "$LOGS"
	log "check: done"
	if [ "$S" -gt 0 ]; then
		echo "$P passed, $F failed, $S skipped"
	else
		echo "$P passed, $F failed"
	fi
	[ "$F" -eq 0 ]
	exit
}
counted_or_fail() { # counted_or_fail WHAT WHY: after tally, no counts line is a FAIL
	if [ "$counted" = 0 ]; then
		printf '  FAIL %s -- %s\n' "$1" "$2"
		F=$((F + 1))
	fi
}
# The boots (scripts/boot-row.sh): one at a time, under the boot lock.
# Two guests of 4 vCPUs on 2 host CPUs slowed a timing-bound check
# enough to make it skip (tlb_flush_history's first second after a
# trim), which fails its mutation row; the builds and checks beside a
# boot run at a lower priority and take little from it. The lanes judge
# each boot when it ends (judge_row --ahead: the verdict files only);
# judge_boot takes each file as it is when it is complete and newer than
# the log, and counts it (row_judged).
. "$TOP/scripts/boot-row.sh"
ROW_LOCK=$LOGS/.boot.lock ROW_WHO=check
# shellcheck disable=SC2317 # called by boot-row.sh's row_verdict
row_judged() { # row_judged TAG VERDICT LOG: count one verdict
	tally <"$2"
	# A verdict without its counts line is a failure, not the end of make
	# check without a summary.
	counted_or_fail "$1 results" "5-results.py gave no counts (see $3)"
}
judge_boot() { # judge_boot LINE: judge_row, each verdict counted; a line
	# whose 5-results.py options do not split is a FAIL; a nested boot
	# left out on a cold run (nested_left_out) is a SKIP with its reason
	local tag vopts st=0
	if nested_left_out "$1"; then
		printf 'SKIP %s boot -- base-count as L2: %s\ncounts 0 0 1\n' "${1%%|*}" \
			"$(cat "$LOGS/.nested-cold")" | tee -a "$LOGS/harness.verdict" | tally
		return 0
	fi
	judge_row "$1" || st=$?
	[ "$st" = 2 ] || return 0
	IFS='|' read -r tag _ _ _ _ _ vopts _ <<<"$1"
	printf 'FAIL %s options -- bad quoting in guest/boots: %s\ncounts 0 1 0\n' \
		"$tag" "$vopts" | tee -a "$LOGS/harness.verdict" | tally
}

# The boots run in two lanes, one per arch, in the background, each boot
# as soon as its kernel (and its arch's kselftests) is built, the rig too
# for a boot on the rig, and no other boot runs: a lane takes the first
# boot of its list (below) that can start, so that x86_64's series boots
# run while the x86_64 mutants kernel and arm64's kernels build, and a
# boot that waits for the rig (built beside the kernels from an empty
# cache) leaves its turn to those that do not; arm64's take turns with
# x86_64's once their kernels are there (a lane with no boot that can
# start leaves the turn to the other). The self-tests, the lint and herd7
# run beside them at a lower priority (most of a boot keeps one vCPU
# busy, and TCG runs each vCPU on a host thread of its own; the stress
# tests keep all four busy, and everything beside them then waits). Each
# boot is judged in its lane when it ends, beside the lane's next boot;
# the verdicts are counted at the end, in guest/boots' order. Each lane
# is a process group of its own, so that stopping it stops every boot in
# it.
# can_boot LINE: 0 if the boot can start now, 1 if it can later, 2 if
# never: a kernel the build loop does not make (or a failed build), or a
# boot on the rig after a failed rig build (both judged as missing).
can_boot() {
	local k
	k=$(cut -d'|' -f2,3 --output-delimiter=- <<<"$1")
	! nested_left_out "$1" || return 2
	if [ ! -e "$LOGS/.built-$k" ]; then
		[ -e "$LOGS/.builds-done" ] && [ ! -e "$LOGS/.built-$k" ] && return 2
		return 1
	fi
	[ "$(boot_qemu "$(cut -d'|' -f8 <<<"$1")")" = rig ] || return 0
	[ ! -e "$LOGS/.rig-ready" ] || return 0
	[ ! -e "$LOGS/.rig-failed" ] || return 2
	return 1
}
lane() { # lane ARCH
	local b next st judge=
	local -a todo=() left
	for b in "${boots[@]}"; do
		[ "$(cut -d'|' -f2 <<<"$b")" != "$1" ] || todo+=("$b")
	done
	# No more boots once .no-boots is there (the judge is waited for
	# below).
	while [ ${#todo[@]} -gt 0 ] && [ ! -e "$LOGS/.no-boots" ]; do
		next='' left=()
		for b in "${todo[@]}"; do
			if [ -z "$next" ]; then
				st=0
				can_boot "$b" || st=$?
				[ "$st" != 0 ] || { next=$b; continue; }
				[ "$st" != 2 ] || continue
			fi
			left+=("$b")
		done
		todo=(${left[@]+"${left[@]}"})
		[ -n "$next" ] || { sleep 2; continue; }
		row_boot "$next" || true
		# Judged beside the lane's next boot (at the lower priority
		# of the other work beside boots), not before it: the boot
		# lock would otherwise sit idle while the lane judges. One
		# judge per lane at a time (the last one is done long
		# before a boot is).
		[ -z "$judge" ] || wait "$judge" || true
		(
			renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true
			judge_row --ahead "$next" || true
		) &
		judge=$!
	done
	wait
	return 0
}
lane_pids=()
start_lanes() {
	local a
	set -m
	for a in "${arches[@]}"; do
		lane "$a" &
		lane_pids+=($!)
	done
	set +m
}
wait_lanes() {
	local l
	for l in "${lane_pids[@]}"; do
		wait "$l" || true
	done
	lane_pids=()
}
# shellcheck disable=SC2317 # run by stopped, the signal traps' handler
stop_lanes() { # make check stopped or failed: the boots, QEMU with them
	[ ${#lane_pids[@]} -gt 0 ] || return 0
	touch "$LOGS/.no-boots"
	stop_groups "${lane_pids[@]}"
	wait_lanes
}
# Whatever ends make check, set -e included, ends the boots too.
no_more_boots() { # a failed build: the boots that ran are judged
	touch "$LOGS/.no-boots"
	wait_lanes
	judge_boots --ran
	finish
}
judge_boots() { # judge_boots [--ran]: the verdicts of every boot (that ran)
	local b
	for b in "${boots[@]}"; do
		[ "${1:-}" = --ran ] && ! [ -e "$(row_log "${b%%|*}")" ] && continue
		judge_boot "$b"
	done
	return 0
}
# Stopped by a signal (Ctrl-C, a CI job's TERM): QEMU stopped, what ran
# judged (a boot cut off fails), the summary, a non-zero status.
# shellcheck disable=SC2317 # run by the signal traps below
stopped() {
	trap - INT TERM HUP
	log "check: stopped by SIG$1"
	stop_lanes
	stop_bg
	judge_boots --ran
	printf '  FAIL harness check -- stopped by SIG%s\n' "$1"
	F=$((F + 1))
	finish
}
trap 'stopped INT' INT
trap 'stopped TERM' TERM
trap 'stopped HUP' HUP

# The boots of guest/boots, then one boot of the mutants kernel for each
# arch, command line and QEMU (stock TCG or the rig) of mutants/matrix rows
# that no boot there has; x86_64's first, then arm64's, each arch's boots
# on the rig after the others: the lane's list, which it boots in this
# order as far as each boot can start (lane, above).
arches=(x86_64 arm64)
table_read boots check
mapfile -t -O "${#boots[@]}" boots < <(matrix_boots)
# shellcheck disable=SC2012 # only whether there is one
have_mutants=$(ls "$TOP"/mutants/*.patch 2>/dev/null | head -n 1 || true)
[ -n "$have_mutants" ] || mapfile -t boots < <(printf '%s\n' "${boots[@]}" | grep -v '^[^|]*|[^|]*|mutants|')
# The nested Hyper-V boots (README, "The nested Hyper-V run") need a
# third x86_64 kernel (base-count) and an L1 initramfs with QEMU and the
# L2 kernels, built in the build loop below. NESTED=1 runs them always,
# NESTED=0 never; by default (auto) they run as they are unless make
# check is more than NESTED_BY seconds (720) in when their build would
# start, which a cold cache gives (warm runs reach it within 6 minutes,
# an empty ccache after 15): from a cold machine CI's 90 minutes would
# not hold a fourth x86_64 kernel build (CI's one cold run took 84
# without it). Then (nested_go) base-count is not built: the series
# kernel is L1 (boot-row.sh row_build), and the boots whose L2 is
# base-count read SKIP with the reason (nested_needs_base). An L1 that
# crashes before any result is booted once more (boot-row.sh row_boot).
NESTED=${NESTED:-auto} NESTED_BY=${NESTED_BY:-720}
case $NESTED in 0 | 1 | auto) ;; *) die "NESTED=$NESTED: 0, 1 or auto" ;; esac
[[ $NESTED_BY =~ ^-?[0-9]+$ ]] || die "NESTED_BY=$NESTED_BY: seconds"
[ "$NESTED" = 0 ] && mapfile -t boots < <(printf '%s\n' "${boots[@]}" | grep -v '^[^|]*|[^|]*|nested|')
# Without the mutants there is no mutants L2 kernel: the nested boot
# that boots one (nested.hv_series_ex) is left out.
[ -n "$have_mutants" ] || mapfile -t boots < <(printf '%s\n' "${boots[@]}" | grep -v '^[^|]*|[^|]*|nested||nested:nested\.hv_series_ex|')
# The order of each arch's list: stock TCG, the rig, then the nested
# boots, whose L2 guests are the boots most easily slowed by the builds
# and checks beside them (guest/nested-hv.sh retries an L2 that stalls),
# so it comes last, when little else runs; but a lane boots the first
# boot that can start, so from an empty cache, where the rig builds
# longest, it runs while the rig's boots wait.
boot_class() { # boot_class LINE: ARCH|tcg, ARCH|rig or ARCH|nested
	local arch kernel opts
	IFS='|' read -r _ arch kernel _ _ _ _ opts <<<"$1"
	if [ "$kernel" = nested ]; then
		echo "$arch|nested"
	else
		echo "$arch|$(boot_qemu "$opts")"
	fi
}
mapfile -t boots < <(for a in "${arches[@]}"; do
	for q in tcg rig nested; do
		for b in "${boots[@]}"; do
			[ "$(boot_class "$b")" != "$a|$q" ] || printf '%s\n' "$b"
		done
	done
done)
want_nested=$(printf '%s\n' "${boots[@]}" | grep -c '^[^|]*|x86_64|nested|' || true)

# nested_go: whether the nested boots run as they are, base-count built
# as their L1 (NESTED, above); if not, why, in $LOGS/.nested-cold.
nested_go() {
	local t=$(($(date +%s) - T0))
	[ "$NESTED" = auto ] && [ "$t" -gt "$NESTED_BY" ] || return 0
	echo "make check was ${t} s in at the nested build, past NESTED_BY=${NESTED_BY} (as from a cold cache, where CI's 90 min would not hold the base-count kernel's build): the series as L1, and no base-count L2; make check NESTED=1 runs every nested boot" >"$LOGS/.nested-cold"
	log "check: $(cat "$LOGS/.nested-cold")"
	return 1
}
# nested_needs_base LINE: whether a nested boot's tests boot base-count
# as L2 (their commands in guest/tests.list)
nested_needs_base() {
	local t
	for t in $(tests_of "$(cut -d'|' -f5 <<<"$1")" | tr ',' ' '); do
		grep -q "^${t//./\\.}|.*nested-hv\.sh .*base-count" "$TOP/guest/tests.list" && return 0
	done
	return 1
}
# nested_left_out LINE: a nested boot that a cold run leaves out
nested_left_out() {
	[ "$(cut -d'|' -f3 <<<"$1")" = nested ] && [ -e "$LOGS/.nested-cold" ] && nested_needs_base "$1"
}

# A matrix row that is a boot of its own with no boot in guest/boots to
# judge it, or none to show that its window passes without the mutant,
# would only read "not run" or "caught" in results/mutants.md. Its FAIL
# goes where the harness steps' verdicts go (check.json too).
# So would a row whose qemu column make check cannot run as it says.
{ unjudged_boot_rows; bad_matrix_rows; } | while IFS='|' read -r row why; do
	printf 'FAIL %s matrix -- %s\ncounts 0 1 0\n' "$row" "$why"
done | tee -a "$LOGS/harness.verdict" | tally
# Every flush decision of the series (mutants/decisions) has a matrix
# row, and every row belongs to a decision.
"$TOP"/scripts/5-decisions.py "$TOP/mutants/decisions" "$TOP/mutants/matrix" |
	tee -a "$LOGS/harness.verdict" | tally

trap 'stop_lanes; stop_bg' EXIT
# make test: CHECK_SKIP="selftest lint" leaves out the harness self-tests
# and the lint (make selftest and make lint run them on their own).
skipped() { case " ${CHECK_SKIP:-} " in *" $1 "*) return 0 ;; esac; return 1; }

# herd7's build dependencies are installed first, in the foreground:
# stopping make check stops the build, never apt. The arm64 barrier
# argument, which no TCG run can show: herd7 with Arm's AArch64 model
# (built once from Debian's source, see herd.conf) must give each litmus
# test its expected verdict (litmus/expected).
"$TOP"/scripts/herd.sh --deps >"$LOGS/herd-deps.out" 2>&1 || true
# shellcheck disable=SC2016 # expanded by the sh -c
bg_start herd sh -c '"$1"/scripts/herd.sh >"$2"/herd-build.out 2>&1; exec "$1"/scripts/herd-check.sh' _ "$TOP" "$LOGS"

# The tagged-TLB rig (scripts/rig.sh, README "The tagged-TLB rig"), its
# build dependencies installed here, in the foreground: built beside the
# kernels where its cache entry is missing, then its own tests
# (rig/tests/run.sh, on both binaries, in a turn of the boot lock: their
# guests would slow a boot). The lanes' boots on the rig wait for
# .rig-ready; after a failed build (.rig-failed) they are not booted, and
# each fails as missing.
# shellcheck disable=SC2317 # run by bg_start
rig_stage() {
	local dir
	if ! dir=$("$TOP"/scripts/rig.sh 2>"$LOGS/rig-build.out") || [ -z "$dir" ]; then
		touch "$LOGS/.rig-failed"
		printf 'FAIL harness rig build -- %s (see %s)\ncounts 0 1 0\n' \
			"$(tail -n 1 "$LOGS/rig-build.out")" "$LOGS/rig-build.out"
		return 0
	fi
	touch "$LOGS/.rig-ready"
	echo "PASS harness rig build -- qemu rig $(basename "$dir")"
	if [ ! -x "$TOP/rig/tests/run.sh" ]; then
		printf 'FAIL rig selftest -- rig/tests/run.sh is missing\ncounts 1 1 0\n'
	elif RIG_LOG_DIR=$LOGS/rig-selftest flock "$LOGS/.boot.lock" "$TOP"/rig/tests/run.sh \
		"$dir/bin/qemu-system-x86_64" "$dir/bin/qemu-system-aarch64" >"$LOGS/rig-selftest.out" 2>&1; then
		printf 'PASS rig selftest\ncounts 2 0 0\n'
	else
		printf 'FAIL rig selftest -- rig/tests/run.sh failed: %s (see %s)\ncounts 1 1 0\n' \
			"$(tail -n 1 "$LOGS/rig-selftest.out")" "$LOGS/rig-selftest.out"
	fi
}
"$TOP"/scripts/rig.sh --deps >"$LOGS/rig-deps.out" 2>&1 || true
bg_start rig rig_stage

log "check: tree (base + patches/ + testonly/)"
gate tree "$TOP"/scripts/2-tree.sh | tee -a "$LOGS/harness.verdict" | tally || finish
# Each .kunitconfig of the series through kunit.py (scripts/kunit.sh:
# its own small kernel, beside the builds; make kunit runs it alone).
skipped kunit || bg_start kunit env RESULTS="$CRESULTS" "$TOP"/scripts/kunit.sh

# stage NAME CMD...: a step that prints verdict lines and a counts line;
# without its counts line (it died), it is one failure more.
stage() {
	local name=$1
	shift
	"${nice[@]}" "$@" | tee "$LOGS/$name.verdict" | tally || true
	counted_or_fail "harness $name" "no counts line (see $LOGS/$name.verdict)"
}
# The lint checks that read only the tree's commits or the harness's own
# scripts, beside the builds; sparse.sh --build makes the sparse the
# analysis at the end needs.
early="checkpatch cc maintainers shell python"
# shellcheck disable=SC2016 # expanded by the sh -c
skipped lint ||
	bg_start lint-early sh -c '"$1"/scripts/lint.sh --only "$2"; "$1"/scripts/sparse.sh --build >/dev/null 2>&1 || true' _ "$TOP" "$early"

# Each series of split/ (the series each tree takes: export-split.sh)
# applies alone to the pinned base, atop the series it names as its
# prerequisites, and together they hold patches/: a few seconds, no
# checkout, no build (make split-check builds and boots them).
log "check: split/ series apply alone"
stage split "$TOP"/scripts/split-check.sh

# The pure series kernels, then the test-only kernels built on them: the
# in-guest Hyper-V emulation and the mutants (one boot parameter each).
# The boot lanes and the self-tests (which need no kernel) start once the
# x86_64 series kernel and its kselftests are built; from then on the
# builds here run at a lower priority than the boots.
nice=()
for arch in "${arches[@]}"; do
	log "check: build $arch"
	gate "build $arch-series" "${nice[@]}" "$TOP"/scripts/3-build-kernel.sh "$arch" series |
		tee -a "$LOGS/harness.verdict" | tally || no_more_boots
	gate "tests $arch" "${nice[@]}" "$TOP"/scripts/3-build-tests.sh "$arch" series |
		tee -a "$LOGS/harness.verdict" | tally || no_more_boots
	touch "$LOGS/.built-$arch-series"
	# The arm64 barrier check (scripts/barrier-check.py): the series'
	# compiled switch-in, flush and rollover code has each barrier the
	# litmus tests model, and each compile-time barrier mutant of the
	# matrix (barrier.NAME rows, built by barrier-stage.py from the
	# series build's commands) fails the barrier it removes.
	[ "$arch" != arm64 ] ||
		bg_start barrier "$TOP"/scripts/barrier-stage.py "$TREE" "$OUT/build/arm64-series" \
			"$TOP/mutants/matrix" "$([ -n "$have_mutants" ] && echo mutants || echo series)"
	if [ ${#lane_pids[@]} = 0 ]; then
		start_lanes
		nice=(nice -n 10)
		# Offline, and without the bisect self-test (a kernel build
		# for a check that only make lint runs: make lint runs it).
		skipped selftest || bg_start selftest "$TOP"/scripts/selftest.sh
	fi
	if [ -n "$have_mutants" ]; then
		gate "build $arch-mutants" "${nice[@]}" "$TOP"/scripts/3-build-kernel.sh "$arch" mutants |
			tee -a "$LOGS/harness.verdict" | tally || no_more_boots
		touch "$LOGS/.built-$arch-mutants"
	fi
	# The nested Hyper-V boots' L1 initramfs: QEMU, and the L2 kernels
	# base-count (base with a test-only count of its flush hypercalls'
	# targets), series and, with the mutants, mutants. Before arm64's
	# kernels: from an empty cache the x86_64 lane then boots them while
	# its rig boots wait for the rig's build.
	# A failed build fails the nested boots alone (judged as missing).
	# From a cold cache (nested_go): no base-count, the series as L1.
	if [ "$arch" = x86_64 ] && [ "$want_nested" != 0 ]; then
		nested_l2=(base-count series ${have_mutants:+mutants})
		if ! nested_go; then
			nested_l2=("${nested_l2[@]:1}")
		elif ! gate "build x86_64-base-count" "${nice[@]}" "$TOP"/scripts/3-build-kernel.sh x86_64 base-count |
			tee -a "$LOGS/harness.verdict" | tally; then
			nested_l2=()
		fi
		if [ ${#nested_l2[@]} -gt 0 ] &&
			gate "nested x86_64" "${nice[@]}" "$TOP"/scripts/3-build-nested.sh "${nested_l2[@]}" |
			tee -a "$LOGS/harness.verdict" | tally; then
			touch "$LOGS/.built-x86_64-nested"
		fi
	fi
done
touch "$LOGS/.builds-done"

if ! skipped lint; then
	# The per-patch and per-configuration kernel builds of make lint
	# (bisect, variants) are whole kernels, an hour and more from an
	# empty ccache: make lint runs them, make check the rest of it.
	# sparse and kernel-doc use $OUT/src and the build dirs: after the
	# builds.
	collect lint-early
	log "check: lint (without the bisect and variant builds: make lint)"
	stage lint "$TOP"/scripts/lint.sh --skip "bisect variants $early"
fi
if ! skipped selftest; then
	log "check: harness self-tests"
	collect selftest
fi
log "check: herd7 litmus tests"
collect herd
log "check: arm64 barriers in the compiled code"
collect barrier
if ! skipped kunit; then
	log "check: kunit.py"
	collect kunit
fi
log "check: the tagged-TLB rig"
collect rig
# A rig stage that ended without saying (killed): its boots wait no more.
[ -e "$LOGS/.rig-ready" ] || touch "$LOGS/.rig-failed"

log "check: waiting for the boots"
wait_lanes
# From here on, a signal stops make check as usual (nothing left to stop).
trap - INT TERM HUP
judge_boots
if [ -n "$have_mutants" ]; then
	if "$TOP"/scripts/5-mutants.py "$TOP/mutants/matrix" "$LOGS" "$CRESULTS/evidence.md" \
		>"$CRESULTS/mutants.md"; then
		log "check: mutation matrix in mutants.md, each row's evidence in evidence.md ($CRESULTS)"
	else
		log "check: mutants.md not written"
	fi
	if "$TOP"/scripts/5-decisions.py "$TOP/mutants/decisions" "$TOP/mutants/matrix" \
		--md "$LOGS" >"$CRESULTS/decisions.md"; then
		log "check: decisions and their rows in $CRESULTS/decisions.md"
	else
		log "check: decisions.md not written"
	fi
fi
# results/ is tracked: rewritten only on request, from a run not stopped.
if [ "${PUBLISH:-0}" = 1 ]; then
	"$TOP"/scripts/5-kcidb.py check "$LOGS" --tree "$TREE" --out "$CRESULTS/check.json" ||
		log "check: $CRESULTS/check.json not written"
	mkdir -p "$RESULTS"
	for f in "$CRESULTS"/*; do
		[ ! -s "$f" ] || cp "$f" "$RESULTS/"
	done
	log "check: PUBLISH=1: $(cd "$CRESULTS" && find . -maxdepth 1 -type f -size +0 -printf '%P ') copied to $RESULTS"
fi
finish
