#!/usr/bin/env python3
"""Step 5: turn one guest console log into results and a verdict.

    5-results.py LOG [--tag TAG] [--known FILE] [--expect-fail ID,...]

Writes LOG.json (everything parsed) and prints one line per counted item,
PASS/FAIL/SKIP, then a last line "counts P F S". TAG names the run (for
example x86_64/series/npt0) and selects entries of the known-failures file
(lines "test-id|tag-glob|reason"): such a test is expected to fail and is
counted as skipped with its reason; if it passes, the entry is stale and
that is a failure (see verdict()). --expect-fail lists tests that must
fail (a mutant kernel must be caught): their failure is a pass, and no
result at all (never run, or cut off by a crash) is a failure.
--allow-splat turns kernel splats into a skipped item (for mutant kernels).
--expect-hang FUNC: a mutant kernel that must hang at boot, with CPU 0 in
FUNC (4-boot.sh's register dump, symbolized); anything else fails.
--expect-message REGEX (repeatable): some kernel message must match each
(evidence that a boot went through the path it was meant to).
--expect-pass ID: a test that must pass although a mutant is on (a row of
the mutation matrix that only the tagged-TLB rig can catch, run on stock
TCG); its pass line quotes the test's last line of output.
--qemu rig|tcg: the boot must have run on the tagged-TLB rig (4-boot.sh
--rig writes "### tlb-series: qemu rig KEY" first in the log) with its
TLB on (QEMU_RIG_TLB=1: QEMU's "rig-tlb: cpu N: ..." counters at its
exit), a PASS item "qemu" that sums them; or on stock TCG (no such
line, no item); a FAIL item "qemu" otherwise.
--global-asids (with --qemu rig): the guest must have used global ASIDs
(the INVLPGB path): some INVLPGB named a PCID, as the rig's exit lines
"rig-invlpgb: cpu N: ... by-pcid P pcids D (LO-HI)" count, which Linux
does only in broadcast_tlb_flush(), for an mm with a global ASID; an item
"global-asids" that passes with their sums, or fails (also when a rig
from before those counts printed the lines). Without --qemu rig it is a
usage error.

Pass/fail of KUnit suites and of the userspace kselftests is read with the
tree's own tools/testing/kunit/kunit.py parse (the log is split at the
marker guest/init prints). The kernel's messages (the lines, or the rest of
a line, after a printk time stamp "[   12.345678] ") are also scanned for
splats: any WARNING:, BUG:, Oops, panic, lockdep or KASAN report, RCU stall
or hung task makes the run fail. Userspace output is not scanned: a test
may print those words.

A log cut off anywhere (panic, boot timeout, the silence watchdog's hang
marker, a truncated file) still gives a verdict: the test that was running
is a failure "no result", the tests never started are named in the console
item, and any parse error of our own is reported as a FAIL item, never as
a Python exception without a counts line.
"""
import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback

MARK_BEGIN = '### tlb-series: userspace tests begin'
MARK_END = '### tlb-series: userspace tests end'
# Lines 4-boot.sh appends after QEMU has stopped: what follows one of them
# (for a hang, QEMU's register dump) is not console output.
MARK_HANG = '### tlb-series: hang: '
MARK_CPU = '### tlb-series: '
MARK_TIMEOUT = '### tlb-series: boot timed out'
# A full disk on the host (4-boot.sh's df check, or QEMU's own error on
# its console output): the log ends there, and that is no kernel hang.
MARK_DISK = '### tlb-series: disk full: '
QEMU_ENOSPC = re.compile(r'^qemu-system-[\w-]+: .*No space left on device')
# 4-boot.sh --rig: the log's first line names the rig's cache key; the
# rig's QEMU, its TLB on, prints each vCPU's counters when it exits.
MARK_RIG = '### tlb-series: qemu rig '
# Each x86 vCPU that ran INVLPGB or TLBSYNC (rig patch 0004).
RIG_INVLPGB = re.compile(r'^rig-invlpgb: cpu (\d+): invlpgb (\d+) tlbsync (\d+) '
                         r'completed-early (\d+) by-pcid (\d+) pcids (\d+)')
RIG_TLB = re.compile(r'^rig-tlb: cpu (\d+): lookups (\d+) hits (\d+) '
                     r'kept-across-switch (\d+)')
# guest/init's keep-alive line while a quiet test runs (see 4-boot.sh
# --silence); it is not the test's output.
HEARTBEAT = '# tlb-series: heartbeat'
# Where guest/nested-hv.sh's lines carry L2's time stamp: L2's console,
# and (before it put them in words) its quotes of L2's crash lines,
# dmesg and last line.
L2_STAMP = re.compile(r'^(# L2: |# nested: L2 crash: boot \d+: |# nested: L2 dmesg: |'
                      r'# nested: L2 boot \d+ ended .*?, last line: )\[\s*\d+\.\d{6}\] ')
# What a nested boot's L2 said about its tests before L1 died.
L2_FAILED = re.compile(r'^# (L2: not ok \d+ |nested: FAIL|nested: L2 result: not ok )')
# The splats that are an L1 crash (boot-row.sh boots again after one):
# not a stall, a hung task or a warning, which an L2 hypercall storm can
# give.
CRASH = re.compile(r'\bBUG:|\bOops\b|Kernel panic|general protection fault|'
                   r'Unable to handle kernel')
MARK_SECOND = '### tlb-series: second boot: '
L2_RETRIED = re.compile(r'^# (nested: L2 ran for .*, (\d+) reset or stalled in them)')
ROW_PREFIX = '### tlb-series: row '
ROW_BEGIN = ROW_PREFIX + '{} begin'
ROW_END = ROW_PREFIX + '{} end'
SPLATS = [
    ('', re.compile(r'WARNING:')),
    ('', re.compile(r'\bBUG:')),
    ('', re.compile(r'\bOops\b')),
    ('', re.compile(r'Kernel panic')),
    # lockdep's reports also start with WARNING:, listed here all the same
    ('', re.compile(r'possible (recursive|circular) locking|inconsistent lock state|'
                    r'suspicious RCU usage|lockdep is turned off')),
    ('', re.compile(r'KASAN:')),
    ('', re.compile(r'Unable to handle kernel')),
    ('', re.compile(r'general protection fault')),
    # "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:",
    # "rcu: INFO: rcu_preempt self-detected stall on CPU", expedited ones
    ('RCU stall', re.compile(r'INFO: rcu\w* (self-)?detected (expedited )?stall')),
    ('hung task', re.compile(r'INFO: task \S.* blocked for more than')),
    ('lockup', re.compile(r'detected hard LOCKUP|soft lockup')),
]
# printk's time stamp (CONFIG_PRINTK_TIME, configs/common.config): it
# starts every kernel message. Userspace lines (guest/init prefixes test
# output with "# ") have none; a kernel message that interrupts a userspace
# line starts mid-line, so it is searched for, not only matched at 0.
KMSG = re.compile(r'\[\s*\d+\.\d{6}\] ')
TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
KUNIT_PARSE_FAILED = {'name': 'kunit.py parse', 'status': 'FAIL'}


def kunit_parse(tree, lines):
    """Run kunit.py parse on LINES; return the list of leaf test results.

    A case or suite that the log never reports (cut off) comes back from
    kunit.py with an empty name; each group's such entries become one leaf
    named GROUP.(cut off) with status 'NO RESULT'."""
    if not any('TAP version' in l for l in lines):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'log')
        out = os.path.join(tmp, 'out.json')
        with open(src, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        subprocess.run([sys.executable,
                        os.path.join(tree, 'tools/testing/kunit/kunit.py'),
                        'parse', '--json=' + out, src],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
        if not os.path.exists(out):
            return [dict(KUNIT_PARSE_FAILED)]
        with open(out) as f:
            doc = json.load(f)
    leaves = []

    def walk(group, prefix):
        cases = group.get('test_cases', [])
        missing = [c for c in cases if not c.get('name')]
        for case in cases:
            if case.get('name'):
                leaves.append({'name': prefix + case['name'],
                               'status': case.get('status', 'ERROR')})
        subs = group.get('sub_groups', [])
        for sub in subs:
            walk(sub, prefix + (sub.get('name') or '(unnamed)') + '.')
        if missing:
            leaves.append({'name': prefix + '(cut off)', 'status': 'NO RESULT',
                           'why': f'{len(missing)} of {len(cases) + len(subs)} '
                                  'results missing'})
    walk(doc, '')
    return leaves


def test_outputs(lines):
    """Diagnostic lines of each userspace test, by test id, in run order."""
    out: dict[str, list[str]] = {}
    cur = None
    for l in lines:
        m = re.match(r'^# selftests: (\S+): ', l)
        if m:
            cur = m.group(1)
            out[cur] = []
        elif re.match(r'^(not )?ok \d+ ', l):
            cur = None
        elif cur and l.startswith('# ') and not l.startswith(HEARTBEAT):
            out[cur].append(l[2:])
    return out


def kernel_messages(raw):
    """The kernel's messages among console lines RAW (time stamp dropped).
    A nested guest's console on ours (guest/nested-hv.sh's "# L2: LINE",
    and its "# nested: ..." lines that quote L2's messages) is its own,
    not this kernel's: L2's time stamp where such a line quotes one
    (L2_STAMP) is dropped, and a message of ours that split the line
    still counts.  guest/nested-hv.sh judges L2's splats itself."""
    msgs = []
    for l in raw:
        l = L2_STAMP.sub(r'\1', l, count=1)
        m = KMSG.search(l)
        if m:
            msgs.append(l[m.end():])
    return msgs


def requested_tests(raw):
    """Test ids on the kernel command line (tlbtests=), None if not seen."""
    for l in raw:
        if 'ommand line:' in l:
            m = re.search(r'\btlbtests=(\S*)', l)
            if m:
                return [t for t in m.group(1).split(',') if t]
    return None


def marker(lines, mark, start=0):
    """Index of the first line from START that starts with MARK, else
    len(LINES).  The console interleaves kernel messages with guest/init's
    output mid-line: a message may follow a marker on its line, or split
    it ("### tlb-series: [ 6.17] msg" then "row X end" on the next line),
    in which case the marker's first line is returned."""
    for i in range(start, len(lines)):
        if lines[i].startswith(mark):
            return i
        m = KMSG.search(lines[i])
        if m and m.start() > 0 and i + 1 < len(lines) and \
                (lines[i][:m.start()] + lines[i + 1]).startswith(mark):
            return i
    return len(lines)


def after(lines, i, mark):
    """Index of the first line after the marker MARK found at I."""
    return i + 1 if i >= len(lines) or lines[i].startswith(mark) else i + 2


def parse(args):
    try:
        with open(args.log, errors='replace') as f:
            raw = [l.rstrip('\n').rstrip('\r') for l in f]
    except OSError as err:
        return {'log': os.path.abspath(args.log), 'error': f'no console log: {err}'}
    # The harness's own trailer: the hang marker with the register dump, or
    # the timeout marker. Everything before it is the console.
    trailer = next((i for i, l in enumerate(raw)
                    if l.startswith((MARK_HANG, MARK_TIMEOUT, MARK_DISK))), len(raw))
    hang = next((l[len(MARK_HANG):] for l in raw[trailer:]
                 if l.startswith(MARK_HANG)), None)
    # Where the boot CPU was (4-boot.sh names its RIP/PC's symbol).
    cpu0 = next((l[len(MARK_CPU):].rstrip() for l in raw[trailer:]
                 if l.startswith(MARK_CPU + 'CPU 0 at ')), None)
    timed_out = next((l[len('### tlb-series: '):] for l in raw[trailer:]
                      if l.startswith(MARK_TIMEOUT)), None)
    disk = next((l[len(MARK_DISK):] for l in raw[trailer:]
                 if l.startswith(MARK_DISK)), None)
    if disk is None:
        disk = next((l.strip() for l in raw if QEMU_ENOSPC.match(l)), None)
    if disk is not None:  # what stopped the console was the disk
        hang = cpu0 = None
    # boot-row.sh's line after a second boot (l1_crash); guest/nested-hv.sh's
    # summary of its L2 boots.
    second = next((l[len(MARK_SECOND):].strip() for l in raw
                   if l.startswith(MARK_SECOND)), None)
    l2_retried = next((m.group(1) for m in map(L2_RETRIED.match, raw)
                       if m and m.group(2) != '0'), None)
    raw = raw[:trailer]
    rig = next((l[len(MARK_RIG):].strip() for l in raw[:1]
                if l.startswith(MARK_RIG)), None)
    rig_tlb = [[int(x) for x in m.groups()] for m in map(RIG_TLB.match, raw) if m]
    rig_invlpgb = [[int(x) for x in m.groups()] for m in map(RIG_INVLPGB.match, raw) if m]
    # Lines of a rig from before the by-PCID counters, which the regex
    # above does not match: --global-asids cannot judge them.
    rig_invlpgb_old = sum(1 for r in raw if r.startswith('rig-invlpgb:')
                          and 'by-pcid' not in r)
    # Mutation-matrix rows (guest/init run_row) follow the boot's own
    # tests, each between its markers: --row judges one of them from its
    # lines alone, otherwise they are left out.
    plain = [TS.sub('', l) for l in raw]
    row_seen = row_done = None
    if args.row:
        b = marker(plain, ROW_BEGIN.format(args.row))
        e = marker(plain, ROW_END.format(args.row), b)
        row_seen, row_done = b < len(raw), e < len(raw)
        raw = raw[after(plain, b, ROW_BEGIN.format(args.row)):e]
    else:
        raw = raw[:marker(plain, ROW_PREFIX)]
    lines = [TS.sub('', l) for l in raw]
    b = marker(lines, MARK_BEGIN)
    e = marker(lines, MARK_END, b)
    bu = after(lines, b, MARK_BEGIN)
    kernel_part, user_part = lines[:b], lines[bu:e]
    # A splat during the userspace tests counts too; their output does not.
    splats = []
    for msg in kernel_messages(raw):
        for kind, p in SPLATS:
            if p.search(msg):
                splats.append((kind + ': ' if kind else '') + msg)
                break
    outputs = test_outputs(user_part)
    kself = kunit_parse(args.tree, user_part) if b < len(lines) else None
    # guest/init's TAP is flat: a result kunit.py could not name is the cut
    # off test's, whose id its "# selftests: ID:" header gives.
    if kself is not None and kself[0:1] != [KUNIT_PARSE_FAILED]:
        kself = [t for t in kself if t['name'] and t['status'] != 'NO RESULT']
        have = {t['name'].split()[0] for t in kself}
        for tid in outputs:
            if tid not in have:
                kself.append({'name': tid, 'status': 'NO RESULT'})
                have.add(tid)
    return {
        'log': os.path.abspath(args.log),
        'kunit': kunit_parse(args.tree, kernel_part),
        'kernel_lines': kernel_part,
        'kselftest': kself,
        'outputs': outputs,
        'requested': requested_tests(raw),
        'splats': splats,
        'finished': row_done if args.row else e < len(lines),
        'row': args.row,
        'row_started': row_seen,
        'timed_out': timed_out,
        'hang': hang,
        'disk_full': disk,
        'cpu0': cpu0,
        'rig': rig,
        # vCPUs, lookups, hits, hits kept across switches
        'rig_tlb': [len(rig_tlb)] + [sum(c[i] for c in rig_tlb) for i in (1, 2, 3)]
        if rig_tlb else None,
        # vCPUs, INVLPGBs, those naming a PCID, the most distinct PCIDs
        # one vCPU named
        'rig_invlpgb': [len(rig_invlpgb), sum(c[1] for c in rig_invlpgb),
                        sum(c[4] for c in rig_invlpgb),
                        max((c[5] for c in rig_invlpgb), default=0)],
        'rig_invlpgb_unparsed': rig_invlpgb_old,
        'messages': kernel_messages(raw) if args.expect_message else [],
        'lines': len(raw),
        'second': second,
        'l2_failed': any(L2_FAILED.match(l) for l in raw),
        'l2_retried': l2_retried,
    }


def l1_crash(res):
    """The first crash of a boot that died of it before any of its tests
    gave a result, when nothing its L2 guest said had failed (nested
    boots: L1 crashed under its L2 guests, a boot boot-row.sh repeats
    once), else None.  A result, a finished boot, a hang, a timeout, a
    full disk, a stall or warning without an oops or panic: None."""
    if res['finished'] or res['hang'] is not None or res['timed_out'] or \
            res.get('disk_full') is not None or res.get('l2_failed'):
        return None
    if any(t['status'] != 'NO RESULT' for t in res['kselftest'] or []):
        return None
    return next((s for s in res['splats'] if CRASH.search(s)), None)


def end_cause(res):
    """Why a log ends before its tests did."""
    if res.get('disk_full') is not None:
        return 'a full disk on the host'
    if res.get('hang') is not None:
        return 'a hang'
    if res.get('timed_out'):
        return 'the boot timeout'
    if any('Kernel panic' in s for s in res.get('splats', [])):
        return 'a kernel panic'
    return 'the end of the console log'


class Verdict:
    def __init__(self, tag):
        self.tag = tag
        self.counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}

    def item(self, status, name, why=''):
        self.counts[status] += 1
        print(f'{status} {self.tag} {name}{" -- " + why if why else ""}',
              flush=True)

    def evidence(self, name, lines, limit=20):
        """Lines of a row's evidence: "evidence TAG NAME: LINE", which the
        counts ignore and results/evidence.md collects."""
        for line in lines[:limit]:
            print(f'evidence {self.tag} {name}: {line[:300]}', flush=True)

    def done(self):
        c = self.counts
        print(f"counts {c['PASS']} {c['FAIL']} {c['SKIP']}", flush=True)


def kunit_failures(lines, case):
    """The failed expectations of KUnit case CASE in LINES: each "CASE:
    ... FAILED at ..." line and the lines that say what was expected, up
    to a blank or result line."""
    out = []
    for i, line in enumerate(lines):
        if case + ': ' in line and 'FAILED' in line:
            out.append(line.strip())
            for more in lines[i + 1:i + 5]:
                if not more.strip() or 'FAILED' in more or \
                        re.match(r'\s*(not )?ok \d+ ', more):
                    break
                out.append('  ' + more.strip())
    return out


def read_known(path):
    known = []
    if path and os.path.exists(path):
        with open(path) as f:
            for l in f:
                if l.strip() and not l.startswith('#'):
                    parts = l.rstrip('\n').split('|', 2)
                    if len(parts) != 3:
                        raise ValueError(f'{path}: not "test-id|tag-glob|reason": {l.strip()}')
                    known.append(tuple(parts))
    return known


def verdict(res, args, v):
    if 'error' in res:
        v.item('FAIL', 'console', res['error'])
        return
    known = read_known(args.known)
    must_fail = list(dict.fromkeys(filter(None, (args.expect_fail or '').split(','))))
    must_pass = list(dict.fromkeys(filter(None, (args.expect_pass or '').split(','))))
    # --expect-pass: on a matrix row (--row), a rig row's check on stock
    # TCG, which must pass with its mutant on; on a boot's own tests
    # (make backport-test), a test that must pass and not skip itself.
    on = ' with its mutant on' if args.row else ''
    rigrow = ' (stock TCG): not a row only the rig can catch' if args.row else ''
    cause = end_cause(res)
    if args.qemu == 'rig' and not res.get('rig'):
        v.item('FAIL', 'qemu', 'must have run on the tagged-TLB rig, but the '
               'log does not say so (no "' + MARK_RIG.strip() + '" line): stock TCG')
    elif args.qemu == 'rig' and res.get('rig_tlb'):
        n, lookups, hits, kept = res['rig_tlb']
        v.item('PASS', 'qemu', f'on the rig {res["rig"]}, its TLB on: {n} vCPUs, '
               f'{lookups} lookups, {hits} hits, {kept} of them kept across switches')
    elif args.qemu == 'rig' and res['finished']:
        # (A boot cut off fails anyway; QEMU may not have exited.)
        v.item('FAIL', 'qemu', f'on the rig {res["rig"]}, but QEMU printed no '
               '"rig-tlb:" counters at its exit: its TLB was off (QEMU_RIG_TLB, '
               'or a rig built without its patches)')
    elif args.qemu == 'tcg' and res.get('rig'):
        v.item('FAIL', 'qemu', 'must have run on stock QEMU TCG, but ran on '
               f'the tagged-TLB rig {res["rig"]}')
    if args.global_asids:
        n, invlpgb, by_pcid, pcids = res.get('rig_invlpgb') or [0, 0, 0, 0]
        if res.get('rig_invlpgb_unparsed') and not n:
            v.item('FAIL', 'global-asids', f'{res["rig_invlpgb_unparsed"]} '
                   '"rig-invlpgb:" lines without a by-pcid count: a rig '
                   'from before rig patch 0004\'s counters, which cannot '
                   'show global ASIDs (rebuild it: scripts/rig.sh)')
        elif by_pcid:
            v.item('PASS', 'global-asids', f'{by_pcid} of {invlpgb} INVLPGBs '
                   f'on {n} vCPUs named a PCID (up to {pcids} PCIDs on one '
                   'vCPU): broadcast_tlb_flush() ran for mms with global ASIDs')
        else:
            v.item('FAIL', 'global-asids', 'no INVLPGB named a PCID '
                   f'({invlpgb} INVLPGBs on {n} vCPUs, per the rig\'s '
                   '"rig-invlpgb:" lines): no global ASID was used')

    seen = set()
    for t in res['kunit'] or []:
        name = 'kunit.' + t['name']
        st = t['status'] if t['status'] in ('PASS', 'SKIP') else 'FAIL'
        why = '' if st == 'PASS' else t['status']
        if t['status'] == 'NO RESULT':
            why = f'no result ({t.get("why", "")}): cut off by {cause}'
        elif t['status'] == 'SKIP' and any(
                fnmatch.fnmatch(name, g) for g in (args.no_skip or '').split(',') if g):
            st, why = 'FAIL', 'skipped, where every case must run (--no-skip)'
        elif (must_fail or must_pass) and args.allow_splat and \
                name not in must_fail + must_pass:
            # A deliberately broken kernel: only the named case carries
            # the verdict; the others may fail too, and their passes say
            # nothing about the series.
            continue
        elif name in must_pass:
            # A rig row's case on stock TCG: it must pass, mutant on.
            seen.add(name)
            if t['status'] == 'PASS':
                why = f'passed{on}'
            else:
                st, why = 'FAIL', (f'{t["status"]}{on}, where it must pass' + rigrow)
        elif name in must_fail:
            # A named KUnit case that must fail on a mutant kernel: its
            # own failed expectation is the evidence.  A crash would cut
            # the suite off (NO RESULT above), a skip shows nothing.
            seen.add(name)
            if t['status'] == 'FAIL':
                st, why = 'PASS', 'caught: the named case failed, as it must'
                v.evidence(name, kunit_failures(res.get('kernel_lines', []),
                                                name.rsplit('.', 1)[-1]), 30)
            else:
                st, why = 'FAIL', f'expected to fail on this kernel but {t["status"]}'
        v.item(st, name, why)
    for t in res['kselftest'] or []:
        name = (t['name'].split() or ['(unnamed)'])[0]
        seen.add(name)
        ok = t['status'] in ('PASS', 'SKIP')
        why = [w for tid, g, w in known
               if tid == name and fnmatch.fnmatch(args.tag, g)]
        if t['status'] == 'NO RESULT':
            # The boot ended under it: whatever the test is expected to do,
            # it did not show it.
            v.item('FAIL', name, f'no result: cut off by {cause}' +
                   ('; it must fail on this kernel' if name in must_fail else ''))
        elif name in must_fail:
            # Caught only by the test's own evidence (--evidence): a
            # crash, a missing binary or a timeout fails a test too, but
            # shows nothing about the decision the mutant breaks.
            out = '\n'.join(res.get('outputs', {}).get(name, []))
            m = re.search(args.evidence, out, re.M) if args.evidence else None
            if ok:
                v.item('FAIL', name, 'expected to fail on this kernel but ' +
                       ('skipped itself' if t['status'] == 'SKIP' else 'passed'))
            elif args.evidence and not m:
                v.item('FAIL', name, f'failed ({t["status"]}), but without '
                       f'its evidence /{args.evidence}/: not caught')
            else:
                # The whole line the evidence is on, not the match alone
                # ("stale=1" of stale=1079), and every other line that
                # matches (each mode's count), on "evidence" lines that
                # the counts ignore and results/mutants.md shows.
                lines = [o.strip() for o in out.split('\n')
                         if args.evidence and re.search(args.evidence, o)]
                v.item('PASS', name, 'caught, as it must be' +
                       (f': "{(lines or [m.group(0)])[0][:200]}"' if m else ''))
                v.evidence(name, lines)
        elif name in must_pass:
            # A rig row's check on stock TCG: with the mutant on it must
            # pass (a skip shows nothing), or stock TCG catches the mutant
            # too and the row is misclassified.
            # Its pass line quotes the last line that has the evidence's
            # literal start ("stale=" of stale=[1-9]: "... stale=0"), or
            # else its last line of output.
            outl = [o for o in res.get('outputs', {}).get(name, [])
                    if not re.match(re.escape(name) + r': rc=|# Totals:', o)]
            lit = re.split(r'[\\.^$*+?()[\]{}|]', args.evidence or '', maxsplit=1)[0]
            last = next((o for o in reversed(outl) if lit and lit in o),
                        outl[-1] if outl else '')
            m = re.search(args.evidence, '\n'.join(outl), re.M) if args.evidence else None
            if t['status'] == 'PASS':
                v.item('PASS', name, f'passed{on}' +
                       (f': "{last[:200]}"' if last else ''))
                # Every line with the evidence's literal start (each
                # mode's "stale=0"), for results/evidence.md.
                v.evidence(name, [o.strip() for o in outl if lit and lit in o])
            elif t['status'] == 'SKIP':
                v.item('FAIL', name, f'skipped itself{on}, where it must pass')
            else:
                v.item('FAIL', name, f'failed ({t["status"]}){on}, where '
                       'it must pass' + rigrow +
                       (f': "{m.group(0)[:80]}"' if m else ''))
        elif why and t['status'] == 'PASS':
            # A stale entry would hide this test's next real failure, and
            # every entry describes a failure that TCG gives every time:
            # a pass means the entry (or the test) must be looked at.
            v.item('FAIL', name, 'known failure passed: the entry in the '
                   'known-failures file is stale (remove or narrow it): ' + why[0])
        elif t['status'] == 'SKIP':
            v.item('SKIP', name, 'test skipped itself' +
                   (' (a known failure: ' + why[0] + ')' if why else ''))
        elif why:
            v.item('SKIP', name, 'known failure: ' + why[0])
        else:
            v.item('PASS' if ok else 'FAIL', name, '' if ok else t['status'])
    # A test that had to fail (or pass) and never ran proves nothing either.
    for name in must_fail + must_pass:
        if name not in seen:
            v.item('FAIL', name, 'no result: never ran (' +
                   (f'the run was cut off by {cause}' if not res['finished']
                    else 'not requested') + '); it must ' +
                   ('fail on this kernel' if name in must_fail else
                    f'pass{on}'))

    for rx in args.expect_message or []:
        # Evidence that the boot went where it was meant to (e.g. through
        # a test-only hold, on the clocksource it was meant to check).
        m = next((mm for mm in (re.search(rx, l) for l in res.get('messages', []))
                  if mm), None)
        if m:
            # The end of the match: what a long line says last (the count
            # of a hold's timeouts) is what it is quoted for.
            v.item('PASS', 'message', f'"{m.string[max(0, m.end() - 100):m.end()]}"')
        else:
            v.item('FAIL', 'message', f'no kernel message matches /{rx}/')
    if args.expect_hang:
        # A kernel broken on purpose must hang, with the boot CPU in the
        # function the broken decision is in: a hang elsewhere, a
        # timeout or a boot that ends proves nothing.
        where = res.get('cpu0') or ''
        if res['hang'] is None:
            v.item('FAIL', 'console', f'expected to hang with CPU 0 in '
                   f'{args.expect_hang}, but ' +
                   ('host disk full: ' + res['disk_full']
                    if res.get('disk_full') is not None else
                    res['timed_out'] if res['timed_out'] else 'it did not hang') +
                   ': not caught')
        elif not where.startswith(f'CPU 0 at {args.expect_hang}+'):
            v.item('FAIL', 'console', f'hung, but {where or "CPU 0 not named (no register dump or System.map)"}'
                   f', not in {args.expect_hang}: not the hang expected')
        else:
            v.item('PASS', 'console', f'hung, as it must: {where}')
        return
    not_run = [t for t in res['requested'] or [] if t not in seen]
    reasons = []
    if res.get('disk_full') is not None:
        reasons.append('host disk full: ' + res['disk_full'])
    elif res['hang'] is not None:
        reasons.append('hang: ' + res['hang'])
    elif res['timed_out']:
        reasons.append(res['timed_out'])
    if res['splats']:
        more = len(res['splats']) - 1
        reasons.append('kernel splat: ' + res['splats'][0][:120] +
                       (f' (and {more} more)' if more else ''))
    if res.get('row') and not res.get('row_started'):
        reasons.append(f'row {res["row"]} never started')
    elif not res['finished']:
        r = 'guest did not finish its tests'
        if not_run:
            r += (f': {len(not_run)} not run ({", ".join(not_run[:5])}' +
                  (', ...' if len(not_run) > 5 else '') + ')')
        reasons.append(r)
    # Said on the console item, passed or not: the verdict is a second
    # boot's (boot-row.sh), or L2 was booted again after a reset or stall
    # in its tests (guest/nested-hv.sh).
    notes = []
    if res.get('second'):
        notes.append('a second boot: ' + res['second'][:200])
    if res.get('l2_retried'):
        notes.append('L2 booted again after a reset or stall in its tests: "' +
                     res['l2_retried'] + '"')
    if not reasons and notes:
        v.item('PASS', 'console', '; '.join(notes))
        return
    reasons += notes
    # A deliberately broken kernel may splat or panic: its tests that must
    # fail carry the verdict. A hang or timeout still fails (its tests
    # never said anything).
    if not reasons:
        v.item('PASS', 'console')
    elif args.allow_splat and res['splats'] and res['hang'] is None \
            and not res['timed_out'] and res.get('disk_full') is None:
        v.item('SKIP', 'console', 'on a deliberately broken kernel: ' +
               '; '.join(reasons))
    else:
        v.item('FAIL', 'console', '; '.join(reasons))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('log')
    ap.add_argument('--tag', default='run')
    ap.add_argument('--known')
    ap.add_argument('--expect-fail')
    ap.add_argument('--expect-pass',
                    help='comma-separated test ids that must pass, not skip '
                    '(with --row: with its mutant on, a rig row of the matrix '
                    'on stock TCG)')
    ap.add_argument('--qemu', choices=('rig', 'tcg'),
                    help='the QEMU the boot must have run on')
    ap.add_argument('--global-asids', action='store_true',
                    help='with --qemu rig: some INVLPGB must have named a PCID '
                    '(an mm with a global ASID was flushed)')
    ap.add_argument('--no-skip',
                    help='comma-separated globs of KUnit cases (kunit.SUITE.CASE) '
                    'that must not skip on this boot')
    ap.add_argument('--evidence',
                    help='a test of --expect-fail is caught only if its '
                    'output matches this regex')
    ap.add_argument('--expect-hang', metavar='FUNC',
                    help='a broken (mutant) kernel that must hang, with CPU 0 '
                    'in FUNC (from the hang\'s register dump)')
    ap.add_argument('--expect-message', metavar='REGEX', action='append',
                    help='some kernel message must match REGEX (repeatable)')
    ap.add_argument('--allow-splat', action='store_true',
                    help='a broken (mutant) kernel: report splats, do not fail')
    ap.add_argument('--row',
                    help='judge only this mutation-matrix row of the log')
    ap.add_argument('--l1-crash', action='store_true',
                    help='no verdict: print "l1-crash: SPLAT" if the boot died '
                    'of an oops or panic before any test gave a result and '
                    'nothing its L2 guest said had failed, else "l1-crash: none"')
    ap.add_argument('--tree', default=os.path.join(
        os.path.dirname(__file__), '..', 'out', 'linux'))
    args = ap.parse_args()
    if args.global_asids and args.qemu != 'rig':
        ap.error('--global-asids needs --qemu rig: only the rig counts '
                 'INVLPGBs')
    if args.l1_crash:
        res = parse(args)
        print('l1-crash: ' + ((l1_crash(res) or 'none') if 'error' not in res
                              else 'none (' + res['error'] + ')'))
        return
    v = Verdict(args.tag)
    try:
        res = parse(args)
        if 'error' not in res:
            suffix = '.' + args.row.replace('/', '_') if args.row else ''
            with open(args.log + suffix + '.json', 'w') as f:
                json.dump(res, f, indent=1)
        verdict(res, args, v)
    except Exception as e:  # a bug of ours must not lose the counts line
        traceback.print_exc()
        v.item('FAIL', 'results', f'5-results.py failed: '
               f'{type(e).__name__}: {e}')
    v.done()


if __name__ == '__main__':
    main()
