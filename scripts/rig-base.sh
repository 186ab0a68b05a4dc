#!/bin/bash
# make rig-base: the base kernels on the tagged-TLB rig (README, "The
# tagged-TLB rig"), with the upstream regression suites and the series'
# stress test (tlb_coherency, every mode: it runs on base as it is; the
# tests are the series' build, as make bench boots them), to show that the
# rig raises no false alarm on a kernel without the series. Not part of
# make check (its time is tight): a measurement, results/rig-base.md.
# Each boot is booted and judged as make check does its boots
# (scripts/boot-row.sh: --qemu rig, the known failures); prints each
# verdict that is not a PASS, then per boot "TAG: P passed, F failed, S
# skipped, N s".
# Exit status non-zero if a boot failed anything.
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/boot-row.sh"
lock_out

# The boots: the rows of view rig-base (guest/views: the kernels, the
# tests and why), each booted once.
boots=()
table_read boots rig-base
[ ${#boots[@]} -gt 0 ] || die "no row of view rig-base in guest/views"

"$TOP"/scripts/2-tree.sh
"$TOP"/scripts/rig.sh --deps >/dev/null
log "rig-base: rig $(basename "$("$TOP"/scripts/rig.sh)")"
build_rows "${boots[@]}"
LOGS=$OUT/logs/rig-base
rm -rf "$LOGS"
mkdir -p "$LOGS"
boot_each "${boots[@]}"
