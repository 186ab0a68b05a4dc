#!/bin/bash
# make repro-*: one test that fails only now and then, run many times in
# a row in one boot, on the kernels named below. Each run prints
# "KERNEL: NAME passed N of M"; the series must pass M of M.
#   repro.sh hv-shadow  the KVM selftest hyperv_tlb_flush, ten times with
#                       kvm_amd.npt=0 (shadow paging), on base and series.
#                       Base sees stale translations: svm_flush_tlb_asid()
#                       drops a pending Hyper-V flush request that shadow
#                       paging still needs (see the "KVM: SVM: Don't drop
#                       pending Hyper-V TLB flushes" patch).
#   repro.sh mremap     mremap_test, 60 times, on the x86_64 and arm64
#                       series kernels. Without the "mremap_test: check
#                       that the destination preamble is free" patch, its
#                       40MB-preamble case fails whenever the randomized
#                       heap lies below the destination (1 run in 15 to
#                       70 here).
. "$(dirname "$0")/lib.sh"
lock_out

case ${1:-} in
hv-shadow) kernels="x86_64-base x86_64-series" id=kvm.hyperv_tlb_flush_10x append=kvm_amd.npt=0 ;;
mremap) kernels="x86_64-series arm64-series" id=mm.mremap_test_60x append= ;;
*) die "usage: $0 hv-shadow|mremap" ;;
esac

"$TOP"/scripts/2-tree.sh
for k in $kernels; do
	"$TOP"/scripts/3-build-kernel.sh "${k%%-*}" "${k#*-}" >/dev/null
done
for arch in $(printf '%s\n' $kernels | cut -d- -f1 | sort -u); do
	"$TOP"/scripts/3-build-tests.sh "$arch" series >/dev/null
done
rc=0
for k in $kernels; do
	logf=$OUT/logs/repro-$1-$k.log
	"$TOP"/scripts/4-boot.sh "${k%%-*}" "$k" "$logf" --tests "$id" \
		${append:+--append "$append"} --timeout 1500 || true
	res=$(grep -o '[a-z_]* passed [0-9]* of [0-9]*' "$logf" | tail -n 1)
	echo "$k: ${res:-no result (see $logf)}"
	read -r _ _ n _ m <<<"${res:-x passed 0 of 1}"
	[ "${k#*-}" = series ] && [ "$n" != "$m" ] && rc=1
done
exit $rc
