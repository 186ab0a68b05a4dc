#!/bin/bash
# make check: harness self-tests, then the series applied to the pinned
# base, built for both arches, booted under QEMU TCG, with every KUnit
# suite and kselftest the series adds plus the upstream regression suites.
# Ends with "N passed, N failed[, N skipped]"; non-zero exit on any failure.
. "$(dirname "$0")/lib.sh"
lock_out
shopt -s lastpipe

LOGS=$OUT/logs/check
rm -rf "$LOGS"
mkdir -p "$LOGS"
P=0 F=0 S=0

tally() { # verdict lines on stdin: print them and add up the counts
	local st rest
	counted=0
	while read -r st rest; do
		case $st in
		PASS|FAIL|SKIP) printf '  %s %s\n' "$st" "$rest" ;;
		counts)
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
	# Every verdict, also as KCIDB data (results/check.json).
	"$TOP"/scripts/5-kcidb.py check "$LOGS" --tree "$TREE" --out "$RESULTS/check.json" ||
		log "check: results/check.json not written"
	log "check: done"
	if [ "$S" -gt 0 ]; then
		echo "$P passed, $F failed, $S skipped"
	else
		echo "$P passed, $F failed"
	fi
	[ "$F" -eq 0 ]
	exit
}
# verdict TAG LOG [5-results.py options]: judge one boot's log (or, with
# --row, one mutation-matrix row of it) and add up its counts.
verdict() {
	local tag=$1 logf=$2 vf
	shift 2
	vf=$LOGS/${tag//\//_}.log.verdict
	"$TOP"/scripts/5-results.py "$logf" --tree "$TREE" --tag "$tag" \
		--known "$TOP/guest/known-failures.txt" "$@" |
		tee "$vf" | tally || true
	# A verdict without its counts line is a failure, not the end of make
	# check without a summary.
	if [ "$counted" = 0 ]; then
		printf '  FAIL %s results -- 5-results.py gave no counts (see %s)\n' "$tag" "$logf"
		F=$((F + 1))
	fi
}
# judge TAG ARCH BUILD [4-boot.sh options] [-- 5-results.py options]
judge() {
	local tag=$1 arch=$2 build=$3
	shift 3
	local bopts=() vopts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do bopts+=("$1"); shift; done
	[ $# -gt 0 ] && shift && vopts=("$@")
	local logf=$LOGS/${tag//\//_}.log
	# A hang (4-boot.sh --silence), a timeout or a panic is in the log:
	# 5-results.py reports it.
	"$TOP"/scripts/4-boot.sh "$arch" "$build" "$logf" "${bopts[@]}" || true
	verdict "$tag" "$logf" "${vopts[@]}"
}
# Mutation-matrix rows (mutants/matrix) to boot, as "ARCH|APPEND|ORDER|ROW|
# CHECK|EVIDENCE" lines, sorted.  Rows that share an arch and a command
# line share a boot, which turns each row's mutant on in turn (guest/init
# run_row): KUnit rows first, then KVM selftests, then other tests, then
# the stress tests, whose mutants leave stale translations behind.
matrix_rows() {
	local row mutant arch append check evidence order
	while IFS='|' read -r row mutant _ arch append check evidence _; do
		case $row in '' | '#'*) continue ;; esac
		# "-": not observable here; herd7 rows: run by herd-check.sh.
		case $check in - | herd7.*) continue ;; esac
		case $check in
		kunit.*) order=0 ;;
		kvm.*) order=1 ;;
		mm.tlb_coherency*) order=3 ;;
		*) order=2 ;;
		esac
		printf '%s|%s|%s|%s|%s|%s\n' "$arch" "$append" "$order" "$row" "$check" "$evidence"
	done <"$TOP/mutants/matrix" | sort -t'|' -s -k1,1 -k2,2 -k3,3n
}
# judge_rows TAG ARCH APPEND [4-boot.sh options]: one boot of the mutants
# kernel with the rows of ARCH and APPEND (after whatever --tests the
# options name, judged as TAG), then one verdict per row: its check must
# fail with its own evidence (a KUnit case: its failed expectation).
judge_rows() {
	local tag=$1 arch=$2 append=$3
	shift 3
	local a ap o row check ev rows=() checks=() evs=() kunit=() i logf evo
	while IFS='|' read -r a ap o row check ev; do
		[ "$a" = "$arch" ] && [ "$ap" = "$append" ] || continue
		rows+=("$row") checks+=("$check") evs+=("$ev")
		# KUnit's debugfs run files, no suite run at boot
		case $check in kunit.*) kunit=(--kunit '*') ;; esac
	done < <(matrix_rows)
	logf=$LOGS/${tag//\//_}.log
	"$TOP"/scripts/4-boot.sh "$arch" "$arch-mutants" "$logf" "${kunit[@]}" \
		"$@" --rows "$(IFS=,; echo "${rows[*]}")" \
		--append "$append${kunit:+ kunit.autorun=0}" || true
	verdict "$tag" "$logf"
	for i in "${!rows[@]}"; do
		evo=(--evidence "${evs[$i]}")
		case ${checks[$i]} in kunit.*) evo=() ;; esac
		verdict "$arch/mutant/${rows[$i]}" "$logf" --row "${rows[$i]}" \
			--expect-fail "${checks[$i]}" "${evo[@]}" --allow-splat
	done
}

log "check: tree (base + patches/ + testonly/)"
gate tree "$TOP"/scripts/2-tree.sh | tee -a "$LOGS/harness.verdict" | tally || finish

# The pure series kernels, then the test-only kernels built on them: the
# in-guest Hyper-V emulation and the mutants (one boot parameter each).
have_mutants=$(ls "$TOP"/mutants/*.patch 2>/dev/null | head -n 1)
for arch in x86_64 arm64; do
	log "check: build $arch"
	gate "build $arch-series" "$TOP"/scripts/3-build-kernel.sh "$arch" series |
		tee -a "$LOGS/harness.verdict" | tally || finish
	gate "tests $arch" "$TOP"/scripts/3-build-tests.sh "$arch" series |
		tee -a "$LOGS/harness.verdict" | tally || finish
	if [ -n "$have_mutants" ]; then
		gate "build $arch-mutants" "$TOP"/scripts/3-build-kernel.sh "$arch" mutants |
			tee -a "$LOGS/harness.verdict" | tally || finish
	fi
done

# make test: CHECK_SKIP="selftest lint" leaves out the harness self-tests
# and the lint (make selftest and make lint run them on their own).
skipped() { case " ${CHECK_SKIP:-} " in *" $1 "*) return 0 ;; esac; return 1; }

if ! skipped selftest; then
log "check: harness self-tests"
# Offline, and without the bisect self-test (a kernel build for a check
# that only make lint runs: make lint runs that self-test too).
"$TOP"/scripts/selftest.sh | tee "$LOGS/selftest.verdict" | tally
fi
if ! skipped lint; then
# The per-patch and per-configuration kernel builds of make lint (bisect,
# variants) are whole kernels, an hour and more from an empty ccache:
# make lint runs them, make check the rest of it.
log "check: lint (without the bisect and variant builds: make lint)"
"$TOP"/scripts/lint.sh --skip "bisect variants" | tee "$LOGS/lint.verdict" | tally
fi
# The arm64 barrier argument, which no TCG run can show: herd7 with Arm's
# AArch64 model (built once from Debian's source, see herd.conf) must give
# each litmus test its expected verdict (litmus/expected).
log "check: herd7 litmus tests"
"$TOP"/scripts/herd-check.sh | tee "$LOGS/herd.verdict" | tally

# tests_of "GROUP[:PREFIX],...": the test ids these items of guest/boots name
tests_of() {
	local item out=()
	for item in ${1//,/ }; do
		out+=("$(ids "${item%%:*}" "$(sed -n 's/^[^:]*://p' <<<"$item")")")
	done
	(IFS=,; echo "${out[*]}")
}
# The boots of guest/boots, then one boot of the mutants kernel for each
# arch and command line of mutants/matrix rows that no boot there has.
mapfile -t boots < <(grep -v -e '^#' -e '^$' "$TOP/guest/boots")
mapfile -t groups < <(matrix_rows | cut -d'|' -f1,2 | uniq)
for g in "${groups[@]}"; do
	arch=${g%%|*} append=${g#*|}
	grep -q "^[^|]*|$arch|mutants|[^|]*|[^|]*|$append|" "$TOP/guest/boots" ||
		boots+=("$arch/mutants${append:+/${append// /_}}|$arch|mutants|||$append|")
done
for b in "${boots[@]}"; do
	IFS='|' read -r tag arch kernel kunit tests append vopts <<<"$b"
	[ "$kernel" != mutants ] || [ -n "$have_mutants" ] || continue
	log "check: boot $tag"
	# Two memory nodes: tlb_coherency -m migrate moves pages between them.
	opts=(--nodes 2 --tests "$(tests_of "$tests")" --append "$append")
	[ -z "$kunit" ] || opts+=(--kunit "$kunit")
	read -ra vo <<<"$vopts"
	if [ "$kernel" = mutants ]; then
		judge_rows "$tag" "$arch" "$append" "${opts[@]}"
	else
		judge "$tag" "$arch" "$arch-$kernel" "${opts[@]}" -- "${vo[@]}"
	fi
done
if [ -n "$have_mutants" ]; then
	"$TOP"/scripts/5-mutants.py "$TOP/mutants/matrix" "$LOGS" >"$RESULTS/mutants.md"
	log "check: mutation matrix in results/mutants.md"
fi
finish
