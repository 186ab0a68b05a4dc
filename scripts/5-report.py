#!/usr/bin/env python3
"""Step 5b: make results/ from the measurements of one bench run.

    5-report.py MEASUREMENTS.jsonl RESULTS_DIR

Each input line is one measurement: {"metric", "arch", "kernel", "path",
"vcpus", "value", "unit"}. Ratios are series over base for the same metric,
arch, path and vcpus (and any "vs" pairs listed in the line's "ratio_to":
{"name": {"kernel": ..., "path": ...}}). Writes bench.json, bench.md and
bench.png (gnuplot), and prints the markdown table.
"""
import json
import os
import subprocess
import sys


def key(m, **over):
    d = dict(m, **over)
    return (d['metric'], d['arch'], d['kernel'], d['path'], d['vcpus'])


def spread(m, b, name):
    """For measurements taken in rounds, base and series interleaved: the
    ratio of each round's pair, their range, and whether that range holds
    1.0 (the difference is then within the run's noise)."""
    sm, sb = m.get('samples'), b.get('samples')
    if not sm or not sb or len(sm) != len(sb):
        return
    per = [x / y for x, y in zip(sm, sb) if x is not None and y]
    if not per:
        return
    m.setdefault('ratio_rounds', {})[name] = [round(r, 4) for r in per]
    m.setdefault('ratio_range', {})[name] = [round(min(per), 4),
                                             round(max(per), 4)]
    m.setdefault('within_noise', {})[name] = min(per) <= 1.0 <= max(per)


def fmt_ratio(m, k, v):
    rng = m.get('ratio_range', {}).get(k)
    if not rng:
        return f'{k} {v:.3f}'
    noise = ', within noise' if m.get('within_noise', {}).get(k) else ''
    return (f'{k} {v:.3f} (rounds {rng[0]:.3f}-{rng[1]:.3f}, '
            f'n={len(m["ratio_rounds"][k])}{noise})')


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    with open(src) as f:
        ms = [json.loads(l) for l in f if l.strip()]
    idx = {key(m): m for m in ms}
    for m in ms:
        # Kept from an earlier run (make bench with BENCH_SECTIONS): the
        # ratios it computed stay unless recomputed here.
        ratios = dict(m.get('ratios', {}))
        if m['kernel'] != 'base':
            b = idx.get(key(m, kernel='base'))
            if b and b['value']:
                ratios['series/base'] = round(m['value'] / b['value'], 4)
                spread(m, b, 'series/base')
        for name, ref in m.get('ratio_to', {}).items():
            o = idx.get(key(m, **ref))
            if o and o['value']:
                ratios[name] = round(m['value'] / o['value'], 4)
        m['ratios'] = ratios
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'bench.json'), 'w') as f:
        json.dump(ms, f, indent=1)
        f.write('\n')
    rows = ['| metric | arch | path | vCPUs | kernel | value | unit | ratios |',
            '|---|---|---|---|---|---|---|---|']
    for m in ms:
        r = ', '.join(fmt_ratio(m, k, v) for k, v in m['ratios'].items())
        v = m['value']
        if v is None:
            vs = 'n/a'
        else:
            vs = f'{v:.3f}' if isinstance(v, float) and v < 1000 else f'{v:g}'
        rows.append(f"| {m['metric']} | {m['arch']} | {m['path']} | "
                    f"{m['vcpus']} | {m['kernel']} | {vs} | {m['unit']} | {r} |")
    table = '\n'.join(rows) + '\n'
    with open(os.path.join(outdir, 'bench.md'), 'w') as f:
        f.write('# make bench results\n\n' + table)
    sys.stdout.write(table)
    chart(ms, outdir)


def chart(ms, outdir):
    """Bar chart of every series/base ratio (1.0 = no change)."""
    bars = [(f"{m['arch']} {m['metric']} {m['path']} {m['vcpus']}v",
             m['ratios']['series/base']) for m in ms
            if 'series/base' in m['ratios']]
    if not bars:
        return
    dat = os.path.join(outdir, 'bench.dat')
    with open(dat, 'w') as f:
        for i, (label, v) in enumerate(bars):
            f.write(f'{i} {v} "{label}"\n')
    script = f'''
set terminal pngcairo size 1200,{300 + 28 * len(bars)} noenhanced
set output "{os.path.join(outdir, 'bench.png')}"
set title "series / base (lower is faster; 1.0 = unchanged)"
set style fill solid 0.6
set boxwidth 0.6
set yrange [-1:{len(bars)}]
set xrange [0:*]
set ytics ({', '.join(f'"{l}" {i}' for i, (l, _) in enumerate(bars))})
set grid x
set arrow from 1, graph 0 to 1, graph 1 nohead
plot "{dat}" using (0.5*$2):1:(0.5*$2):(0.3) with boxxyerrorbars notitle
'''
    try:
        subprocess.run(['gnuplot'], input=script, text=True, check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f'chart: gnuplot failed: {e}', file=sys.stderr)
    os.unlink(dat)


if __name__ == '__main__':
    main()
