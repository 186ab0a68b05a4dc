#!/usr/bin/env python3
"""Step 5b: make results/ from the measurements of one bench run.

    5-report.py MEASUREMENTS.jsonl RESULTS_DIR

Each input line is one measurement: {"metric", "arch", "kernel", "path",
"vcpus", "value", "unit"}. Ratios are series over base for the same metric,
arch, path and vcpus (and any "vs" pairs listed in the line's "ratio_to":
{"name": {"kernel": ..., "path": ..., "vcpus": ...}}). A measurement taken
in rounds ("samples", one per round) shows its median with the rounds'
range; a ratio between two such measurements with as many rounds also
shows the range of the per-round ratios. Writes bench.json, bench.md and
bench.png (gnuplot: the ratios only, chart()), and prints the markdown
table, then the vCPU scaling table of the hvscale section.

    5-report.py --chart BENCH.json RESULTS_DIR

makes bench.png again from a bench.json, without a bench run.
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


def fmt_num(v):
    return f'{v:.3f}' if v < 1000 else f'{v:.0f}'


def sample_range(m):
    """[min, max] of a measurement's rounds, if it has more than one."""
    vals = [v for v in m.get('samples') or [] if v is not None]
    return [min(vals), max(vals)] if vals and min(vals) < max(vals) else None


def with_range(m):
    if not m or m['value'] is None:
        return 'n/a'
    rng = [fmt_num(v) for v in sample_range(m) or []]
    return fmt_num(m['value']) + (f' ({rng[0]}-{rng[1]})'
                                  if rng and rng[0] != rng[1] else '')


def same_boot(a, b, digits=2):
    """a's median over b's, with the range of the per-round ratios: for
    two phases of one boot, what the host's load in that boot cancels."""
    if not a or not b or not b['value'] or a['value'] is None:
        return 'n/a'
    per = [x / y for x, y in zip(a.get('samples') or [], b.get('samples') or [])
           if x is not None and y]
    rng = (f' ({min(per):.{digits}f}-{max(per):.{digits}f})'
           if len(per) > 1 else '')
    return f"{a['value'] / b['value']:.{digits}f}{rng}"


def ratio_cell(m, name):
    v = (m or {}).get('ratios', {}).get(name)
    if v is None:
        return ''
    rng = m.get('ratio_range', {}).get(name)
    if not rng:
        return f'{v:.3f}'
    noise = ', within noise' if m['within_noise'][name] else ''
    return f'{v:.3f} ({rng[0]:.3f}-{rng[1]:.3f}{noise})'


def scaling(ms):
    """The hvscale section as one table: per vCPU count, each kernel's
    median time per iteration (the rounds' range), series/base, and each
    kernel's growth against the smallest vCPU count, as ratios of medians
    with the range of the per-round ratios (rounds paired by index)."""
    sel = [m for m in ms if m.get('section') == 'hvscale']
    if not sel:
        return ''

    def get(metric, kernel, v):
        for m in sel:
            if (m['metric'], m['kernel'], m['vcpus']) == (metric, kernel, v):
                return m
        return None
    counts = sorted({m['vcpus'] for m in sel})
    out = ['', '## Scaling with the vCPUs an mm has visited (hvscale)', '',
           'The emulated Hyper-V flush hypercall (hv_emul_flush) under QEMU '
           'TCG, not Hyper-V. tlb_flush_history: in the history phase the mm '
           'has run on every vCPU, then loops on one; in the none phase it '
           'never left that one. us per iteration: the median of the rounds '
           '(their range); ratios: of those medians (the range of the '
           'per-round ratios, rounds paired by index; "within noise" when '
           'that range holds 1.0). history/none: the two phases of the same '
           'boots, which cancels most of the host\'s load. floor/base: '
           'base\'s none phase over its history phase, the same boots: the '
           'series/base a kernel would get that sends no flush at all in the '
           'history phase (the lowest any filter can reach here).', '',
           '| vCPUs | phase | base us | series us | series/base | '
           f'base growth vs {counts[0]} | series growth vs {counts[0]} | '
           'targets per flush, base / series | history/none, base / series | '
           'floor/base |',
           '|---|---|---|---|---|---|---|---|---|---|']
    for v in counts:
        g = f'{v}/{counts[0]}'
        for ph in ('history', 'none'):
            b = get(f'hvscale_iter_median_{ph}', 'base', v)
            s = get(f'hvscale_iter_median_{ph}', 'series', v)
            if not b and not s:
                continue
            tg = hn = fb = ''
            if ph == 'history':
                fb = same_boot(get('hvscale_iter_median_none', 'base', v),
                               get('hvscale_iter_median_history', 'base', v),
                               digits=3)
                tb = get('hvscale_targets_per_flush_history', 'base', v)
                ts = get('hvscale_targets_per_flush_history', 'series', v)
                tg = f'{with_range(tb)} / {with_range(ts)}'
                hn = ' / '.join(same_boot(get('hvscale_iter_median_history', k, v),
                                          get('hvscale_iter_median_none', k, v))
                                for k in ('base', 'series'))
            out.append(f'| {v} | {ph} | {with_range(b)} | {with_range(s)} | '
                       f"{ratio_cell(s, 'series/base')} | {ratio_cell(b, g)} | "
                       f'{ratio_cell(s, g)} | {tg} | {hn} | {fb} |')
    return '\n'.join(out) + '\n'


def main():
    if sys.argv[1] == '--chart':
        # bench.png again from a bench.json (its ratios), no bench run
        with open(sys.argv[2]) as f:
            chart(json.load(f), sys.argv[3])
        return
    src, outdir = sys.argv[1], sys.argv[2]
    with open(src) as f:
        ms = [json.loads(l) for l in f if l.strip()]
    idx = {key(m): m for m in ms}
    for m in ms:
        # Kept from an earlier run (make bench with BENCH_SECTIONS): the
        # ratios it computed stay unless recomputed here.
        ratios = dict(m.get('ratios', {}))
        if m['kernel'] != 'base':
            # series/base, floor/base, counting/base: named by the kernel
            name = f"{m['kernel']}/base"
            b = idx.get(key(m, kernel='base'))
            if b and b['value'] and m['value'] is not None:
                ratios[name] = round(m['value'] / b['value'], 4)
                spread(m, b, name)
        for name, ref in m.get('ratio_to', {}).items():
            o = idx.get(key(m, **ref))
            if o and o['value'] and m['value'] is not None:
                ratios[name] = round(m['value'] / o['value'], 4)
                spread(m, o, name)
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
            rng = [fmt_num(x) for x in sample_range(m) or []]
            if rng and rng[0] != rng[1]:
                vs += f' ({rng[0]}-{rng[1]})'
        rows.append(f"| {m['metric']} | {m['arch']} | {m['path']} | "
                    f"{m['vcpus']} | {m['kernel']} | {vs} | {m['unit']} | {r} |")
    table = '\n'.join(rows) + '\n'
    scale = scaling(ms)
    with open(os.path.join(outdir, 'bench.md'), 'w') as f:
        f.write('# make bench results\n\n' + table + scale)
    sys.stdout.write(table + scale)
    chart(ms, outdir)


def chart(ms, outdir):
    """bench.png: every ratio of the run (series/base, floor/base,
    history/none, 16/4, ...; 1.0 = unchanged) as a point with the range of
    its per-round ratios as an error bar, on a log axis; no raw values. A
    ratio of 0 (a count the series brings to 0) has no place on a log
    axis: left out, and named under the title."""
    pts, zero = [], []
    for m in ms:
        for name, v in (m.get('ratios') or {}).items():
            # the kernel, unless the ratio's name starts with it
            who = name if name.startswith(m['kernel'] + '/') else f"{m['kernel']} {name}"
            label = f"{m['arch']} {m['metric']} {m['path']} {m['vcpus']}v {who}"
            if v is None or v <= 0:
                zero.append(label)
                continue
            lo, hi = (m.get('ratio_range') or {}).get(name) or [v, v]
            pts.append((label, v, lo if lo > 0 else v, hi))
    if not pts:
        return
    dat = os.path.join(outdir, 'bench.dat')
    with open(dat, 'w') as f:
        for i, (_, v, lo, hi) in enumerate(pts):
            f.write(f'{i} {v} {lo} {hi}\n')
    note = ''.join(f'\\n{z}: 0, left out' for z in zero)
    script = f'''
set terminal pngcairo size 1200,{300 + 20 * (len(pts) + len(zero))} noenhanced
set output "{os.path.join(outdir, 'bench.png')}"
set title "ratios of medians (1.0 = unchanged); bars: the range of the per-round ratios{note}" font ",10"
set logscale x 10
set format x "%g"
set yrange [-1:{len(pts)}]
set ytics ({', '.join(f'"{l}" {i}' for i, (l, _, _, _) in enumerate(pts))}) font ",9"
set grid x
set arrow from 1, graph 0 to 1, graph 1 nohead
plot "{dat}" using 2:1:3:4 with xerrorbars pointtype 7 notitle
'''
    try:
        subprocess.run(['gnuplot'], input=script, text=True, check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f'chart: gnuplot failed: {e}', file=sys.stderr)
    os.unlink(dat)


if __name__ == '__main__':
    main()
