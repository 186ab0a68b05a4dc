#!/usr/bin/env python3
"""Step 5: turn one guest console log into results and a verdict.

    5-results.py LOG [--tag TAG] [--known FILE] [--expect-fail ID,...]

Writes LOG.json (everything parsed) and prints one line per counted item,
PASS/FAIL/SKIP, then a last line "counts P F S". TAG names the run (for
example x86_64/series/npt0) and selects entries of the known-failures file
(lines "test-id|tag-glob|reason"): such a test is expected to fail and is
counted as skipped with its reason. --expect-fail lists tests that must
fail (a mutant kernel must be caught): their failure is a pass.
--allow-splat turns kernel splats into a skipped item (for mutant kernels).

Pass/fail of KUnit suites and of the userspace kselftests is read with the
tree's own tools/testing/kunit/kunit.py parse (the log is split at the
marker guest/init prints). The console is also scanned for kernel splats:
any WARNING:, BUG:, Oops, lockdep or KASAN report makes the run fail.
"""
import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile

MARK_BEGIN = '### tlb-series: userspace tests begin'
MARK_END = '### tlb-series: userspace tests end'
SPLATS = [
    re.compile(r'WARNING:'),
    re.compile(r'\bBUG:'),
    re.compile(r'\bOops\b'),
    re.compile(r'Kernel panic'),
    # lockdep's reports also start with WARNING:, listed here all the same
    re.compile(r'possible (recursive|circular) locking|inconsistent lock state|'
               r'suspicious RCU usage|lockdep is turned off'),
    re.compile(r'KASAN:'),
    re.compile(r'Unable to handle kernel'),
    re.compile(r'general protection fault'),
]
TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')


def kunit_parse(tree, lines):
    """Run kunit.py parse on LINES; return the list of leaf test results."""
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
            return [{'name': 'kunit.py parse', 'status': 'FAIL'}]
        with open(out) as f:
            doc = json.load(f)
    leaves = []

    def walk(group, prefix):
        for case in group.get('test_cases', []):
            leaves.append({'name': prefix + case['name'],
                           'status': case['status']})
        for sub in group.get('sub_groups', []):
            walk(sub, prefix + sub['name'] + '.')
    walk(doc, '')
    return leaves


def test_outputs(lines):
    """Diagnostic lines of each userspace test, by test id."""
    out, cur = {}, None
    for l in lines:
        m = re.match(r'^# selftests: (\S+): ', l)
        if m:
            cur = m.group(1)
            out[cur] = []
        elif re.match(r'^(not )?ok \d+ ', l):
            cur = None
        elif cur and l.startswith('# '):
            out[cur].append(l[2:])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('log')
    ap.add_argument('--tag', default='run')
    ap.add_argument('--known')
    ap.add_argument('--expect-fail')
    ap.add_argument('--allow-splat', action='store_true',
                    help='a broken (mutant) kernel: report splats, do not fail')
    ap.add_argument('--tree', default=os.path.join(
        os.path.dirname(__file__), '..', 'out', 'linux'))
    args = ap.parse_args()
    with open(args.log, errors='replace') as f:
        raw = [l.rstrip('\n').rstrip('\r') for l in f]
    lines = [TS.sub('', l) for l in raw]
    try:
        b = lines.index(MARK_BEGIN)
    except ValueError:
        b = len(lines)
    e = lines.index(MARK_END) if MARK_END in lines else len(lines)
    kernel_part, user_part = lines[:b], lines[b + 1:e]
    # A splat during the userspace tests counts too; init's own lines do not.
    splats = [l for l in lines if any(p.search(l) for p in SPLATS)]
    res = {
        'log': os.path.abspath(args.log),
        'kunit': kunit_parse(args.tree, kernel_part),
        'kselftest': kunit_parse(args.tree, user_part) if b < len(lines) else None,
        'outputs': test_outputs(user_part),
        'splats': splats,
        'finished': MARK_END in lines,
        'timed_out': any('boot timed out' in l for l in lines),
    }
    with open(args.log + '.json', 'w') as f:
        json.dump(res, f, indent=1)
    verdict(res, args)


def verdict(res, args):
    known = []
    if args.known and os.path.exists(args.known):
        with open(args.known) as f:
            for l in f:
                if l.strip() and not l.startswith('#'):
                    tid, glob, why = l.rstrip('\n').split('|', 2)
                    known.append((tid, glob, why))
    must_fail = set(filter(None, (args.expect_fail or '').split(',')))
    counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}

    def item(status, name, why=''):
        counts[status] += 1
        print(f'{status} {args.tag} {name}{" -- " + why if why else ""}')

    for t in res['kunit'] or []:
        st = t['status'] if t['status'] in ('PASS', 'SKIP') else 'FAIL'
        item(st, 'kunit.' + t['name'], '' if st == 'PASS' else t['status'])
    for t in res['kselftest'] or []:
        name = t['name'].split()[0]
        ok = t['status'] in ('PASS', 'SKIP')
        why = [w for tid, g, w in known
               if tid == name and fnmatch.fnmatch(args.tag, g)]
        if name in must_fail:
            item('PASS' if not ok else 'FAIL', name,
                 'caught, as it must be' if not ok else
                 'expected to fail on this kernel but passed')
        elif why:
            item('SKIP', name, ('known failure: ' if not ok else
                                'known failure passed: ') + why[0])
        elif t['status'] == 'SKIP':
            item('SKIP', name, 'test skipped itself')
        else:
            item('PASS' if ok else 'FAIL', name, '' if ok else t['status'])
    if res['splats'] and args.allow_splat:
        item('SKIP', 'console', 'splat on a deliberately broken kernel: ' +
             res['splats'][0][:100])
    elif res['splats']:
        item('FAIL', 'console', 'kernel splat: ' + res['splats'][0][:120])
    elif not res['finished']:
        item('FAIL', 'console', 'guest did not finish its tests' +
             (' (timeout)' if res['timed_out'] else ''))
    else:
        item('PASS', 'console')
    print(f"counts {counts['PASS']} {counts['FAIL']} {counts['SKIP']}")


if __name__ == '__main__':
    main()
