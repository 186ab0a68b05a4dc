#!/usr/bin/env python3
"""The series/base ratio of the nested Hyper-V run's rounds, as markdown.

Reads the console log of a boot that ran the test nested.hv_rounds
(guest/tests.list): five rounds, each L2 kernel in turn (base-count, then
series), each running tlb_flush_history -w 4000 in L2 on L1's KVM, whose
remote flushes are KVM's Hyper-V flush hypercalls. For each phase
(history: the mm visited every vCPU and came back to one; none: it never
left that one; busy: the other vCPUs run other processes) it prints each
round's median us per iteration, base and series, the per-round ratio
series/base (rounds paired by index) and history/none within each boot;
then the median of the per-round ratios and their range, "within noise"
when that range holds 1.0, as scripts/5-report.py says it.

    5-nested-rounds.py LOG [--source TEXT]

Exits 1 if a round lacks a phase (the run is incomplete).
"""
import argparse
import re
import statistics
import sys

ROUND = re.compile(r'\bround (\d+) (\S+)\s*$')
PHASE = re.compile(r'tlb_flush_history: phase=(\w+) iters=\d+ median_us=([\d.]+)')
SENDS = re.compile(r'tlb_flush_history: (\w+) sends ([\d.]+) flush targets per op')
PHASES = ('history', 'none', 'busy')
KERNELS = ('base-count', 'series')


def parse(lines):
    """{(round, kernel): {'phase': median_us, 'sends:phase': targets}}."""
    runs: dict = {}
    cur = None
    for line in lines:
        line = line.rstrip('\r\n')
        m = ROUND.search(line)
        if m and 'L2:' not in line:
            cur = (int(m.group(1)), m.group(2))
            runs.setdefault(cur, {})
            continue
        # Another test of L1 (its start or its result) ends the rounds.
        if 'L2:' not in line and re.match(r'(# selftests: |(not )?ok \d+ )', line):
            cur = None
            continue
        if cur is None:
            continue
        m = PHASE.search(line)
        if m:
            runs[cur][m.group(1)] = float(m.group(2))
            continue
        m = SENDS.search(line)
        if m and 'verdict' not in line:
            runs[cur]['sends:' + m.group(1)] = float(m.group(2))
    return runs


def spread(vals):
    return f'{statistics.median(vals):.3f} ({min(vals):.3f}-{max(vals):.3f})'


def noise(vals):
    return ', within noise' if min(vals) <= 1.0 <= max(vals) else ''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('log')
    ap.add_argument('--source', default='',
                    help='where the log came from (commit, date, machine)')
    a = ap.parse_args()
    with open(a.log, errors='replace') as f:
        runs = parse(f)
    rounds = sorted({r for r, _ in runs})
    missing = [f'round {r} {k} {p}' for r in rounds for k in KERNELS
               for p in PHASES if p not in runs.get((r, k), {})]
    out = ['# The nested Hyper-V run: series/base in L2', '']
    if a.source:
        out += [a.source, '']
    out += ['tlb_flush_history -w 4000 in an L2 Linux guest (4 vCPUs) with '
            'Hyper-V enlightenments on the KVM of an L1 x86_64 series kernel, '
            'itself under QEMU TCG: each remote flush of L2 is one of KVM\'s '
            'Hyper-V flush hypercalls. base-count is base with a test-only '
            'count of its hypercalls\' targets. us per iteration (two '
            'mprotect() calls and a write), the median of each boot\'s '
            'samples; rounds interleaved (base-count, then series, in each '
            'round). Ratios: per round, rounds paired by index; the median '
            'of those ratios and their range, "within noise" when the range '
            'holds 1.0.', '',
            '| round | phase | base-count us | series us | series/base | '
            'history/none base / series | targets per op base / series |',
            '|---|---|---|---|---|---|---|']
    ratios: dict = {p: [] for p in PHASES}
    hn: dict = {k: [] for k in KERNELS}
    for r in rounds:
        b, s = runs.get((r, 'base-count'), {}), runs.get((r, 'series'), {})
        for p in PHASES:
            if p not in b or p not in s:
                continue
            ratio = s[p] / b[p]
            ratios[p].append(ratio)
            hnc = ''
            if p == 'history' and 'none' in b and 'none' in s:
                hn['base-count'].append(b['history'] / b['none'])
                hn['series'].append(s['history'] / s['none'])
                hnc = f'{hn["base-count"][-1]:.2f} / {hn["series"][-1]:.2f}'
            tg = ''
            if f'sends:{p}' in b or f'sends:{p}' in s:
                tg = (f'{b.get(f"sends:{p}", float("nan")):.3f} / '
                      f'{s.get(f"sends:{p}", float("nan")):.3f}')
            out.append(f'| {r} | {p} | {b[p]:.1f} | {s[p]:.1f} | '
                       f'{ratio:.3f} | {hnc} | {tg} |')
    out += ['', '| phase | series/base (rounds) | n |', '|---|---|---|']
    for p in PHASES:
        if ratios[p]:
            out.append(f'| {p} | {spread(ratios[p])}{noise(ratios[p])} | '
                       f'{len(ratios[p])} |')
    for k in KERNELS:
        if hn[k]:
            out.append(f'| history/none, {k} | {spread(hn[k])}{noise(hn[k])} | '
                       f'{len(hn[k])} |')
    if missing:
        out += ['', 'Incomplete: ' + ', '.join(missing)]
    print('\n'.join(out))
    return 1 if missing or not rounds else 0


if __name__ == '__main__':
    sys.exit(main())
