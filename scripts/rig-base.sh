#!/bin/bash
# make rig-base: the base kernels on the tagged-TLB rig (README, "The
# tagged-TLB rig"), with the upstream regression suites and the series'
# stress test (tlb_coherency, every mode: it runs on base as it is; the
# tests are the series' build, as make bench boots them), to show that the
# rig raises no false alarm on a kernel without the series. Not part of
# make check (its time is tight): a measurement, results/rig-base.md.
# Each boot is judged by 5-results.py as make check judges its boots
# (--qemu rig, the known failures); prints each verdict that is not a
# PASS, then per boot "TAG: P passed, F failed, S skipped, N s".
# Exit status non-zero if a boot failed anything.
. "$(dirname "$0")/lib.sh"
lock_out

# The boots, in guest/boots' format: the test sets of make check's series
# boots (x86_64/rig/series/npt1, npt0, arm64/rig/series) less KUnit (base
# has none of the series' suites) and the series' own tests but the
# stress test. On shadow paging base must fail hyperv_tlb_flush, the bug
# patches 2 and 3 fix (make repro-hv-shadow): it failed 10 of 10 runs on
# stock TCG and on the rig alike (results/rig-base.md).
boots=(
	'x86_64/base/npt1|x86_64|base||regress,series:mm.tlb_coherency|kvm_amd.npt=1||--rig'
	'x86_64/base/npt0|x86_64|base||regress:kvm.|kvm_amd.npt=0|--expect-fail kvm.hyperv_tlb_flush|--rig'
	'arm64/base|arm64|base||regress:mm.,series:mm.tlb_coherency|||--rig'
)

"$TOP"/scripts/2-tree.sh
"$TOP"/scripts/rig.sh --deps >/dev/null
log "rig-base: rig $(basename "$("$TOP"/scripts/rig.sh)")"
for arch in x86_64 arm64; do
	for k in series base; do
		"$TOP"/scripts/3-build-kernel.sh "$arch" "$k" >/dev/null
	done
	"$TOP"/scripts/3-build-tests.sh "$arch" series >/dev/null
done
logs=$OUT/logs/rig-base
rm -rf "$logs"
mkdir -p "$logs"
rc=0 sum=
for b in "${boots[@]}"; do
	IFS='|' read -r tag arch kernel suites tests append vopts bopts <<<"$b"
	if ! words bo "$bopts" || ! words vo "$vopts"; then
		die "rig-base: bad options in $tag"
	fi
	logf=$logs/${tag//\//_}.log
	t=$(date +%s)
	"$TOP"/scripts/4-boot.sh "$arch" "$arch-$kernel" "$logf" --nodes 2 \
		--tests "$(tests_of "$tests")" ${suites:+--kunit "$suites"} \
		--append "$append" "${bo[@]}" >/dev/null 2>"$logf.err" || true
	t=$(($(date +%s) - t))
	"$TOP"/scripts/5-results.py "$logf" --tree "$TREE" --tag "$tag" \
		--known "$TOP/guest/known-failures.txt" --qemu "$(boot_qemu "$bopts")" \
		${vo[@]+"${vo[@]}"} >"$logf.verdict" || true
	grep -v -e '^PASS ' -e '^counts ' "$logf.verdict" || true
	read -r _ p f s < <(grep '^counts ' "$logf.verdict" || echo "counts 0 1 0")
	[ "$f" = 0 ] || rc=1
	sum+="$tag: $p passed, $f failed, $s skipped, $t s"$'\n'
done
printf '%s' "$sum"
exit $rc
