#!/bin/bash
# make check: harness self-tests, then the series applied to the pinned
# base, built for both arches, booted under QEMU TCG, with every KUnit
# suite and kselftest the series adds plus the upstream regression suites.
# Ends with "N passed, N failed[, N skipped]"; non-zero exit on any failure.
. "$(dirname "$0")/lib.sh"
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
	log "check: done"
	if [ "$S" -gt 0 ]; then
		echo "$P passed, $F failed, $S skipped"
	else
		echo "$P passed, $F failed"
	fi
	[ "$F" -eq 0 ]
	exit
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
	"$TOP"/scripts/5-results.py "$logf" --tree "$TREE" --tag "$tag" \
		--known "$TOP/guest/known-failures.txt" "${vopts[@]}" |
		tee "$logf.verdict" | tally || true
	# A verdict without its counts line is a failure, not the end of make
	# check without a summary.
	if [ "$counted" = 0 ]; then
		printf '  FAIL %s results -- 5-results.py gave no counts (see %s)\n' "$tag" "$logf"
		F=$((F + 1))
	fi
}

log "check: tree (base + patches/ + testonly/)"
gate tree "$TOP"/scripts/2-tree.sh | tally || finish

# The pure series kernels, then the test-only kernels built on them: the
# in-guest Hyper-V emulation and the mutants (one boot parameter each).
have_mutants=$(ls "$TOP"/mutants/*.patch 2>/dev/null | head -n 1)
for arch in x86_64 arm64; do
	log "check: build $arch"
	gate "build $arch-series" "$TOP"/scripts/3-build-kernel.sh "$arch" series | tally || finish
	gate "tests $arch" "$TOP"/scripts/3-build-tests.sh "$arch" series | tally || finish
	if [ -n "$have_mutants" ]; then
		gate "build $arch-mutants" "$TOP"/scripts/3-build-kernel.sh "$arch" mutants | tally || finish
	fi
done

log "check: harness self-tests"
SELFTEST_BISECT=1 "$TOP"/scripts/selftest.sh | tally
# The per-patch and per-configuration kernel builds of make lint (bisect,
# variants) are whole kernels, an hour and more from an empty ccache:
# make lint runs them, make check the rest of it.
log "check: lint (without the bisect and variant builds: make lint)"
"$TOP"/scripts/lint.sh --skip "bisect variants" | tally
# The arm64 barrier argument, which no TCG run can show: herd7 with Arm's
# AArch64 model (built once from Debian's source, see herd.conf) must give
# each litmus test its expected verdict (litmus/expected).
log "check: herd7 litmus tests"
"$TOP"/scripts/herd-check.sh | tee "$LOGS/herd.verdict" | tally

log "check: boot x86_64"
# Four vCPUs: every case of the Hyper-V flush suite must run (none skips).
judge x86_64/series/npt1 x86_64 x86_64-series --kunit '*' --smp 4 \
	--tests "$(ids series),$(ids regress)" --append "kvm_amd.npt=1" -- \
	--no-skip 'kunit.hyperv_mmu.*'
judge x86_64/series/npt0 x86_64 x86_64-series \
	--tests "$(ids series kvm.),$(ids regress kvm.),$(ids repeat kvm.)" --append "kvm_amd.npt=0"
log "check: boot arm64"
judge arm64/series arm64 arm64-series --kunit '*' \
	--tests "$(ids series mm.),$(ids series-arm64 mm.),$(ids regress mm.)"

if [ -n "$have_mutants" ]; then
	log "check: stress test on the emulated Hyper-V path"
	judge x86_64/emu/hv x86_64 x86_64-mutants --append "hv_emul_flush" \
		--tests "$(ids series mm.)"
	# The mutation matrix (mutants/matrix): each row boots the mutants
	# kernel with one mutant on and must see its named check fail with
	# the check's own evidence.  Rows whose check is "-" cannot be seen
	# under TCG; results/mutants.md lists them with the reason.
	log "check: mutants (mutants/matrix: each must be caught by its check)"
	while IFS='|' read -r row mutant _ arch append check evidence _ <&3; do
		case $row in '' | '#'*) continue ;; esac
		# herd7 rows: a weakened litmus test that herd-check.sh ran above.
		case $check in - | herd7.*) continue ;; esac
		# A KUnit case (kunit.SUITE.CASE) fails on its own expectation;
		# a userspace test must show EVIDENCE in its output.
		what=(--tests "$check") ev=(--evidence "$evidence")
		case $check in
		kunit.*) s=${check#kunit.} what=(--kunit "${s%%.*}") ev=() ;;
		esac
		judge "$arch/mutant/$row" "$arch" "$arch-mutants" \
			--append "tlb_mutant=$mutant $append" "${what[@]}" -- \
			--expect-fail "$check" "${ev[@]}" --allow-splat
	done 3<"$TOP/mutants/matrix"
	"$TOP"/scripts/5-mutants.py "$TOP/mutants/matrix" "$LOGS" >"$RESULTS/mutants.md"
	log "check: mutation matrix in results/mutants.md"
fi

finish
