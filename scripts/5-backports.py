#!/usr/bin/env python3
"""Write results/backports.md from the last make backport-test.

    5-backports.py NAME...

For each series NAME of backports/series that the run booted, its rows
(out/logs/backport-NAME/rows, written by scripts/backport.sh test) with
the verdicts of each boot (TAG.log.verdict) and the last line of each
test's output (TAG.log.json, written by 5-results.py). The sections of
series not booted this time are kept from the file as it was, so that
one series can be run alone. The environment gives OUT and TOP.
"""
import datetime
import json
import os
import re
import subprocess
import sys

TOP = os.environ.get('TOP', os.path.join(os.path.dirname(__file__), '..'))
OUT = os.environ.get('OUT', os.path.join(TOP, 'out'))
MD = os.path.join(TOP, 'results', 'backports.md')


def series():
    """backports/series: name -> (conf, what)."""
    out = {}
    with open(os.path.join(TOP, 'backports', 'series')) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            name, conf, what = line.split('|', 2)
            out[name] = (conf, what)
    return out


def conf_fields(conf):
    vals = {}
    with open(os.path.join(TOP, conf)) as f:
        for line in f:
            m = re.match(r'(BASE_[A-Z0-9_]+)=(.*)', line.strip())
            if m:
                vals[m.group(1)] = m.group(2).strip('"\'')
    return vals


def cell(s):
    return s.replace('|', '\\|')


def last_output(outputs, name):
    lines = [o for o in outputs.get(name, [])
             if o.strip() and not re.match(re.escape(name) + r': rc=|# Totals:', o)]
    return lines[-1].strip()[:160] if lines else ''


def section(name, conf, what):
    logs = os.path.join(OUT, 'logs', 'backport-' + name)
    base = conf_fields(conf)
    out = [f'## {name}', '',
           f'{what}. Base: `{base.get("BASE_PKG", "?")}` '
           f'{base.get("BASE_VERSION", "?")} (`{conf}`); the series: '
           f'`backports/{name}/`.', '',
           '| row | kernel | expects | verdict | test: last line of its output |',
           '|---|---|---|---|---|']
    fails = 0
    with open(os.path.join(logs, 'rows')) as f:
        rows = [r.rstrip('\n').split('|') for r in f if r.strip()]
    for r in rows:
        tag, kernel, vopts = r[0], r[2], r[6]
        log = os.path.join(logs, tag.replace('/', '_') + '.log')
        expects = 'fail, with the bug\'s evidence' if '--expect-fail' in vopts \
            else 'hang in ' + vopts.split('--expect-hang', 1)[1].split()[0] \
            if '--expect-hang' in vopts else 'pass'
        try:
            with open(log + '.verdict') as f:
                verdict = f.read().splitlines()
        except OSError:
            verdict = []
        counts = next((v.split()[1:] for v in verdict if v.startswith('counts ')),
                      ['0', '1', '0'])
        fails += int(counts[1])
        summary = f'{counts[0]} passed, {counts[1]} failed, {counts[2]} skipped'
        try:
            with open(log + '.json') as f:
                outputs = json.load(f).get('outputs', {})
        except (OSError, ValueError):
            outputs = {}
        tests = [t for t in outputs if not t.startswith('kunit.')]
        detail = '; '.join(f'`{t}`: {last_output(outputs, t)}' for t in tests)
        if not tests:
            detail = '; '.join(v for v in verdict if not v.startswith(('counts ', 'evidence ')))
        out.append(f'| {cell(tag)} | {cell(kernel)} | {cell(expects)} | '
                   f'{cell(summary)} | {cell(detail)} |')
    out += ['', 'Every verdict line of these boots but the counts:', '']
    for r in rows:
        log = os.path.join(logs, r[0].replace('/', '_') + '.log.verdict')
        try:
            with open(log) as f:
                out += ['    ' + v for v in f.read().splitlines()
                        if not v.startswith('counts ')]
        except OSError:
            out.append(f'    (no verdict: {r[0]})')
    return out, fails


def kept_sections():
    """The sections of the file as it was: name -> lines."""
    kept: dict[str, list[str]] = {}
    cur = None
    try:
        with open(MD) as f:
            for line in f.read().splitlines():
                m = re.match(r'## (\S+)$', line)
                if m:
                    cur = m.group(1)
                    kept[cur] = []
                if cur:
                    kept[cur].append(line)
    except OSError:
        pass
    return kept


def main():
    names = sys.argv[1:]
    spec = series()
    kept = kept_sections()
    head = subprocess.run(['git', '-C', TOP, 'rev-parse', '--short=12', 'HEAD'],
                          capture_output=True, text=True).stdout.strip()
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%MZ')
    out = ['# make backport-test', '',
           'The stable backports of `backports/`, each on its own pinned Debian '
           'base, with each fix\'s reproducer before and after: the rows of view '
           '`backport:NAME` of `guest/views` (which says what each row shows), '
           'built and booted as make check boots its rows and judged the same '
           'way (`scripts/backport.sh test`). A row of a base kernel passes when '
           'its test fails with the bug\'s own evidence (or hangs where the '
           'bug hangs); a row of the backports when every test passes. The tests '
           'are the series\' build (its static kselftests and KVM selftests).', '']
    fails = 0
    for name in spec:
        if name in names:
            lines, f = section(name, *spec[name])
            fails += f
            out += lines[:2] + [f'Run {stamp}, harness {head}; logs: '
                                f'`out/logs/backport-{name}/`.', ''] + lines[2:] + ['']
        elif name in kept:
            out += kept[name] + ([''] if kept[name][-1] else [])
        else:
            out += [f'## {name}', '', 'Not run yet.', '']
    with open(MD, 'w') as f:
        f.write('\n'.join(out).rstrip('\n') + '\n')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
