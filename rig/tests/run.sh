#!/bin/bash
# Boot the rig self-tests (x86_64, then arm64) and judge their consoles.
#
#   run.sh [--stock] QEMU_X86 QEMU_ARM
#
# Default: exits 0 only if both guests ran to their summary line
# ("rig-selftest: N passed, 0 failed") with every case "ok" and as many
# cases as their plan says.  QEMU_RIG_TLB=1 is exported unless the caller
# set QEMU_RIG_TLB (set it to 0 to run the rig binary as stock TCG).
#
# --stock: run as stock TCG (exports QEMU_RIG_TLB=0: the rig binary is
# then stock TCG plus PCID/INVPCID on x86; or give the system's QEMU).
# Exits 0 only if every case that expects a stale translation (name
# ending in "(stale)") failed, i.e. the tests tell stock from the rig;
# other failures (say, no PCID on the system QEMU) are listed, not judged.
#
# Logs: $RIG_LOG_DIR (default build/logs beside this script).
set -u

here=$(cd "$(dirname "$0")" && pwd)
stock=0
if [ "${1:-}" = --stock ]; then
	stock=1
	shift
fi
if [ $# -ne 2 ]; then
	echo "usage: $0 [--stock] QEMU_X86 QEMU_ARM" >&2
	exit 2
fi
qemu_x86=$1
qemu_arm=$2
logs=${RIG_LOG_DIR:-$here/build/logs}
timeout_s=${RIG_TIMEOUT:-60}

if [ "$stock" = 1 ]; then
	export QEMU_RIG_TLB=0
elif [ -z "${QEMU_RIG_TLB+set}" ]; then
	export QEMU_RIG_TLB=1
fi

make -s -C "$here" || exit 1
mkdir -p "$logs"

# boot NAME EXPECTED_STATUSES QEMU ARGS...: console -> $logs/NAME.log,
# QEMU's stderr -> $logs/NAME.err
boot() {
	local name=$1 ok_status=$2 qemu=$3 t0 st
	shift 3
	echo "== $name: $qemu $*  (QEMU_RIG_TLB=${QEMU_RIG_TLB-unset})"
	t0=$(date +%s%N)
	timeout -k 5 "$timeout_s" "$qemu" "$@" </dev/null \
		>"$logs/$name.log" 2>"$logs/$name.err"
	st=$?
	tr -d '\r' <"$logs/$name.log" >"$logs/$name.tap"
	cat "$logs/$name.tap"
	[ -s "$logs/$name.err" ] && sed 's/^/  stderr: /' "$logs/$name.err"
	echo "== $name: QEMU exit status $st, $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	case " $ok_status " in
	*" $st "*) return 0 ;;
	esac
	if [ "$st" = 124 ] || [ "$st" = 137 ]; then
		echo "FAIL $name: timed out after ${timeout_s}s"
	else
		echo "FAIL $name: QEMU exit status $st (expected one of: $ok_status)"
	fi
	return 1
}

# judge NAME: the console's verdict, printed; returns non-zero on failure
judge() {
	local f=$logs/$1.tap plan cases nok sum
	sum=$(grep -E '^rig-selftest: [0-9]+ passed, [0-9]+ failed' "$f" | tail -n1)
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$f" | tail -n1)
	cases=$(grep -cE '^(not )?ok [0-9]+ - ' "$f")
	nok=$(grep -cE '^not ok [0-9]+ - ' "$f")
	if grep -q '^Bail out!' "$f"; then
		echo "FAIL $1: $(grep -m1 '^Bail out!' "$f")"
		return 1
	fi
	if [ -z "$sum" ] || [ -z "$plan" ] || [ "$plan" != "$cases" ]; then
		echo "FAIL $1: incomplete run (summary '${sum:-none}', plan ${plan:-none}, $cases cases seen)"
		return 1
	fi
	if [ "$stock" = 1 ]; then
		local stale told other kept
		stale=$(grep -cE '^(not )?ok [0-9]+ - .*\(stale\)' "$f")
		told=$(grep -cE '^not ok [0-9]+ - .*\(stale\): read B, expected A$' "$f")
		kept=$(grep -E '^ok [0-9]+ - .*\(stale\)' "$f")
		other=$(grep -E '^not ok [0-9]+ - .*\(stale\): ' "$f" | grep -vc ': read B, expected A$')
		echo "$1: $stale cases expect a stale translation: $told read B (told apart)," \
			"$other failed otherwise, $(grep -cE '^ok [0-9]+ - .*\(stale\)' "$f") passed"
		grep -E '^not ok [0-9]+ - ' "$f" | grep -v '(stale)' | sed 's/^/  (not judged) /'
		if [ -n "$kept" ]; then
			echo "FAIL $1: stale expectation met on stock (cannot tell stock from the rig):"
			printf "  %s\n" "$kept"
			return 1
		fi
		[ "$stale" -gt 0 ] || { echo "FAIL $1: no stale-expecting case ran"; return 1; }
		echo "PASS $1 (stock): every stale expectation failed"
		return 0
	fi
	if [ "$nok" != 0 ] || ! grep -qE '^rig-selftest: [0-9]+ passed, 0 failed' <<<"$sum"; then
		echo "FAIL $1: $sum"
		grep -E '^not ok ' "$f" | sed 's/^/  /'
		return 1
	fi
	echo "PASS $1: $sum"
	return 0
}

fail=0
common=(-accel "tcg,thread=multi" -display none -nic none -no-reboot
	-serial stdio -monitor none -m 128M)

# x86: isa-debug-exit; the guest writes 0 (all passed -> status 1) or
# 1 (failures -> status 3); two CPUs for the broadcast (INVLPGB) cases.
boot x86_64 "1 3" "$qemu_x86" -L /usr/share/seabios -L /usr/share/qemu \
	-M pc -cpu max -smp 2 -vga none "${common[@]}" \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-kernel "$here/build/x86.bin" || fail=1
judge x86_64 || fail=1

# arm64: PSCI SYSTEM_OFF (status 0); two CPUs for the broadcast cases.
boot arm64 "0" "$qemu_arm" -M virt,gic-version=3 -cpu max -smp 2 \
	"${common[@]}" -kernel "$here/build/arm64.elf" || fail=1
judge arm64 || fail=1

what="rig self-tests"
[ "$stock" = 1 ] && what="rig self-tests on stock (stale expectations must fail)"
if [ "$fail" = 0 ]; then
	echo "$what: PASS"
else
	echo "$what: FAIL"
fi
exit "$fail"
