#!/usr/bin/env python3
"""make check's barrier stage: the arm64 barrier check (barrier-check.py)
on the series kernel and on each compile-time barrier mutant.

    barrier-stage.py TREE SERIES_BUILD MATRIX [REF]

SERIES_BUILD is the arm64 series build dir; TREE the kernel tree, whose
REF (default mutants) has the mutants' #ifdef TLB_MUTANT_<NAME> hooks.
Prints barrier-check.py's verdicts on the series objects, then one
verdict for the objects compiled from REF without a mutant (the control:
each barrier check must pass), then for each mutants/matrix row whose
check is "barrier.NAME":

    PASS mutant.ROW barrier.NAME -- caught: FAIL barrier.NAME -- ...
    FAIL mutant.ROW barrier.NAME -- not caught: ...

then "counts P F S".  A row is caught only if barrier.NAME, the barrier
it names, fails on its mutant.

The objects are compiled with the command kbuild used for the series
build (its .cmd files), in a scratch dir ($OUT/build/barrier, or BARRIER_DIR)
that holds REF's version of every source file they read (kbuild's
dependency list, and every file REF changes against the series), with
the series build's generated headers; -DTLB_MUTANT_<NAME> for a mutant,
only for the objects whose sources name it, and -DTLB_MUTANT_BARRIER_STAGE
for all of them (it leaves out the runtime mutants that would put the
code a check forbids into every object). Nothing of the series build
or of the shared source checkout is written.
"""
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('barrier_check',
                                              os.path.join(HERE, 'barrier-check.py'))
assert spec is not None and spec.loader is not None
bc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bc)

OBJECTS = [bc.CONTEXT] + sorted({o for o, _ in bc.FLUSH} | {bc.FREED[0], bc.BATCH[0]})


def cmd_of(build, obj):
    d, b = os.path.split(obj)
    with open(os.path.join(build, d, f'.{b}.cmd')) as f:
        text = f.read()
    cmd = text.splitlines()[0].split(':=', 1)[1].strip()
    deps = [line.strip().rstrip('\\').strip() for line in text.splitlines()
            if line.strip().startswith('../')]
    deps += [line.split(':=', 1)[1].strip() for line in text.splitlines()
             if line.startswith('source_')]
    return cmd, [p[3:] for p in deps]


def git(tree, *args, data=None):
    return subprocess.run(['git', '-C', tree] + list(args), input=data,
                          capture_output=True, check=True).stdout


def overlay(tree, ref, paths, src):
    """Write REF's version of each path under src (binary-safe)."""
    names = sorted(set(paths))
    out = git(tree, 'cat-file', '--batch', data=''.join(f'{ref}:{p}\n' for p in names).encode())
    pos = 0
    for p in names:
        nl = out.index(b'\n', pos)
        head = out[pos:nl].decode().split()
        pos = nl + 1
        if len(head) < 3 or head[1] == 'missing':
            continue
        size = int(head[2])
        dst = os.path.join(src, p)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, 'wb') as f:
            f.write(out[pos:pos + size])
        pos += size + 1


def compile_obj(bdir, cmd, obj, out, define=None):
    args = [a for a in shlex.split(cmd) if not a.startswith('-Wp,-MMD')]
    i = args.index('-o')
    args[i + 1] = out
    # Runtime mutants that would put the code a check forbids into every
    # object (arm64-walk-vale1) stay out of the objects compiled here.
    args.insert(i, '-DTLB_MUTANT_BARRIER_STAGE')
    if define:
        args.insert(i, f'-D{define}')
    os.makedirs(os.path.dirname(out), exist_ok=True)
    r = subprocess.run(args, cwd=bdir, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f'{obj}: {(r.stderr.strip().splitlines() or ["?"])[-1]}')


def macro(mutant):
    return 'TLB_MUTANT_' + mutant.upper().replace('-', '_')


def rows(matrix):
    with open(matrix) as f:
        for line in f:
            if not line.strip() or line.startswith('#'):
                continue
            p = line.rstrip('\n').split('|') + [''] * 9
            if p[5].startswith('barrier.'):
                yield p[0], p[1], p[5]


def main():
    tree, series, matrix = sys.argv[1:4]
    ref = sys.argv[4] if len(sys.argv) > 4 else 'mutants'
    t0 = time.time()
    P = F = 0
    out = []

    def say(line):
        nonlocal P, F
        out.append(line)
        print(line, flush=True)
        if line.startswith('PASS'):
            P += 1
        elif line.startswith('FAIL'):
            F += 1

    series = os.path.realpath(series)
    try:
        off = bc.offsets(series)
        for line in bc.Checker(series, off).run()[:-1]:
            say(line)
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError) as e:
        say(f'FAIL barrier.check -- series objects in {series}: {e}')
        print(f'counts {P} {F} 0')
        return 1
    # Without the mutants (REF series), the series' verdicts alone.
    want = list(rows(matrix)) if ref != 'series' else []
    if not want:
        print(f'counts {P} {F} 0')
        return 1 if F else 0

    work = os.environ.get('BARRIER_DIR') or os.path.join(
        os.path.dirname(os.path.dirname(series)), 'build', 'barrier')
    if os.path.basename(os.path.dirname(series)) != 'src':
        work = os.environ.get('BARRIER_DIR') or os.path.join(os.path.dirname(series), 'barrier')
    src = os.path.join(work, 'src')
    bdir = os.path.join(src, '.build')
    try:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(os.path.join(bdir, 'arch/arm64/mm'))
        for d in ('include', 'arch/arm64/include'):
            os.symlink(os.path.join(series, d), os.path.join(bdir, d))
        for obj in OBJECTS:
            os.makedirs(os.path.join(bdir, os.path.dirname(obj)), exist_ok=True)
        shutil.copy(os.path.join(series, 'arch/arm64/mm/.context.o.cmd'),
                    os.path.join(bdir, 'arch/arm64/mm/'))
        cmds, paths = {}, set()
        for obj in OBJECTS:
            cmds[obj], deps = cmd_of(series, obj)
            paths.update(deps)
        changed = git(tree, 'diff', '--name-only', f'series..{ref}').decode().split()
        overlay(tree, ref, list(paths) + changed, src)
        hooks = {}
        for obj in OBJECTS:
            _, deps = cmd_of(series, obj)
            text = ''
            for p in set(deps) & set(changed) | {obj[:-2] + '.c'}:
                try:
                    with open(os.path.join(src, p), errors='replace') as f:
                        text += f.read()
                except OSError:
                    pass
            hooks[obj] = text
        ctl = os.path.join(work, 'control')
        for obj in OBJECTS:
            compile_obj(bdir, cmds[obj], obj, os.path.join(ctl, obj))
        lines = bc.Checker(ctl, off).run()
        bad = [x for x in lines if x.startswith('FAIL')]
        say(('FAIL' if bad else 'PASS') + f' barrier.control -- {ref} without a mutant: ' +
            ('; '.join(bad) if bad else f'{len(lines) - 1} barrier checks pass'))
    except (OSError, subprocess.CalledProcessError, RuntimeError, ValueError) as e:
        say(f'FAIL barrier.control -- {ref}: {e}')
        print(f'counts {P} {F} 0')
        return 1

    for row, mutant, check in want:
        name = f'mutant.{row} {check}'
        d = macro(mutant)
        objs = [o for o in OBJECTS if d in hooks[o]]
        if not objs:
            say(f'FAIL {name} -- not caught: no {d} in the sources of '
                f'{", ".join(OBJECTS)} on {ref}')
            continue
        mdir = os.path.join(work, 'mutant', mutant)
        try:
            for obj in OBJECTS:
                dst = os.path.join(mdir, obj)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                if obj in objs:
                    compile_obj(bdir, cmds[obj], obj, dst, d)
                elif not os.path.exists(dst):
                    os.symlink(os.path.join(ctl, obj), dst)
        except (OSError, RuntimeError) as e:
            say(f'FAIL {name} -- not caught: does not compile: {e}')
            continue
        lines = bc.Checker(mdir, off).run()
        hit = [x for x in lines if x.startswith(f'FAIL {check} ')]
        if hit:
            others = [x.split()[1] for x in lines if x.startswith('FAIL') and x not in hit]
            say(f'PASS {name} -- caught: {hit[0]}' +
                (f' [also failed: {", ".join(others)}]' if others else ''))
        else:
            failed = [x.split()[1] for x in lines if x.startswith('FAIL')]
            say(f'FAIL {name} -- not caught: {check} passed with -D{d} (compiled: '
                f'{", ".join(objs)}; failed: {", ".join(failed) or "none"})')
    print(f'# barrier stage: {time.time() - t0:.0f} s', file=sys.stderr)
    print(f'counts {P} {F} 0')
    return 1 if F else 0


if __name__ == '__main__':
    sys.exit(main())
