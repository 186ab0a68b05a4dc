#!/usr/bin/env python3
"""Check that every flush decision of the series has a mutation-matrix row.

    5-decisions.py DECISIONS MATRIX                 # the check
    5-decisions.py DECISIONS MATRIX --md LOGDIR     # results/decisions.md

DECISIONS is mutants/decisions (patch|part|decision|rows), MATRIX is
mutants/matrix.  The check prints one FAIL line per decision that names no
row, per row name that matches no matrix row, and per matrix row that no
decision names, then a PASS line if there was none, and a "counts P F S"
line, like 5-results.py; its status is 1 on any FAIL.  With --md, it
prints the decisions with what the last make check saw of each row
(LOGDIR holds its verdicts, as for 5-mutants.py).
"""
import argparse
import importlib.util
import os
import sys


def decisions(path):
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            p = line.split('|')
            if len(p) != 4:
                yield n, None, f'line {n}: {len(p)} fields, not 4: {line[:60]}'
                continue
            yield n, dict(zip(('patch', 'part', 'decision', 'rows'), p)), None


def names(spec):
    return [r.strip() for r in spec.split(',') if r.strip()]


def expand(name, rows):
    if name.endswith('*'):
        return [r for r in rows if r.startswith(name[:-1])]
    return [name] if name in rows else []


def check(dpath, rows):
    fails, used, nd = [], set(), 0
    for n, d, err in decisions(dpath):
        if err:
            fails.append(err)
            continue
        nd += 1
        what = f"patch {d['patch']} ({d['part']}): {d['decision'][:70]}"
        if not names(d['rows']):
            fails.append(f'{what}: no matrix row')
        for name in names(d['rows']):
            got = expand(name, rows)
            if not got:
                fails.append(f'{what}: row {name} is not in mutants/matrix')
            used.update(got)
    for r in rows:
        if r not in used:
            fails.append(f'row {r} of mutants/matrix belongs to no decision '
                         '(mutants/decisions)')
    return nd, fails


def summary(dpath, rows):
    """One line per part: its decisions and how their rows are checked."""
    parts: dict[str, list] = {}    # part: [decisions, row names]
    for _, d, err in decisions(dpath):
        if err:
            continue
        parts.setdefault(d['part'], [0, set()])
        parts[d['part']][0] += 1
        for name in names(d['rows']):
            parts[d['part']][1].update(expand(name, rows))
    out = []
    for part, (nd, rs) in parts.items():
        kinds: dict[str, int] = {}
        for r in rs:
            c, q = rows[r]['check'], rows[r]['qemu']
            k = ('not observable here' if c == '-' else
                 'a barrier check of the compiled code' if c.startswith('barrier.') else
                 'a boot that must hang' if c == 'boot' else
                 'KUnit' if c.startswith('kunit.') else
                 'the tagged-TLB rig only' if q == 'rig' else
                 'a selftest on stock TCG')
            kinds[k] = kinds.get(k, 0) + 1
        how = ', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))
        out.append(f"{part}: {nd} decision{'s' * (nd != 1)}, "
                   f"{len(rs)} row{'s' * (len(rs) != 1)} ({how})")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('decisions')
    ap.add_argument('matrix')
    ap.add_argument('--md', metavar='LOGDIR')
    ap.add_argument('--summary', action='store_true',
                    help='one line per part: decisions and rows, by kind')
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        'mutants', os.path.join(here, '5-mutants.py'))
    assert spec is not None and spec.loader is not None
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    mrows = list(m.rows(args.matrix))
    rows = {r['row']: r for r in mrows}
    nd, fails = check(args.decisions, rows)
    if args.summary:
        print('\n'.join(summary(args.decisions, rows)))
        return 0
    if args.md:
        out = ['# Flush decisions and their mutation-matrix rows', '',
               'Every flush decision of the series (`mutants/decisions`), the',
               '`mutants/matrix` rows whose mutant gets it wrong, and what the',
               'last `make check` saw of each row (`results/mutants.md` has',
               'the evidence).  A row with check "-" says why nothing here can',
               'observe it; a rig row is caught only on the tagged-TLB rig.', '',
               ] + [f'- {line}' for line in summary(args.decisions, rows)] + [
               '', '| patch | part | decision | rows |', '|---|---|---|---|']
        for _, d, err in decisions(args.decisions):
            if err:
                continue
            cells = []
            for name in names(d['rows']):
                for r in expand(name, rows):
                    row = rows[r]
                    if row['check'] == '-':
                        st = 'not observable here'
                    else:
                        st, _ = m.seen(args.md, row, row['qemu'])
                        st += ' on the rig' if row['qemu'] == 'rig' else ''
                    cells.append(f'{r} ({st})')
            out.append(f"| {d['patch']} | {d['part']} | {d['decision']} | "
                       f"{'; '.join(cells) or 'NONE'} |")
        if fails:
            out += ['', 'Problems:', ''] + [f'- {f}' for f in fails]
        print('\n'.join(out))
        return 0
    for f in fails:
        print(f'FAIL harness decisions -- {f}')
    if not fails:
        print(f'PASS harness decisions -- {nd} decisions, each with a row; '
              f'every one of the {len(rows)} matrix rows belongs to one')
    print(f'counts {0 if fails else 1} {len(fails)} 0')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
