#!/usr/bin/env python3
"""A stand-in for qemu-system-*, for the self-tests of 4-boot.sh (QEMU_CMD).

Takes QEMU's arguments, uses only -monitor unix:PATH,...: serves a human
monitor there that answers "info registers -a" with canned registers and
"quit" by exiting, the way QEMU 7.2 does (echo of the command line with
cursor moves, CR LF line ends, "(qemu) " prompt). On stdout, the console:

    FAKE_QEMU_MODE=hang    three boot lines, then silence (until "quit")
    FAKE_QEMU_MODE=chatty  a line a second for FAKE_QEMU_LINES (5) seconds,
                           then "Power down" and exit 0, as a guest does
    FAKE_QEMU_MODE=deaf    a line a second, never ends, ignores SIGTERM
                           (only timeout(1)'s KILL stops it)

FAKE_QEMU_PIDFILE, if set, gets its pid and the monitor socket's path: the
test checks that neither is left behind.
"""
import os
import signal
import socket
import sys
import time

REGS = ('CPU#0\r\n'
        'RAX=0000000000000001 RBX=ffff88800427c000 RCX=0000000000000000 '
        'RDX=0000000000000001\r\n'
        'RIP=ffffffff8113c2b4 RFL=00000046 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 '
        'HLT=0\r\n\r\n'
        'CPU#1\r\n'
        'RIP=ffffffff81187a10 RFL=00000002 [-------] CPL=0 II=0 A20=1 SMM=0 '
        'HLT=0\r\n')


def console(line):
    sys.stdout.write(line + '\n')
    sys.stdout.flush()


def serve(srv):
    """Answer monitor connections until a "quit"."""
    while True:
        conn, _ = srv.accept()
        with conn:
            conn.sendall(b'QEMU 7.2.22 monitor - type \'help\' for more '
                         b'information\r\n(qemu) ')
            buf = b''
            while True:
                d = conn.recv(4096)
                if not d:
                    break
                buf += d
                while b'\n' in buf:
                    line, buf = buf.split(b'\n', 1)
                    cmd = line.strip().decode()
                    conn.sendall(cmd.encode() + b'\x1b[K\r\n')
                    if cmd == 'quit':
                        sys.exit(0)
                    if cmd == 'info registers -a':
                        conn.sendall(REGS.encode())
                    else:
                        conn.sendall(b'unknown command: ' + cmd.encode() +
                                     b'\r\n')
                    conn.sendall(b'(qemu) ')


args = sys.argv[1:]
mon = args[args.index('-monitor') + 1]
assert mon.startswith('unix:'), mon
path = mon[len('unix:'):].split(',')[0]
if os.environ.get('FAKE_QEMU_PIDFILE'):
    with open(os.environ['FAKE_QEMU_PIDFILE'], 'w') as f:
        f.write(f'{os.getpid()}\n{path}\n')
srv = socket.socket(socket.AF_UNIX)
srv.bind(path)
srv.listen(1)

mode = os.environ.get('FAKE_QEMU_MODE', 'hang')
if mode == 'chatty':
    for i in range(int(os.environ.get('FAKE_QEMU_LINES', '5'))):
        console(f'[    {i + 1}.000000] still booting, line {i + 1}')
        time.sleep(1)
    console('[    9.000000] reboot: Power down')
    sys.exit(0)
if mode == 'deaf':
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    i = 0
    while True:
        i += 1
        console(f'[    {i}.000000] deaf to TERM, line {i}')
        time.sleep(1)
console('[    0.000000] Linux version 7.3.4 (fake-qemu.py)')
console('[    0.456789] smp: Brought up 1 node, 4 CPUs')
console('[    1.612345] clocksource: Switched to clocksource tsc-early')
serve(srv)
