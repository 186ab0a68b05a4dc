#!/bin/bash
# make repro-hv-shadow: the KVM selftest hyperv_tlb_flush, ten times in a
# row with kvm_amd.npt=0 (shadow paging), on the base and on the series
# kernel. Base sees stale translations: svm_flush_tlb_asid() drops a
# pending Hyper-V flush request that shadow paging still needs (see the
# "KVM: SVM: Don't drop pending Hyper-V TLB flushes" patch). The series
# must pass 10 of 10.
. "$(dirname "$0")/lib.sh"

"$TOP"/scripts/2-tree.sh
rc=0
for k in base series; do
	"$TOP"/scripts/3-build-kernel.sh x86_64 "$k" >/dev/null
done
"$TOP"/scripts/3-build-tests.sh x86_64 series >/dev/null
for k in base series; do
	logf=$OUT/logs/repro-hv-shadow-$k.log
	"$TOP"/scripts/4-boot.sh x86_64 "x86_64-$k" "$logf" --append "kvm_amd.npt=0" \
		--tests kvm.hyperv_tlb_flush_10x --timeout 1500 || true
	n=$(grep -o 'hyperv_tlb_flush passed [0-9]* of 10' "$logf" | grep -o '[0-9]* of' | cut -d' ' -f1)
	echo "$k: hyperv_tlb_flush with kvm_amd.npt=0 passed ${n:-0} of 10"
	[ "$k" = series ] && [ "${n:-0}" != 10 ] && rc=1
done
exit $rc
