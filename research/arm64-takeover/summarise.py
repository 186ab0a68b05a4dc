#!/usr/bin/env python3
"""Summarise research/arm64-takeover/run.sh's logs as a Markdown table.

  summarise.py LOGS_DIR [--csv FILE]

For each metric (an mprotect loop mode of guest/bench/migrate.c, its
broadcasts per iteration, a ctxsw mode), each kernel's value per round is
the median of that boot's repeats; the table gives the median over rounds
with their range, and each ratio to base (and takeover/series) as the
median of the per-round ratios, with their range. A ratio whose range
includes 1.0 is marked "within noise". Then, since a round's median can
hide repeats that differ, the number of repeats per kernel and mode with
fewer than 0.5 broadcasts per iteration (the mm was local, e.g. taken
over). --csv writes every repeat: kernel, round, mode, median_us, p90_us,
mean_us, broadcast_per_iter, migrations.
"""
import re
import statistics as st
import sys
from pathlib import Path

KERNELS = ["base", "series", "takeover"]
MIG = re.compile(r"migrate: mode=(\S+) median_us=([\d.]+) p90_us=([\d.]+) "
                 r"(?:mean_us=([\d.]+) )?"
                 r"broadcast_per_iter=(-?[\d.]+) migrations=(\d+)")
CTX = re.compile(r"ctxsw: mode=(\S+) ns_per_switch=([\d.]+)")


def parse(path):
    """One boot's log: its repeat lines of migrate.c, each as a tuple of
    its fields (for --csv), and {metric: [values]}."""
    reps: list[tuple] = []
    vals: dict[str, list[float]] = {}

    def add(metric, v):
        vals.setdefault(metric, []).append(float(v))

    for line in path.read_text(errors="replace").splitlines():
        m = MIG.search(line)
        if m:
            mode, med, p90, mean, bcast, moves = m.groups()
            reps.append((mode, med, p90, mean or "", bcast, moves))
            add(f"mprotect_us {mode}", med)
            add(f"mprotect_p90_us {mode}", p90)
            if mean:
                add(f"mprotect_mean_us {mode}", mean)
            if float(bcast) >= 0:
                add(f"broadcast_per_iter {mode}", bcast)
            if mode == "migrating":
                add("migrations migrating", moves)
            continue
        m = CTX.search(line)
        if m:
            add(f"ctxsw_ns {m.group(1)}", m.group(2))
    return reps, vals


def fmt(x):
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def main():
    logs = Path(sys.argv[1])
    csv = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--csv" else None
    rounds = {}  # (kernel, round) -> {metric: value}
    # (kernel, mode) -> [repeats with < 0.5 broadcasts, repeats]
    local: dict[tuple[str, str], list[int]] = {}
    rows = []
    for f in sorted(logs.glob("arm64-*-perf-*.log")):
        m = re.match(r"arm64-(\w+)-perf-(\d+)\.log$", f.name)
        if not m or m.group(1) not in KERNELS:
            continue
        reps, vals = parse(f)
        for rep in reps:
            rows.append((m.group(1), m.group(2)) + rep)
            c = local.setdefault((m.group(1), rep[0]), [0, 0])
            c[1] += 1
            if 0 <= float(rep[4]) < 0.5:
                c[0] += 1
        if vals:
            rounds[(m.group(1), int(m.group(2)))] = {
                k: st.median(v) for k, v in vals.items()}
    nums = sorted({r for _, r in rounds})
    metrics = sorted({k for v in rounds.values() for k in v})
    print(f"Rounds: {len(nums)} ({', '.join(map(str, nums))}); per kernel, "
          "the median of the rounds (range); ratios: median of per-round "
          "ratios (range).\n")
    print("| metric | " + " | ".join(KERNELS) +
          " | series/base | takeover/base | takeover/series |")
    print("|---" * (len(KERNELS) + 4) + "|")
    for met in metrics:
        cells = []
        for k in KERNELS:
            v = [rounds[(k, r)][met] for r in nums if met in rounds.get((k, r), {})]
            cells.append(f"{fmt(st.median(v))} ({fmt(min(v))}-{fmt(max(v))}, n={len(v)})"
                         if v else "n/a")
        for a, b in (("series", "base"), ("takeover", "base"),
                     ("takeover", "series")):
            rs = [rounds[(a, r)][met] / rounds[(b, r)][met] for r in nums
                  if met in rounds.get((a, r), {}) and
                  rounds.get((b, r), {}).get(met)]
            if len(rs) < 2 or met.startswith(("broadcast", "migrations")):
                cells.append("")
                continue
            # make bench's rule (scripts/5-report.py spread()), unrounded
            noise = ", within noise" if min(rs) <= 1.0 <= max(rs) else ""
            cells.append(f"{st.median(rs):.3f} ({min(rs):.3f}-{max(rs):.3f}{noise})")
        print(f"| {met} | " + " | ".join(cells) + " |")
    modes = sorted({mo for _, mo in local})
    print("\nRepeats with fewer than 0.5 broadcasts per iteration, of all "
          "repeats (no counter on base):\n")
    print("| mode | " + " | ".join(KERNELS[1:]) + " |")
    print("|---" * len(KERNELS) + "|")
    for mo in modes:
        print(f"| {mo} | " + " | ".join(
            f"{local[(k, mo)][0]} of {local[(k, mo)][1]}" if (k, mo) in local
            else "n/a" for k in KERNELS[1:]) + " |")
    if csv:
        with open(csv, "w") as out:
            out.write("kernel,round,mode,median_us,p90_us,mean_us,"
                      "broadcast_per_iter,migrations\n")
            for r in rows:
                out.write(",".join(r) + "\n")


if __name__ == "__main__":
    main()
