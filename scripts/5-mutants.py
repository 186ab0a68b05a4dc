#!/usr/bin/env python3
"""Render the mutation matrix with what the last make check saw.

    5-mutants.py MATRIX LOGDIR > results/mutants.md

MATRIX is mutants/matrix; LOGDIR holds make check's per-boot verdicts
(TAG.log.verdict, the tag's slashes turned into underscores).  A row is
"caught" only if its check's verdict line says so (5-results.py checked
the evidence); rows whose check is "-" say why nothing here can see them.
"""
import os
import sys


def rows(path):
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith('#'):
                continue
            p = line.rstrip('\n').split('|')
            p += [''] * (8 - len(p))
            yield dict(zip(('row', 'mutant', 'part', 'arch', 'append',
                            'check', 'evidence', 'why'), p[:8]))


def seen(logdir, r):
    if r['check'].startswith('herd7.'):
        # A barrier mutant of the arm64 argument: the weakened litmus test
        # must be allowed by Arm's model, as herd-check.sh checked.
        name = 'litmus.' + r['check'][len('herd7.'):]
        try:
            with open(os.path.join(logdir, 'herd.verdict')) as f:
                for line in f:
                    st, _, rest = line.partition(' ')
                    if rest.startswith(name + ' '):
                        return ('caught' if st == 'PASS' else 'NOT CAUGHT',
                                rest.split(' -- ', 1)[-1].strip())
        except OSError:
            pass
        return ('not run', '')
    tag = f"{r['arch']}/mutant/{r['row']}".replace('/', '_')
    check = r['check']
    if check == 'boot':
        # A boot of its own (guest/boots), judged as a whole.
        tag = f"{r['arch']}/mutants/{r['row']}".replace('/', '_')
        check = 'console'
    path = os.path.join(logdir, tag + '.log.verdict')
    try:
        with open(path) as f:
            for line in f:
                st, _, rest = line.partition(' ')
                if st in ('PASS', 'FAIL') and f" {check} " in f' {rest} ':
                    return ('caught' if st == 'PASS' else 'NOT CAUGHT',
                            rest.split(' -- ', 1)[-1].strip())
    except OSError:
        pass
    return ('not run', '')


def main():
    matrix, logdir = sys.argv[1:3]
    out = ['# Mutation matrix', '',
           'Test-only mutants (`mutants/`: `tlb_mutant=NAME` at boot, or',
           '`/sys/kernel/debug/tlb_mutant` at run time) that each get one',
           'decision of the series wrong, the check that must catch each, and',
           'what the last `make check` saw.  Rows of one arch and command line',
           'share a boot and turn their mutant on in turn.  "Caught" means the',
           'named check failed with its own evidence (the regex in',
           '`mutants/matrix`; for a KUnit row, its named case failed).', '',
           '| mutant | part | breaks | boot | caught by | result |',
           '|---|---|---|---|---|---|']
    for r in rows(matrix):
        if r['check'] == '-':
            res, by = 'not observable here: ' + r['why'], '-'
            breaks = r['mutant']
        else:
            st, detail = seen(logdir, r)
            res = st + (f' ({detail})' if detail else '')
            by = f"`{r['check']}` /{r['evidence']}/"
            breaks = r['why']
        boot = ' '.join(filter(None, (r['arch'], r['append'])))
        out.append(f"| {r['row']} | {r['part']} | {breaks} | {boot} | {by} | {res} |")
    print('\n'.join(out))


if __name__ == '__main__':
    main()
