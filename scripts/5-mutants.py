#!/usr/bin/env python3
"""Render the mutation matrix with what the last make check saw.

    5-mutants.py MATRIX LOGDIR [EVIDENCE] > results/mutants.md

EVIDENCE, if given, is written with every caught row's evidence lines in
full (results/evidence.md).

MATRIX is mutants/matrix; LOGDIR holds make check's per-boot verdicts
(TAG.log.verdict, the tag's slashes turned into underscores).  A row is
"caught" only if its check's verdict line says so (5-results.py checked
the evidence); rows whose check is "-" say why nothing here can see them.
A row whose qemu is "rig" is one only the tagged-TLB rig can catch: it
reads "passes on stock TCG (evidence: ...), caught on the rig (...)" when
its check passed with its mutant on under stock TCG (tag ARCH/mutant/ROW)
and caught it on the rig (tag ARCH/rig/mutant/ROW).
"""
import os
import sys


def rows(path):
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith('#'):
                continue
            p = line.rstrip('\n').split('|')
            p += [''] * (9 - len(p))
            r = dict(zip(('row', 'mutant', 'part', 'arch', 'append',
                          'check', 'evidence', 'why', 'qemu'), p[:9]))
            r['qemu'] = r['qemu'] or 'tcg'
            yield r


def seen(logdir, r, qemu='tcg'):
    if r['check'].startswith('barrier.'):
        # A compile-time barrier mutant of the arm64 ordering argument:
        # barrier-stage.py compiled it and barrier-check.py must have failed
        # the barrier the row names ("PASS mutant.ROW barrier.NAME -- caught:
        # FAIL barrier.NAME -- ...").
        name = f"mutant.{r['row']} {r['check']}"
        try:
            with open(os.path.join(logdir, 'barrier.verdict')) as f:
                for line in f:
                    st, _, rest = line.partition(' ')
                    if rest.startswith(name + ' '):
                        return ('caught' if st == 'PASS' else 'NOT CAUGHT',
                                rest.split(' -- ', 1)[-1].strip())
        except OSError:
            pass
        return ('not run', '')
    rig = 'rig/' if qemu == 'rig' else ''
    tag = f"{r['arch']}/{rig}mutant/{r['row']}".replace('/', '_')
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


def verdict_files(logdir, part=''):
    """(file name, lines) of each TAG.log.verdict in LOGDIR whose name has
    PART, by name."""
    try:
        names = sorted(os.listdir(logdir))
    except OSError:
        names = []
    for n in names:
        if part in n and n.endswith('.log.verdict'):
            with open(os.path.join(logdir, n)) as f:
                yield n, [line.rstrip('\n') for line in f]


def evidence(logdir):
    """Every row's evidence lines (5-results.py prints each output line
    that matched the row's evidence as "evidence TAG CHECK: LINE"), by
    verdict file, for results/evidence.md."""
    out = ['# Evidence of the last make check', '',
           'For each mutation-matrix row that was caught, every line of its',
           'check\'s output that matched the row\'s evidence regex',
           '(`mutants/matrix`), in full: the stale-read count of each mode,',
           'the selftest\'s assert message.  For a rig row in its stock TCG',
           'boot (tag ARCH/mutant/ROW, where it must pass), the lines with',
           'the regex\'s literal start ("stale=0").  For a KUnit row, its',
           'named case\'s failed expectations ("EXPECTATION FAILED at ...")',
           'and what each expected.', '']
    for _, lines in verdict_files(logdir):
        lines = [line for line in lines if line.startswith('evidence ')]
        if not lines:
            continue
        tag = lines[0].split(' ', 2)[1]
        out += [f'## {tag}', '', '```'] + \
            [line.split(' ', 2)[2] for line in lines] + ['```', '']
    return out


def main():
    matrix, logdir = sys.argv[1:3]
    if len(sys.argv) > 3:
        with open(sys.argv[3], 'w') as f:
            f.write('\n'.join(evidence(logdir)) + '\n')
    out = ['# Mutation matrix', '',
           'Test-only mutants (`mutants/`: `tlb_mutant=NAME` at boot, or',
           '`/sys/kernel/debug/tlb_mutant` at run time) that each get one',
           'decision of the series wrong, the check that must catch each, and',
           'what the last `make check` saw.  Rows of one arch and command line',
           'share a boot and turn their mutant on in turn.  "Caught" means the',
           'named check failed with its own evidence (the regex in',
           '`mutants/matrix`; for a KUnit row, its named case failed).',
           'A row marked "rig" is one that only the tagged-TLB rig (a test-only',
           'QEMU whose TLB keeps translations per PCID, SVM ASID and arm64 ASID)',
           'can catch: its check must pass on stock TCG with the mutant on, and',
           'catch the mutant on the rig.  A barrier row\'s mutant is compiled',
           'in (`#ifdef TLB_MUTANT_...`, never booted) and caught when the',
           'check of the disassembly (`scripts/barrier-check.py`) fails the',
           'barrier the row names; the litmus tests behind each barrier are',
           'herd7\'s verdicts, not rows.', '',
           '| mutant | part | breaks | boot | caught by | result |',
           '|---|---|---|---|---|---|']
    for r in rows(matrix):
        if r['check'] == '-':
            # The row's text says what the mutant breaks and why no
            # check here can see it.
            res, by = 'not observable here (its text says why)', '-'
            breaks = r['why']
        elif r['qemu'] == 'rig':
            # On stock TCG, a PASS line (seen()'s "caught") is the check
            # passing with its mutant on, as it must there.
            st, detail = seen(logdir, r)
            stock = {'caught': 'passes on stock TCG (evidence: '
                     f'`{r["check"]}` {detail or "passed"})',
                     'NOT CAUGHT': 'DOES NOT PASS on stock TCG, so not a '
                     f'rig-only row ({detail})'}.get(st, 'not run on stock TCG')
            st, detail = seen(logdir, r, 'rig')
            res = stock + ', ' + ({'caught': 'caught on the rig',
                                   'NOT CAUGHT': 'NOT CAUGHT on the rig'}.get(
                                       st, 'not run on the rig')) + \
                (f' ({detail})' if detail else '')
            by = f"`{r['check']}` /{r['evidence']}/ on the rig"
            breaks = r['why']
        else:
            st, detail = seen(logdir, r)
            res = st + (f' ({detail})' if detail else '')
            by = f"`{r['check']}` /{r['evidence']}/"
            breaks = r['why']
        boot = ' '.join(filter(None, (r['arch'], r['append'])))
        boot += ', rig and stock TCG' if r['qemu'] == 'rig' else ''
        if r['check'].startswith('barrier.'):
            boot = f"{r['arch']}, compiled with -DTLB_MUTANT_..., no boot"
            by = f"`{r['check']}` of scripts/barrier-check.py on the disassembly"
        out.append(f"| {r['row']} | {r['part']} | {breaks} | {boot} | {by} | {res} |")
    out += controls(logdir)
    print('\n'.join(out))


def controls(logdir):
    """The controls: each check of a mutants boot's rows, run in that boot
    with every mutant off before any row (guest/init run_control), tag
    BOOT/control/CHECK; each must pass."""
    found = []
    for _, lines in verdict_files(logdir, '_control_'):
        tag, p, f, why = None, 0, 0, ''
        for line in lines:
            st, _, rest = line.partition(' ')
            if st not in ('PASS', 'FAIL'):
                continue
            tag = tag or rest.split(' ', 1)[0]
            if st == 'PASS':
                p += 1
            else:
                f += 1
                why = why or rest.strip()
        if tag:
            boot, _, check = tag.partition('/control/')
            res = f'passed ({p} verdicts)' if not f else f'FAILED: {why}'
            found.append(f'| {boot} | `{check}` | {res} |')
    if not found:
        return ['', 'Controls: none ran.']
    return ['', '## Controls', '',
            'Each check of a mutants boot\'s rows, run in that boot with every',
            'mutant off before any row ran (a KUnit row\'s whole suite): each',
            'must pass, or a row\'s failure could be the check\'s or the',
            'kernel\'s and not its mutant\'s.', '',
            '| boot | check | result |', '|---|---|---|'] + found


if __name__ == '__main__':
    main()
