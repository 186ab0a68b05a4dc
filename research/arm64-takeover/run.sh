#!/bin/bash
# Measure the arm64 take-over prototype (results/arm64-migration-design.md)
# against base and the series, on perf kernels under QEMU TCG: ROUNDS
# rounds (default 5), one boot per kernel per round, the kernels' order
# rotated each round as make bench does (in_turn() in scripts/lib.sh).
# Each boot runs bench.migrate and bench.ctxsw (guest/tests.list).
#   research/arm64-takeover/run.sh            (from a clone, after the
#   builds below; prints the logs' directory)
# The prototype kernel is the series plus 0001-*.patch here, as branch
# 'takeover' of out/linux, built with
#   scripts/3-build-kernel.sh arm64 takeover perf
# Nothing else may run meanwhile: every number here is a ratio of runs
# that must see the same machine.
. "$(dirname "$0")/../../scripts/lib.sh"

ROUNDS=${ROUNDS:-5}
LOGS=${LOGS:-$OUT/logs/takeover}
KERNELS=(arm64-base-perf arm64-series-perf arm64-takeover-perf)
TESTS=${TESTS:-bench.migrate,bench.ctxsw}
mkdir -p "$LOGS"
for k in "${KERNELS[@]}"; do
	[ -f "$OUT/build/$k/arch/arm64/boot/Image" ] || die "no kernel $k: build it first"
done
for r in $(seq "$ROUNDS"); do
	for k in $(in_turn "$r" "${KERNELS[@]}"); do
		log "takeover: round $r: $k"
		"$TOP"/scripts/4-boot.sh arm64 "$k" "$LOGS/$k-$r.log" --pin \
			--tests "$TESTS" --timeout 1500 || log "takeover: $k round $r: boot status $?"
	done
done
echo "$LOGS"
