#!/bin/bash
# Step 4: boot one kernel under QEMU TCG and capture its console.
#   4-boot.sh ARCH KERNEL_BUILD_NAME LOG [options]
#     --smp N         vCPUs (default 4)
#     --nodes N       NUMA nodes (default 1): memory split evenly, vCPUs in
#                     contiguous blocks, one socket per node (tlb_coherency's
#                     migrate mode needs 2)
#     --tests a,b     test ids from guest/tests.list to run in the guest
#     --rows a,b      then these rows of mutants/matrix, each with its
#                     mutant turned on at run time (a mutants kernel only)
#     --append "..."  extra kernel command line
#     --timeout S     hard limit for the whole boot (default 900)
#     --kunit GLOB    KUnit suites to run at boot (default: none)
#     --pin           pin vCPU N's host thread to host CPU N mod nproc, so
#                     that two busy vCPUs never share a host CPU by chance
#                     (make bench: otherwise the host scheduler's placement
#                     makes repeated runs differ by half)
#     --silence S     a console silent for S seconds is a hang (default 180,
#                     0: never): LOG gets a line "### tlb-series: hang: ..."
#                     with the last console line, then QEMU's registers
#                     (info registers -a), and QEMU is stopped. A hung boot
#                     (the clocksource watchdog hang of kernels without
#                     patch 1 hit one x86_64 boot in 40, without
#                     tsc=reliable) thus fails in minutes, not at
#                     --timeout. guest/init prints a heartbeat every 60 s
#                     while a test runs, and no boot or KUnit step is
#                     silent for minutes, so 180 s is safe.
#     --tsc-watchdog  x86_64: leave the clocksource watchdog on the TSC
#                     (no CLOCK_APPEND, tsc=reliable), to reproduce that hang
#     --cpu MODEL     QEMU's -cpu (default QEMU_CPU, max), e.g. max,-flushbyasid
#     --initrd NAME   boot out/initramfs-ARCH-NAME.cpio.gz instead of the
#                     guest initramfs (nested: 3-build-nested.sh, the
#                     nested Hyper-V boot's L1 with its L2 payload)
#     --rig           boot on the tagged-TLB rig (scripts/rig.sh --cached:
#                     built before, never here) with QEMU_RIG_TLB=1, its TLB
#                     tagged per PCID/ASID, and -L for Debian's firmware
#                     path; LOG's first line is "### tlb-series: qemu rig
#                     KEY" (5-results.py --qemu checks it). The
#                     rig's cache entry is marked used, and held (a shared
#                     lock) while QEMU runs, so that no rig.sh prunes it.
# A full disk is no hang: with less than BOOT_MIN_FREE_MB (default 64)
# free on LOG's file system, no boot; and a console that stops growing
# while less than 1 MiB is free there is a full disk (QEMU's console
# writes fail), not a silent kernel. Either way LOG gets a line
# "### tlb-series: disk full: ..." (written in the room of a 64 KiB
# reserve file kept beside LOG for it) and QEMU is stopped.
# Exit status: 0 if the guest powered itself off, 124 on timeout, 123 on a
# hang (not 125: timeout(1) itself returns 125 when it fails), 122 on a
# full disk, 128+N when stopped by signal N (QEMU is stopped first: none
# is left running).
# What differs between the arches (the qemu-system-* program, machine,
# CPU model, console, kernel image) is in scripts/qemu/ARCH.conf.
# QEMU_CMD, for the self-tests only, replaces the qemu-system-* program;
# BOOT_FREE_KB_CMD, for them too, prints the free KiB instead of df.
. "$(dirname "$0")/lib.sh"

arch=$1 name=$2 logf=$3
shift 3
[ -f "$TOP/scripts/qemu/$arch.conf" ] || die "no QEMU settings for arch $arch (scripts/qemu/$arch.conf)"
# shellcheck source=qemu/x86_64.conf
. "$TOP/scripts/qemu/$arch.conf"
smp=4 nodes=1 tests='' rows='' append='' tmo=900 kunit='' pin=0 silence=180 tscopt=$CLOCK_APPEND rig=0 cpu=$QEMU_CPU initrd=
while [ $# -gt 0 ]; do
	case $1 in
	--smp) smp=$2 ;;
	--nodes) nodes=$2 ;;
	--tests) tests=$2 ;;
	--rows) rows=$2 ;;
	--append) append=$2 ;;
	--timeout) tmo=$2 ;;
	--kunit) kunit=$2 ;;
	--silence) silence=$2 ;;
	--cpu) cpu=$2 ;;
	--initrd) initrd=$2 ;;
	--pin) pin=1; shift; continue ;;
	--tsc-watchdog) tscopt=; shift; continue ;;
	--rig) rig=1; shift; continue ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done

bdir=$OUT/build/$name
kernel=$bdir/$KERNEL_IMAGE
initrd=$OUT/initramfs-$arch${initrd:+-$initrd}.cpio.gz
[ -f "$kernel" ] || die "no kernel image $kernel"
[ -f "$initrd" ] || die "no initramfs $initrd"

if [ -n "$kunit" ]; then
	kopt="kunit.enable=1 kunit.filter_glob=$kunit"
else
	kopt="kunit.enable=0"
fi
cmdline="panic=-1 oops=panic rdinit=/init $kopt tlbtests=$tests${rows:+ tlbrows=$rows} $append"
qemu=("$QEMU_BIN")
[ -z "$QEMU_MACHINE" ] || qemu+=(-M "$QEMU_MACHINE")
qemu+=(-cpu "$cpu" -append "console=$CONSOLE${tscopt:+ $tscopt} $cmdline")
rigkey=
unset QEMU_RIG_TLB
if [ "$rig" = 1 ]; then
	rigdir=$("$TOP"/scripts/rig.sh --cached) || exit 1
	rigkey=${rigdir##*/}
	qemu[0]=$rigdir/bin/${qemu[0]}
	# The firmware of Debian's QEMU (its firmware path: SeaBIOS, the
	# option ROMs, the default NIC's iPXE ROM, on both arches): the rig
	# has no data directory of its own.
	qemu+=(-L /usr/share/seabios -L /usr/share/qemu -L /usr/lib/ipxe/qemu)
	export QEMU_RIG_TLB=1
	exec 6>"$rigdir.lock"
	flock -s 6
	touch "$rigdir"
fi
qemu[0]=${QEMU_CMD:-${qemu[0]}}
mem=${MEM:-4G} smpopt=$smp
if [ "$nodes" -gt 1 ]; then
	# One socket per node: the vCPUs of a node share their last-level
	# cache, and only they (else x86's topology_sane() warns that an LLC
	# sibling is on another node).
	smpopt=$smp,sockets=$nodes,cores=$((smp / nodes)),threads=1
	[ $((smp % nodes)) = 0 ] || die "--smp $smp does not split into $nodes nodes"
	mib=$(( $(numfmt --from=iec "$mem") / 1048576 / nodes ))
	mem=$((mib * nodes))M
	for ((n = 0; n < nodes; n++)); do
		qemu+=(-object "memory-backend-ram,id=node$n,size=${mib}M"
			-numa "node,nodeid=$n,memdev=node$n,cpus=$((n * smp / nodes))-$(((n + 1) * smp / nodes - 1))")
	done
fi
mkdir -p "$(dirname "$logf")"
log "boot $name smp=$smp$([ "$nodes" = 1 ] || echo " nodes=$nodes")${tests:+ tests=$tests}${kunit:+ kunit=$kunit}${append:+ [$append]}${rigkey:+ on the rig $rigkey}"
# pin_vcpus PID: once QEMU (a child of PID) has named its $smp vCPU
# threads "CPU N/TCG", bind each to a host CPU.
pin_vcpus() {
	local qpid='' t n i ncpu
	ncpu=$(nproc)
	for i in $(seq 100); do
		qpid=${qpid:-$(pgrep -P "$1" qemu-system || true)}
		n=0
		[ -n "$qpid" ] && n=$(cat /proc/"$qpid"/task/*/comm 2>/dev/null | grep -c '^CPU [0-9]*/TCG' || true)
		[ "$n" -ge "$smp" ] && break
		sleep 0.1
	done
	[ "$n" -ge "$smp" ] || { log "boot $name: vCPU threads not found, not pinned"; return 0; }
	for t in /proc/"$qpid"/task/*; do
		n=$(sed -n 's|^CPU \([0-9]*\)/TCG$|\1|p' "$t/comm" 2>/dev/null)
		[ -n "$n" ] && taskset -p -c $((n % ncpu)) "${t##*/}" >/dev/null
	done
	return 0
}

# QEMU's human monitor listens on a private unix socket (its path must fit
# in 108 bytes, hence /tmp): the watchdog asks it for the vCPUs' registers
# and stops QEMU through it.
rundir=$(mktemp -d /tmp/tlb-boot.XXXXXX)
mon=$rundir/monitor.sock
qemu_job='' tick=''
# monitor CMD [TIMEOUT]: send one monitor command, print its answer.
monitor() {
	python3 - "$mon" "$1" "${2:-10}" <<'EOF'
import re, socket, sys, time
path, cmd, tmo = sys.argv[1], sys.argv[2], float(sys.argv[3])
end = time.monotonic() + tmo


def until_prompt(s):
    buf = b''
    while not buf.endswith(b'(qemu) '):
        s.settimeout(max(0.1, end - time.monotonic()))
        d = s.recv(65536)
        if not d:  # "quit" closes the connection
            break
        buf += d
    return buf


try:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(tmo)
    s.connect(path)
    until_prompt(s)  # the banner
    s.sendall(cmd.encode() + b'\n')
    out = until_prompt(s)
except OSError as e:  # timeouts too
    sys.exit(f'QEMU monitor: {cmd}: no answer: {e}')
# The monitor echoes the command line, with cursor moves, up to a CR LF.
out = out.split(b'\r\n', 1)[-1]
out = out[:-len(b'(qemu) ')] if out.endswith(b'(qemu) ') else out
out = re.sub(rb'\x1b\[[0-9;]*[A-Za-z]', b'', out).replace(b'\r', b'')
sys.stdout.write(out.decode(errors='replace'))
EOF
}
# stop_qemu: quit through the monitor; a QEMU still there 5 s later gets
# TERM through timeout(1), which passes it on and sends KILL 10 s later.
stop_qemu() {
	[ -n "$qemu_job" ] || return 0
	monitor quit 5 >/dev/null 2>&1 || true
	for _ in $(seq 50); do
		kill -0 "$qemu_job" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$qemu_job" 2>/dev/null; then
		log "boot $name: QEMU did not quit, sending TERM"
		kill -TERM "$qemu_job" 2>/dev/null || true
	fi
	wait "$qemu_job" 2>/dev/null || true
	qemu_job=
}
# QEMU, started in the background, ignores SIGINT: a Ctrl-C, or a CI job's
# TERM, must stop it here, or it runs on to its timeout.
# stopped WHY STATUS
stopped() {
	trap - INT TERM HUP
	log "boot $name: $1, stopping QEMU"
	stop_qemu
	exit "$2"
}
trap 'stopped "stopped by SIGINT" 130' INT
trap 'stopped "stopped by SIGTERM" 143' TERM
trap 'stopped "stopped by SIGHUP" 129' HUP
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	stop_qemu
	[ -z "$tick" ] || kill "$tick" 2>/dev/null || true
	rm -rf "$rundir"
	[ -z "${reserve:-}" ] || rm -f "$reserve"
}
trap cleanup EXIT
# where REGS: for each CPU of QEMU's "info registers -a", the kernel text
# symbol its RIP (x86_64) or PC (arm64) is in, from the build's
# System.map, as "### tlb-series: CPU N at SYMBOL+OFFSET (ADDRESS)" (no
# lines without a System.map).
where() {
	[ -f "$bdir/System.map" ] || return 0
	python3 -c '
import bisect, re, sys
syms = []
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) >= 3 and f[1] in "tTwW":
        syms.append((int(f[0], 16), f[2]))
syms.sort()
addrs = [a for a, _ in syms]
cpu = None
for l in sys.argv[2].splitlines():
    m = re.match(r"CPU#(\d+)", l.strip())
    if m:
        cpu = m.group(1)
        continue
    m = re.search(r"(?:^|\s)(?:RIP|PC)=([0-9a-fA-F]+)", l)
    if m and cpu is not None:
        pc = int(m.group(1), 16)
        i = bisect.bisect_right(addrs, pc) - 1
        # Past the last symbol by more than 1 MiB: not kernel text.
        at = "%s+%#x" % (syms[i][1], pc - addrs[i]) \
            if i >= 0 and pc - addrs[i] < 1 << 20 else "?"
        print("### tlb-series: CPU %s at %s (%s)" % (cpu, at, m.group(1)))
        cpu = None
' "$bdir/System.map" "$1" || true
}
# free_kb: KiB free on LOG's file system.
free_kb() {
	if [ -n "${BOOT_FREE_KB_CMD:-}" ]; then
		sh -c "$BOOT_FREE_KB_CMD"
	else
		df -Pk "$(dirname "$logf")" | awk 'NR == 2 { print $4 }'
	fi
}
last_line() { # the console's last line (not the harness's own), 200 columns
	tr -d '\r' <"$logf" | awk 'NF && !/^### tlb-series: qemu / { l = $0 } END { print substr(l, 1, 200) }'
}
# on_disk_full: the console stopped growing on a full disk. QEMU is
# stopped (no register dump: the kernel is not what is wrong), then the
# reserve makes room for the marker.
on_disk_full() {
	local last
	last=$(last_line)
	stop_qemu
	rm -f "$reserve"
	echo "### tlb-series: disk full: $(free_kb) KiB free on the log's file system ($(dirname "$logf")); the console stopped after: ${last:-(no output)}" >>"$logf" || true
	log "boot $name: disk full: the console stopped after: ${last:-(no output)}"
}
# on_hang SECONDS: the console has been silent that long. Keep its last
# line and the registers, stop QEMU, then append them to the log (QEMU
# writes to it until it exits).
on_hang() {
	local last regs
	last=$(last_line)
	regs=$(monitor "info registers -a" 30 2>&1) || true
	stop_qemu
	{
		echo "### tlb-series: hang: console silent for ${1}s after: ${last:-(no output)}"
		echo "### tlb-series: QEMU monitor: info registers -a"
		printf '%s\n' "$regs"
		echo "### tlb-series: end of register dump"
		where "$regs"
	} >>"$logf"
	log "boot $name: hang: console silent for ${1}s after: ${last:-(no output)}"
}
# watch: until QEMU exits (its status in rc), stop it once its console has
# been silent for $silence seconds (rc=123), or once whoever ran us is gone
# (killed without passing the signal on: nobody would read the log). It
# waits for QEMU or a 1 s tick, whichever ends first: a boot's wall time
# (make bench) gets no polling delay.
watch() {
	local size seen=-1 since=$SECONDS who st
	while :; do
		sleep 1 &
		tick=$!
		who='' st=0
		wait -n -p who "$qemu_job" "$tick" || st=$?
		if [ "$who" = "$qemu_job" ]; then
			kill "$tick" 2>/dev/null || true
			wait "$tick" 2>/dev/null || true
			qemu_job='' rc=$st
			return
		fi
		size=$(stat -c %s "$logf")
		if [ "$size" != "$seen" ]; then
			seen=$size since=$SECONDS
		elif [ $((SECONDS - since)) -ge 2 ] && [ "$(free_kb)" -lt 1024 ]; then
			on_disk_full
			rc=122
			return
		elif [ "$silence" -gt 0 ] && [ $((SECONDS - since)) -ge "$silence" ]; then
			on_hang $((SECONDS - since))
			rc=123
			return
		fi
		[ "$(cut -d' ' -f4 /proc/$$/stat)" = "$PPID" ] ||
			stopped "the process that ran this script is gone" 129
	done
}
rc=0
reserve=$logf.reserve
if [ "$(free_kb)" -lt $((${BOOT_MIN_FREE_MB:-64} * 1024)) ]; then
	echo "### tlb-series: disk full: $(free_kb) KiB free on the log's file system ($(dirname "$logf")) before the boot, under BOOT_MIN_FREE_MB=${BOOT_MIN_FREE_MB:-64}: not booted" >"$logf" || true
	log "boot $name: disk full before the boot: not booted"
	exit 122
fi
head -c 65536 /dev/zero >"$reserve" 2>/dev/null || true
# Append mode: the lines added here after QEMU has gone stay whole.
if [ -n "$rigkey" ]; then
	echo "### tlb-series: qemu rig $rigkey" >"$logf"
else
	: >"$logf"
fi
timeout --foreground -k 10 "$tmo" "${qemu[@]}" -accel tcg,thread=multi \
	-name "tlb-$arch,debug-threads=on" \
	-smp "$smpopt" -m "$mem" -display none -no-reboot \
	-monitor "unix:$mon,server=on,wait=off" -serial stdio \
	-kernel "$kernel" -initrd "$initrd" </dev/null >>"$logf" 2>&1 &
qemu_job=$!
[ "$pin" = 1 ] && pin_vcpus "$qemu_job"
watch
# QEMU prints "terminating on signal" etc. on stderr; keep it in the log.
# timeout(1) returns 124 when TERM stopped QEMU, 137 when it took the
# KILL 10 s later: both are the time limit.
[ $rc = 137 ] && rc=124
[ $rc = 124 ] && echo "### tlb-series: boot timed out after ${tmo}s" >>"$logf"
log "boot $name: rc=$rc ($(wc -l <"$logf") console lines)"
exit $rc
