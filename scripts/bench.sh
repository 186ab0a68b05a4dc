#!/bin/bash
# make bench: base and series side by side, both arches, same machine and
# config, in one run. Its boots are the rows of view bench:SECTION of the
# boot table (guest/views), booted and judged by scripts/boot-row.sh; a
# section reads its measurements from its rounds' logs. Prints a
# before/after table with ratios and writes results/bench.{md,json,png}.
# Absolute times under TCG are noise; only the ratios measured here, in
# one run, mean anything.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/boot-row.sh"
lock_out

LOGS=$OUT/logs/bench
# BENCH_REUSE_LOGS=1 boots nothing that the last run already booted: it
# renders results/ again from that run's logs (after a change to what is
# extracted from them). It boots what the run has no judged log for
# (LOG.verdict), and builds nothing: the logs of a run before the boots
# were rows of guest/views (arm64's ARCH-K-local-N, not -rN; the boot
# section's, not judged) are named or kept otherwise, and those boots fail.
# Otherwise the last run's logs are kept beside the new ones until this
# run ends (lib.sh logs_rotate).
[ "${BENCH_REUSE_LOGS:-0}" = 1 ] || logs_rotate "$LOGS"
mkdir -p "$LOGS" "$RESULTS"
M=$LOGS/measurements.jsonl
: >"$M"
# The run's provenance, stamped on each of its rows in bench.json (rows
# that BENCH_SECTIONS keeps from an earlier run keep their own): its id and
# start, the harness commit (and whether patches/, testonly/ or mutants/
# differed from it: then the patches were the work tree's), QEMU's version
# and the host's CPUs. BENCH_REUSE_LOGS=1 renders the logs' run again,
# under that run's provenance.
if [ "${BENCH_REUSE_LOGS:-0}" = 1 ] && [ -f "$LOGS/run.json" ]; then
	:
else
	python3 - "$(date -u +%Y-%m-%dT%H:%M:%S+00:00)" "$(git -C "$TOP" rev-parse HEAD 2>/dev/null || true)" \
		"$(git -C "$TOP" status --porcelain -- patches testonly mutants 2>/dev/null | head -n 1)" \
		"$(qemu-system-x86_64 --version 2>/dev/null | head -n 1)" "$(nproc)" >"$LOGS/run.json" <<'PY'
import datetime, json, sys
start, commit, dirty, qemu, cpus = sys.argv[1:6]
t = datetime.datetime.fromisoformat(start)
print(json.dumps({'id': t.strftime('%Y%m%dT%H%M%SZ'), 'start_time': start,
                  'commit': commit or None, 'dirty': bool(dirty) or None,
                  'qemu': qemu or None, 'host_cpus': int(cpus),
                  'host': 'QEMU TCG, %s host CPUs' % cpus}))
PY
fi

# BENCH_SECTIONS="arm64 ..." runs only those sections and keeps the other
# sections' measurements from the previous results/bench.json; ratios are
# always taken between kernels measured in the same section run.
ALL_SECTIONS="x86 hvscale arm64 nsvm stress regress boot"
SECTIONS=${BENCH_SECTIONS:-$ALL_SECTIONS}
cur=
section() { # section NAME: run this section?
	cur=$1
	case " $SECTIONS " in *" $1 "*) log "bench: section $1"; return 0 ;; esac
	return 1
}
# metric LOG[,LOG...] TEST MATCH KEY [median]: KEY=value (or "KEY value")
# from the first output line of TEST (in 4-boot.sh's LOG, parsed by
# 5-results.py) that contains MATCH; with "median" or "min", the median or
# the least of all such lines of all the LOGs (a test that repeats its
# measurement, in one boot or in several). A LOG whose console failed
# (dropped, below) gives nothing.
# emit_samples [--ratio-to JSON] [--sum [--zero]] [--skip-none WHY] METRIC
# ARCH KERNEL PATH VCPUS UNIT V...:
# one measurement per round; the value is their median, the samples stay in
# bench.json, and 5-report.py takes ratios between rounds run side by side
# (series/base, and the "ratio_to" pairs, e.g. {"8/4": {"vcpus": 4}}).
# --skip-none WHY: no value is a SKIP (the kernel cannot measure it), not
# an ERROR.
emit_samples() {
	local rto='' how=median zero=0 skip=''
	[ "$1" = --ratio-to ] && rto=$2 && shift 2
	[ "$1" = --sum ] && how=sum && shift
	[ "$1" = --zero ] && zero=1 && shift
	[ "$1" = --skip-none ] && skip=$2 && shift 2
	local args=("${@:1:6}")
	shift 6
	python3 - "$cur" "$rto" "$how" "$zero" "$skip" "${args[@]}" "$@" >>"$M" <<'PY'
import json, statistics, sys
sec, rto, how, zero, skip, metric, arch, kernel, path, vcpus, unit = sys.argv[1:12]
samples = [float(v) if v not in ('null', '') else None for v in sys.argv[12:]]
vals = [v for v in samples if v is not None]
m = {'section': sec, 'metric': metric, 'arch': arch, 'kernel': kernel,
     'path': path, 'vcpus': int(vcpus), 'value': None, 'unit': unit,
     'samples': samples}
if how == 'sum':
    # A sum over rounds with a round missing (a boot that hung or
    # crashed: what a coherency bug may cause) is no sum at all.
    m['value_is'] = 'sum of the rounds'
    if vals and len(vals) == len(samples):
        m['value'] = sum(vals)
    # --zero: a count that must be 0 (stale reads) is a check too.
    if zero == '1':
        m['status'] = ('ERROR' if m['value'] is None else
                       'PASS' if m['value'] == 0 else 'FAIL')
elif vals:
    m['value'] = statistics.median(vals)
if rto:
    m['ratio_to'] = json.loads(rto)
if skip and m['value'] is None:
    m['status'], m['why'] = 'SKIP', skip
print(json.dumps(m))
PY
}
metric() {
	python3 - "$1" "$2" "$3" "$4" "${5:-first}" <<'PY'
import json, re, statistics, sys
logs, test, match, key, how = sys.argv[1:6]
vals = []
for log in logs.split(','):
    try:
        with open(log + '.verdict') as v:
            if any(re.match(r'FAIL \S+ console ', l) for l in v):
                continue
    except OSError:
        pass
    for l in json.load(open(log + '.json'))['outputs'].get(test, []):
        if match not in l:
            continue
        m = re.search(r'\b' + re.escape(key) + r'[= ]\+?(-?[0-9.]+)', l)
        if m:
            vals.append(float(m.group(1)))
if not vals:
    print('null')
elif how == 'median':
    print(statistics.median(vals))
elif how == 'min':
    print(min(vals))
else:
    print(vals[0])
PY
}
# per_round LOG TEST MATCH KEY [HOW]: metric's value in each round's log,
# one per line, null for a round without its log (LOG with @R@ for the
# round's number; the rounds: $rounds), so that rounds stay paired.
per_round() {
	local r
	for r in $rounds; do
		metric "${1//@R@/$r}" "$2" "$3" "$4" "${5:-first}" 2>/dev/null || echo null
	done
}
# dropped LOG: its round's console failed (a splat, a panic, a hang, a
# test that never finished: FAIL TAG console in LOG.verdict); such a
# round is dropped from every measurement (review N19), not kept.
dropped() { grep -q '^FAIL [^ ]* console ' "$1.verdict" 2>/dev/null; }
# bench_boot ROW: one round of a row (row_round), booted and judged by
# boot_row's two halves, its wall time in LOG's name .wall (null if the
# boot failed); with BENCH_REUSE_LOGS=1, not booted again if its log was
# judged. A dropped round is said, and so is the first other FAIL.
bench_boot() {
	local tag=${1%%|*} logf s st=0
	logf=$(row_log "$tag")
	if [ "${BENCH_REUSE_LOGS:-0}" != 1 ] || [ ! -f "$logf.verdict" ]; then
		s=$(date +%s.%N)
		row_boot "$1" || st=$?
		if [ "$st" = 0 ]; then echo "$(date +%s.%N) - $s" | bc; else echo null; fi >"${logf%.log}.wall"
		judge_row "$1" || true
	fi
	if dropped "$logf"; then
		log "bench: $tag: round dropped: $(grep -m1 '^FAIL [^ ]* console ' "$logf.verdict" | cut -c1-200)"
	elif grep -q '^FAIL' "$logf.verdict" 2>/dev/null; then
		log "bench: $tag: $(grep -m1 '^FAIL' "$logf.verdict" | cut -c1-200)"
	fi
}
# bench_boots SECTION [GROUP...]: the rows of view bench:SECTION
# (guest/views; only those of the GROUPs named), rounds=$(seq N) rounds
# (N: SECTION_ROUNDS, or the rows' rounds column), and in each round the
# groups in the table's order, a group's rows in turn (in_turn); the
# groups booted in $bgroups.
bench_boots() {
	local sec=$1 b g n r i var
	local -a rs=() idx all
	shift
	bgroups=()
	table_read all -l "bench:$sec"
	for b in "${all[@]}"; do
		IFS=$'\t' read -r n g _ <<<"$b"
		[ $# = 0 ] || [[ " $* " == *" $g "* ]] || continue
		rs+=("$b")
		[[ " ${bgroups[*]} " == *" $g "* ]] || bgroups+=("$g")
	done
	[ ${#rs[@]} -gt 0 ] || die "bench: no row of view bench:$sec${*:+ in groups $*} in guest/views"
	var=${sec^^}_ROUNDS
	rounds=$(seq "${!var:-${rs[0]%%$'\t'*}}")
	for r in $rounds; do
		for g in "${bgroups[@]}"; do
			idx=()
			for i in "${!rs[@]}"; do
				[ "$(cut -f2 <<<"${rs[$i]}")" != "$g" ] || idx+=("$i")
			done
			for i in $(in_turn "$r" "${idx[@]}"); do
				bench_boot "$(row_round "${rs[$i]##*$'\t'}" "$r")"
			done
		done
	done
}
# passset LOG: the sorted ids of the tests that passed in a round (none
# in a dropped round)
passset() {
	dropped "$1" && return 0
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(sorted(t["name"].split()[0] for t in r["kselftest"] or [] if t["status"] == "PASS")))' "$1.json"
}

"$TOP"/scripts/2-tree.sh
# nsvm-stats: the series up to the patch that counts nested flush and sync
# requests, i.e. base behaviour made countable.
if [ "${BENCH_REUSE_LOGS:-0}" != 1 ]; then
	git -C "$TREE" branch -f nsvm-stats "$(git -C "$TREE" log --format=%H -1 \
		--grep='^KVM: x86: Add vCPU stats for TLB flushes and MMU syncs' base..series)"
	brows=()
	for sec in $SECTIONS; do
		table_read one "bench:$sec"
		brows+=("${one[@]}")
	done
	build_rows "${brows[@]}"
fi

# x86: the mprotect reproducer on the native flush path, with and
# without a history of running on every CPU, at each vCPU count of the
# section's rows (guest/views; X86_VCPUS="4" picks), base and series in
# turn in each round.
# Per kernel: the median per iteration of each phase (samples = the
# rounds), series/base and history/none taken round by round. (The
# emulated Hyper-V path is the hvscale section's.)
if section x86; then
# shellcheck disable=SC2046 # one group per vCPU count
bench_boots x86 $(for v in ${X86_VCPUS:-}; do echo "${v}v"; done)
for v in "${bgroups[@]%v}"; do
	for k in base series; do
		for ph in none history; do
			for q in median p90; do
				rto=
				# shellcheck disable=SC2089 # JSON, passed as one word by ${rto:+... "$rto"}
				[ $ph = history ] && rto="{\"history/none\": {\"metric\": \"mprotect_iter_${q}_none\"}}"
				# shellcheck disable=SC2090,SC2046 # "$rto" is one word; per_round: one value per round
				emit_samples ${rto:+--ratio-to "$rto"} "mprotect_iter_${q}_$ph" \
					x86_64 $k native "$v" us \
					$(per_round "$LOGS/x86_64-$k-native-${v}v-r@R@.log" \
						mm.tlb_flush_history_bench "phase=$ph " ${q}_us)
			done
		done
	done
done
fi

# hvscale: how the cost of a flush on the emulated Hyper-V path grows with
# the vCPUs an mm has visited (the reporter's 32 and 96 vCPUs, scaled down
# to what TCG on this host can run): the history reproducer at each count
# of the section's rows (guest/views; HVSCALE_VCPUS="4 8" picks), base
# and series in turn in each round, at each count. Per kernel and count:
# the history and none phases' median per iteration (samples = the rounds),
# series/base, the growth against the first count (rounds paired by
# index), and the hypercall targets per flush.
if section hvscale; then
# shellcheck disable=SC2046 # one group per vCPU count
bench_boots hvscale $(for v in ${HVSCALE_VCPUS:-}; do echo "${v}v"; done)
vcpus=${bgroups[*]%v}
v0=${vcpus%% *}
for v in $vcpus; do
	rto=
	# shellcheck disable=SC2089 # JSON, passed as one word by ${rto:+... "$rto"}
	[ "$v" = "$v0" ] || rto="{\"$v/$v0\": {\"vcpus\": $v0}}"
	for k in base series; do
		for ph in history none; do
			# shellcheck disable=SC2090,SC2046 # "$rto" is one word; per_round: one value per round
			emit_samples ${rto:+--ratio-to "$rto"} "hvscale_iter_median_$ph" \
				x86_64 $k hv-emul "$v" us \
				$(per_round "$LOGS/x86_64-$k-hvscale-${v}v-r@R@.log" \
					mm.tlb_flush_history_bench "phase=$ph " median_us)
		done
		# two flushes per iteration (one per mprotect)
		vals=()
		for r in $rounds; do
			lg=$LOGS/x86_64-$k-hvscale-${v}v-r$r.log
			it=$(metric "$lg" mm.tlb_flush_history_bench "phase=history " iters)
			n=$(metric "$lg" mm.tlb_flush_history_bench "phase=history " hv_targets)
			vals+=("$(python3 -c "print(round($n / (2 * $it), 4) if '$n' != 'null' and $n >= 0 and '$it' not in ('null', '0.0') else 'null')")")
		done
		emit_samples hvscale_targets_per_flush_history x86_64 $k hv-emul "$v" count "${vals[@]}"
	done
done
fi

# arm64: mprotect() loops in a process that has only run on one CPU, on
# base, series and the always-local test-only kernel (the floor: what the
# loop costs when no user TLBI is broadcast), with the broadcasts during
# the loop; one thread per CPU (all 4, and 2 of them), where the series
# must broadcast as base does; and the context-switch cost (bench.ctxsw:
# the DSB the series adds to a switch into an mm recorded as "many").
# The three kernels in turn in each round; a kernel's value is the median
# of its rounds, and the ratios are taken round by round.
# Within a boot each loop repeats: the single-CPU runs' medians fall in two
# groups about 1.7x apart on every kernel alike (QEMU or host state, not
# the guest: counts are equal in both), so a boot's figure is its fastest
# run's median. The threaded runs contend for mmap_lock, and a vCPU holding
# it can be preempted by the host: a boot's figure is the median of its
# runs' medians, as it is for ctxsw's repeats.
if section arm64; then
bench_boots arm64
for k in base series floor; do
	rto=$([ "$k" != series ] || echo '{"series/floor": {"kernel": "floor"}}')
	for q in median p90; do
		# shellcheck disable=SC2046 # per_round prints one value per round
		emit_samples ${rto:+--ratio-to "$rto"} "mprotect_iter_${q}_single_cpu" \
			arm64 $k native 4 us $(per_round "$LOGS/arm64-$k-local-r@R@.log" mm.tlb_local_flush_single \
				"single_cpu:time per iteration" $q min)
	done
	# Without CONFIG_DEBUG_TLBFLUSH (base) there is no count.
	vals=()
	for n in $(per_round "$LOGS/arm64-$k-local-r@R@.log" mm.tlb_local_flush_single "single_cpu:" "broadcast flushes" median); do
		vals+=("$(python3 -c "print(round($n / 2000, 4) if '$n' != 'null' else 'null')")")
	done
	skipopt=()
	[ "$k" != base ] || skipopt=(--skip-none "no count without CONFIG_DEBUG_TLBFLUSH (base)")
	emit_samples "${skipopt[@]}" broadcast_flush_per_iter_single_cpu arm64 $k native 4 count "${vals[@]}"
	for t in threaded threaded2; do
		# shellcheck disable=SC2046 # per_round prints one value per round
		emit_samples "mprotect_iter_median_$t" arm64 $k native 4 us \
			$(per_round "$LOGS/arm64-$k-local-r@R@.log" mm.tlb_local_flush_$t "threaded:time per iteration" median median)
	done
	# The floor kernel is wrong for an mm that runs on two CPUs, as
	# ctxsw's do: its times there mean nothing.
	[ $k != floor ] || continue
	for m in procs-only procs-many threads procs-2cpu threads-2cpu; do
		# shellcheck disable=SC2046 # per_round prints one value per round
		emit_samples "ctxsw_ns_per_switch_$m" arm64 $k native 4 ns \
			$(per_round "$LOGS/arm64-$k-local-r@R@.log" bench.ctxsw "mode=$m ns_per_switch" ns_per_switch median)
	done
	# A switch into a "many" mm over one into an mm recorded on this CPU
	# alone, in the same boot: the host's state, which moves the times of
	# a whole boot by up to 1.8x, cancels; series/base of it is what the
	# series adds to the first kind of switch.
	vals=()
	for r in $rounds; do
		lg=$LOGS/arm64-$k-local-r$r.log
		vals+=("$(python3 -c "import sys; a, b = sys.argv[1:]; print(round(float(a) / float(b), 4) if 'null' not in (a, b) else 'null')" \
			"$(metric "$lg" bench.ctxsw "mode=procs-many median_ns" median_ns)" \
			"$(metric "$lg" bench.ctxsw "mode=procs-only median_ns" median_ns)")")
	done
	emit_samples ctxsw_many_over_only arm64 $k native 4 ratio "${vals[@]}"
done
fi

# nSVM: L2 round trips (VMMCALL) with L0 on NPT and on shadow paging: the
# time per round trip on base and series, in turn in each round, and
# KVM's TLB flush and MMU sync requests per round trip (vCPU stats that only exist from
# nsvm-stats on: base's counts come from the counting kernel, booted in
# each round after the two timed boots).
if section nsvm; then
# NSVM_NPT="1" runs only the rows with L0 on NPT.
# shellcheck disable=SC2046 # two groups per paging mode
bench_boots nsvm $(for n in ${NSVM_NPT:-1 0}; do echo "npt$n npt$n-count"; done)
for npt in ${NSVM_NPT:-1 0}; do
	# With NPT, L1 runs L2 both without and with nested NPT.
	for nn in 0 1; do
		[ "$npt" = 1 ] || [ "$nn" = 0 ] || continue
		path=npt$npt$([ "$nn" != 1 ] || echo -nested-npt)
		match="svm_nested_roundtrip: npt=$npt nested_npt=$nn "
		for k in base series; do
			# shellcheck disable=SC2046 # per_round prints one value per round
			emit_samples nested_roundtrip_ns x86_64 $k "$path" 1 ns \
				$(per_round "$LOGS/x86_64-$k-nsvm-npt$npt-r@R@.log" \
					kvm.svm_nested_roundtrip_bench "$match" ns_per_iter)
			# The counts, in every round: the series' own, base's
			# from the counting kernel.
			kb=series kn=series
			[ $k = series ] || kb=nsvm-stats kn=counting
			for c in flush_per_rt sync_per_rt; do
				# shellcheck disable=SC2046 # per_round prints one value per round
				emit_samples "nested_$c" x86_64 "$kn" "$path" 1 count \
					$(per_round "$LOGS/x86_64-$kb-nsvm-npt$npt-r@R@.log" \
						kvm.svm_nested_roundtrip_bench "$match" $c)
			done
		done
	done
done
fi

# The stress test on the series, a boot per path and round (guest/views),
# about 1e8 checked reads per path in all:
# stale observations must be 0 in every round. reads, faults and stale
# are the sums of the rounds (the rounds as samples).
if section stress; then
bench_boots stress
for run in "x86_64 native" "x86_64 hv-emul" "arm64 native"; do
	# shellcheck disable=SC2086 # split on purpose: ARCH PATH
	set -- $run
	for key in reads faults stale; do
		z=$([ "$key" != stale ] || echo --zero)
		# shellcheck disable=SC2046 # per_round prints one value per round
		emit_samples --sum ${z:+"$z"} "stress_$key" "$1" series "$2" 4 count \
			$(per_round "$LOGS/$1-stress-$2-r@R@.log" mm.tlb_coherency_bench "tlb_coherency: reads=" $key)
	done
done
fi

# Regression suites on both kernels: every test base passes in every
# round, the series must pass in every round. A check, not a measurement:
# base and series in turn in each round; one row per arch with its status
# (PASS; FAIL, naming the tests the series lost; ERROR when a base boot
# passed nothing, i.e. failed; a round whose console failed passed
# nothing), the tests each kernel passed in every round (a test with a
# status in bench.kcidb.json), those it passed in some rounds only, and
# its passes per round.
if section regress; then
# The stress test too: it must pass on base as well as on the series.
bench_boots regress
for arch in "${bgroups[@]}"; do
	for r in $rounds; do
		for k in base series; do
			passset "$LOGS/$arch-$k-regress-r$r.log" >"$LOGS/$arch-$k-r$r.pass" 2>/dev/null ||
				: >"$LOGS/$arch-$k-r$r.pass"
		done
	done
	# shellcheck disable=SC2086 # $rounds: one argument per round
	python3 - "$cur" "$arch" "$LOGS" $rounds >>"$M" <<'PY'
import json, sys
sec, arch, logs, *rounds = sys.argv[1:]
runs = {k: [set(open(f'{logs}/{arch}-{k}-r{r}.pass').read().split())
            for r in rounds] for k in ('base', 'series')}
every = {k: set.intersection(*v) for k, v in runs.items()}
some = {k: sorted(set.union(*v) - every[k]) for k, v in runs.items()}
lost = sorted(every['base'] - every['series'])
status = ('ERROR' if not all(runs['base']) else 'FAIL' if lost else 'PASS')
print(json.dumps({'section': sec, 'metric': 'regression_base_passes_kept',
                  'arch': arch, 'kernel': 'series', 'path': 'regress',
                  'vcpus': 4, 'value': None, 'unit': 'check',
                  'status': status, 'lost': lost, 'rounds': len(rounds),
                  'passed': {k: sorted(v) for k, v in every.items()},
                  'passed_in_some_rounds': some,
                  'passes_per_round': {k: [len(s) for s in v]
                                       for k, v in runs.items()}}))
print(f'bench {arch}: regression suites, {len(rounds)} rounds: {status}: '
      f"base passed {len(every['base'])} in every round, the series "
      f"{len(every['series'])}" + (f', lost {" ".join(lost)}' if lost else '') +
      ''.join(f'; {k} passed {" ".join(v)} in some rounds only'
              for k, v in some.items() if v), file=sys.stderr)
PY
done
fi

# Boot to userspace and power off, nothing else: the kernels of each arch
# in turn in each round; a sample is the wall time of one boot (row_boot:
# QEMU's start to its exit, plus the harness's own fixed cost of a boot,
# the same for both kernels), none for a boot that failed or was dropped.
if section boot; then
bench_boots boot
for arch in "${bgroups[@]}"; do
	for k in base series; do
		vals=()
		for r in $rounds; do
			lg=$LOGS/$arch-$k-boot-r$r
			if dropped "$lg.log"; then
				vals+=(null)
			else
				vals+=("$(cat "$lg.wall" 2>/dev/null || echo null)")
			fi
		done
		emit_samples boot_wall "$arch" "$k" boot 4 s "${vals[@]}"
	done
done
fi

python3 - "$M" "$LOGS/run.json" <<'PY'
import json, sys
run = {k: v for k, v in json.load(open(sys.argv[2])).items() if v is not None}
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
with open(sys.argv[1], 'w') as f:
    for m in rows:
        m.setdefault('run', run)
        f.write(json.dumps(m) + '\n')
PY
if [ "$SECTIONS" != "$ALL_SECTIONS" ] && [ -f "$RESULTS/bench.json" ]; then
	# Rows of an earlier make bench whose kind this one no longer makes
	# are not kept: the regress section's timings, the x86 section's
	# emulated Hyper-V rows (hvscale's now), and a boot time or x86 row
	# taken once, not in rounds.
	python3 - "$RESULTS/bench.json" "$SECTIONS" >"$M.kept" <<'PY'
import json, sys
keep = sys.argv[2].split()
for m in json.load(open(sys.argv[1])):
    if m.get('section') in keep:
        continue
    if m['metric'] in ('regression_wall', 'regression_passed',
                       'regression_pass_sets_equal'):
        continue
    if m.get('section') in ('x86', 'boot') and not m.get('samples'):
        continue
    print(json.dumps(m))
PY
	cat "$M" >>"$M.kept" && mv "$M.kept" "$M"
fi
"$TOP"/scripts/5-report.py "$M" "$RESULTS"
# The same rows as KCIDB data (measurements as tests with a number).
"$TOP"/scripts/5-kcidb.py bench "$RESULTS/bench.json" --tree "$TREE" \
	--time "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["start_time"])' "$LOGS/run.json")" \
	--out "$RESULTS/bench.kcidb.json" || log "bench: results/bench.kcidb.json not written"
logs_succeeded "$LOGS"
