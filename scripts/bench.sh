#!/bin/bash
# make bench: base and series side by side, both arches, same machine and
# config, in one run. Prints a before/after table with ratios and writes
# results/bench.{md,json,png}. Absolute times under TCG are noise; only
# the ratios measured here, in one run, mean anything.
. "$(dirname "$0")/lib.sh"

LOGS=$OUT/logs/bench
rm -rf "$LOGS"
mkdir -p "$LOGS" "$RESULTS"
M=$LOGS/measurements.jsonl
: >"$M"

ids() { # ids GROUP [PREFIX]: comma-separated test ids from guest/tests.list
	awk -F'|' -v g="$1" -v p="${2:-}" '!/^#/ && $2 == g && index($1, p) == 1 { print $1 }' \
		"$TOP/guest/tests.list" | paste -sd, -
}
emit() { # emit METRIC ARCH KERNEL PATH VCPUS VALUE UNIT [RATIO_TO_JSON]
	printf '{"metric": "%s", "arch": "%s", "kernel": "%s", "path": "%s", "vcpus": %s, "value": %s, "unit": "%s"%s}\n' \
		"$1" "$2" "$3" "$4" "$5" "$6" "$7" "${8:+, \"ratio_to\": $8}" >>"$M"
}
passset() { # the sorted ids of passing userspace tests in a run's JSON
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(sorted(t["name"].split()[0] for t in r["kselftest"] or [] if t["status"] == "PASS")))' "$1"
}

"$TOP"/scripts/2-tree.sh
for arch in x86_64 arm64; do
	for k in base series; do
		"$TOP"/scripts/3-build-kernel.sh "$arch" "$k" >/dev/null
	done
	"$TOP"/scripts/3-build-tests.sh "$arch" series >/dev/null
done

# Regression suites on both kernels: the pass sets must be equal.
for arch in x86_64 arm64; do
	tests=$(ids regress mm.)
	[ "$arch" = x86_64 ] && tests="$tests,$(ids regress kvm.)"
	for k in base series; do
		logf=$LOGS/$arch-$k-regress.log
		s=$(date +%s.%N)
		"$TOP"/scripts/4-boot.sh "$arch" "$arch-$k" "$logf" --tests "$tests" \
			--append "kvm_amd.npt=1" || true
		e=$(date +%s.%N)
		"$TOP"/scripts/5-results.py "$logf" --tree "$TREE" --tag "$arch/$k" >/dev/null
		passset "$logf.json" >"$LOGS/$arch-$k.pass"
		emit regression_passed "$arch" "$k" regress 4 "$(wc -w <"$LOGS/$arch-$k.pass")" tests
		emit regression_wall "$arch" "$k" regress 4 "$(echo "$e - $s" | bc)" s
	done
	if cmp -s "$LOGS/$arch-base.pass" "$LOGS/$arch-series.pass"; then
		log "bench $arch: regression pass sets are equal ($(wc -w <"$LOGS/$arch-base.pass") tests)"
	else
		log "bench $arch: regression pass sets DIFFER: base [$(cat "$LOGS/$arch-base.pass")] series [$(cat "$LOGS/$arch-series.pass")]"
	fi
done

# Boot to userspace and power off, nothing else: three boots per kernel.
for arch in x86_64 arm64; do
	for k in base series; do
		tot=0
		for i in 1 2 3; do
			s=$(date +%s.%N)
			"$TOP"/scripts/4-boot.sh "$arch" "$arch-$k" "$LOGS/$arch-$k-boot$i.log" || true
			tot=$(echo "$tot + $(date +%s.%N) - $s" | bc)
		done
		emit boot_wall "$arch" "$k" boot 4 "$(echo "scale=3; $tot / 3" | bc)" s
	done
done

"$TOP"/scripts/5-report.py "$M" "$RESULTS"
