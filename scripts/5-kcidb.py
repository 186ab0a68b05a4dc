#!/usr/bin/env python3
"""Step 5c: make check's verdicts, or make bench's results, as KCIDB data.

    5-kcidb.py check LOGDIR --tree TREE --out FILE [--origin tlb_series]
    5-kcidb.py bench BENCH_JSON --tree TREE --out FILE [--origin ...]
    5-kcidb.py validate FILE [--bench BENCH_JSON]
    more options: --patches DIR, --testonly DIR, --mutants DIR,
    --build-dir DIR, --builds-from KCIDB_JSON, --boots FILE, --fixed

Writes KCIDB I/O schema v4.5 (kernelci/kcidb-io kcidb_io/schema/v04_05.py,
the first v4 minor with a test "number"), checked against it first.  A
checkout per patch stack a kernel really had: TREE's tag base (the commit
2-tree.sh makes from the Debian tarball) plus the patches of that stack
(base: none; base-emu: testonly/; series: patches/; nsvm-stats: patches/
up to the stats patch; emu: patches/ and testonly/; mutants: and mutants/),
KCIDB's patchset_hash over them, misc naming the harness commit they were
read at.  A build per kernel booted, ARCH-REF (.config sha256, compiler,
valid), on its own stack's checkout, "host" for the rest.  check: a test
per line "STATUS [TAG] NAME [-- WHY]" of LOGDIR/*.verdict, the kernel its
boot's guest/boots line names, path TAG (but the arch) then NAME, output
and duration from LOG.json of 5-results.py; bench: a test per row of the
kernel the row booted (bench_ref), DONE (a check, such as regress or the
stress test's stale count, or a row the kernel cannot measure: its own
status), number = value and unit when there is one, run id, start time
and patches from the row's own run (a row kept by BENCH_SECTIONS keeps its
run's).  misc keeps the rest.
validate: FILE against the schema's required fields, types and patterns,
its ids unique and resolved; with --bench, every row of BENCH_JSON a test
on the build and checkout of the kernel it booted.
--fixed pins run id and time, no host look-ups (self-test:
scripts/testdata/kcidb/run.sh).
"""
import argparse
import datetime
import glob
import hashlib
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCHES = {'x86_64': '', 'arm64': 'aarch64-linux-gnu-'}  # lib.sh


def qemu_conf(arch):
    """The KEY=VALUE lines of scripts/qemu/ARCH.conf (4-boot.sh's)."""
    try:
        with open(os.path.join(TOP, 'scripts', 'qemu', arch + '.conf')) as f:
            return {k: v for k, _, v in (l.rstrip('\n').partition('=')
                                         for l in f if re.match(r'[A-Z_]+=', l))}
    except OSError:
        return {}


KIMAGE = {a: qemu_conf(a).get('KERNEL_IMAGE', '-') for a in ARCHES}
FIXED_TIME = '2026-11-15T22:30:00+00:00'  # lib.sh BASE_DATE
# A FAIL of the harness is a MISS, of a test cut off an ERROR; known
# failures and mutant kernels' splats, that verdicts skip, waived FAILs.
MISS = re.compile(r'no console log|5-results\.py|scripts/herd\.sh could not|'
                  r'host disk full')
ERROR = re.compile(r'no result|herd7 gave no verdict')
WAIVED = re.compile(r'known failure: |on a deliberately broken kernel')


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return None


def sha256(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(*cmd):  # CMD's output, None if it fails
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError:
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def clean(d):  # without None or {}: KCIDB properties are never null
    return {k: v for k, v in d.items() if v is not None and v != {}}


def test_path(*parts):
    raw = re.sub(r'[^.a-zA-Z0-9_-]+', '_', '.'.join(p for p in parts if p))
    return re.sub(r'\.{2,}', '.', raw).strip('.')


# The patch stack of each kernel (2-tree.sh's branches, bench.sh's
# nsvm-stats: the series up to the patch with this subject).
STACKS = {'base': (), 'base-emu': ('testonly',), 'series': ('patches',),
          'nsvm-stats': ('patches',), 'emu': ('patches', 'testonly'),
          'mutants': ('patches', 'testonly', 'mutants'),
          'base-count': ('testonly-base',)}
NSVM_STATS_SUBJECT = 'KVM: x86: Add vCPU stats for TLB flushes and MMU syncs'


def subject(text):
    """The unfolded Subject: of a patch, without its [PATCH ...] tag."""
    m = re.search(r'^Subject: (.*(?:\n[ \t].*)*)', text, re.M)
    sub = re.sub(r'\s*\n[ \t]+', ' ', m[1]) if m else ''
    return re.sub(r'^\[[^]]*\]\s*', '', sub)


class Doc:
    def __init__(self, args):
        self.args, self.origin = args, args.origin
        now = (datetime.datetime.fromisoformat(args.time) if args.time else
               datetime.datetime.now(datetime.timezone.utc))
        self.time, self.run_id = (FIXED_TIME, 'fixed') if args.fixed else (
            now.isoformat(timespec='seconds'), now.strftime('%Y%m%dT%H%M%SZ'))
        self.base = run('git', '-C', args.tree, 'rev-parse', '-q', '--verify',
                        'base^{commit}')
        conf = dict(re.findall(r'^(BASE_\w+)=(\S+)', read(os.environ.get(
            'BASE_CONF', TOP + '/base.conf')) or '', re.M))
        self.pkg = f'{conf.get("BASE_PKG")} {conf.get("BASE_VERSION")}'
        self.tarball = conf.get('BASE_TARBALL_SHA256')
        self.checkouts, self.builds, self.tests = {}, {}, {}
        self.old = {}  # config_name: build, of --builds-from
        if args.builds_from:
            with open(args.builds_from) as f:
                self.old = {b.get('config_name'): b
                            for b in json.load(f).get('builds', [])}
        self.dirs = {'patches': args.patches, 'testonly': args.testonly,
                     'mutants': args.mutants,
                     'testonly-base': args.testonly_base}
        self.boots = boots_kernels(args.boots)

    def patch_files(self, d, commit):
        """[(NAME, TEXT)] of the numbered patches of dir D (patches,
        testonly, mutants), at harness COMMIT when it is given and the
        dir is in the harness, else as they are now."""
        path = self.dirs[d]
        rel = os.path.relpath(os.path.abspath(path), TOP)
        if commit and not rel.startswith('..'):
            names = run('git', '-C', TOP, 'ls-tree', '--name-only',
                        f'{commit}:{rel}')
            if names is not None:
                return [(f'{d}/{n}', subprocess.run(
                    ['git', '-C', TOP, 'show', f'{commit}:{rel}/{n}'],
                    capture_output=True, check=True).stdout)
                    for n in sorted(names.split()) if re.match(r'\d', n) and
                    n.endswith('.patch') and not n.startswith('0000-')]
        out = []
        for p in sorted(glob.glob(os.path.join(path, '[0-9]*.patch'))):
            if not os.path.basename(p).startswith('0000-'):
                with open(p, 'rb') as f:
                    out.append((f'{d}/{os.path.basename(p)}', f.read()))
        return out

    def checkout(self, ref, run_info=None):
        """The checkout of REF's patch stack, read at the harness commit of
        RUN_INFO (a bench row's run) or as the files are now."""
        run_info = run_info or {}
        commit = None if run_info.get('dirty') else run_info.get('commit')
        ps = [p for d in STACKS.get(ref, ('patches',))
              for p in self.patch_files(d, commit)]
        if ref == 'nsvm-stats':
            cut = [i for i, (_, t) in enumerate(ps) if subject(
                t.decode(errors='replace')).startswith(NSVM_STATS_SUBJECT)]
            ps = ps[:cut[0] + 1] if cut else ps
        h = ''.join(hashlib.sha256(t).hexdigest() + '\n' for _, t in ps)
        h = hashlib.sha256(h.encode()).hexdigest() if ps else ''
        cid = f'{self.origin}:{self.base or "nobase"}+{h}'
        start = run_info.get('start_time', self.time)
        c = self.checkouts.get(cid)
        if c:
            c['start_time'] = min(c['start_time'], start)
            return cid
        self.checkouts[cid] = clean({
            'id': cid, 'origin': self.origin, 'git_commit_hash': self.base,
            'patchset_hash': h, 'start_time': start, 'valid': True,
            'comment': f'{self.pkg} + {len(ps)} patches'
                       f' ({" + ".join(STACKS.get(ref, ("patches",))) or "none"})',
            'misc': clean({
                'stack': list(STACKS.get(ref, ('patches',))),
                'patches': [n for n, _ in ps],
                'patches_at': (run_info.get('commit') or 'the work tree') +
                (' (with uncommitted changes)' if run_info.get('dirty') else ''),
                'base': 'the commit scripts/2-tree.sh makes from the '
                        f'{self.pkg} tarball' +
                        (f' (sha256 {self.tarball})' if self.tarball else '') +
                        '; in no public repository'})})
        return cid

    def build(self, arch, ref, run_info=None):
        """The id of the build of REF for ARCH (None: the host). REF may
        name a variant, REF:VARIANT (build dir ARCH-REF-VARIANT); its
        checkout is its own patch stack's (STACKS)."""
        name = f'{arch}-{ref.replace(":", "-")}'
        ref, _, _ = ref.partition(':')
        cid = self.checkout(ref if arch else 'series', run_info)
        key = (arch, name, cid)
        if key in self.builds:
            return self.builds[key]['id']
        b = {'id': f'{cid}:host', 'origin': self.origin, 'checkout_id': cid,
             'valid': True}
        if arch:
            old = self.old.get(name)
            if old:  # recorded when the run's kernels were there
                csum = old.get('misc', {}).get('config_sha256')
                cc = old.get('compiler')
                commit = old.get('misc', {}).get('commit')
            else:
                cfg = os.path.join(self.args.build_dir, name, '.config')
                csum = sha256(cfg) if os.path.exists(cfg) else None
                cc = (re.findall(r'^CONFIG_CC_VERSION_TEXT="(.*)"$',
                                 read(cfg) or '', re.M) or [None])[0]
                if not cc and not self.args.fixed:  # as lib.sh kmake() would
                    cc = (run(ARCHES.get(arch, '') + 'gcc', '--version') or
                          '').split('\n')[0] or None
                commit = run('git', '-C', self.args.tree, 'rev-parse', '-q',
                             '--verify', ref + '^{commit}')
            parts = [name, (commit or '')[:12], (csum or '')[:12]]
            b = clean({
                'id': ':'.join([self.origin] + [p for p in parts if p]),
                'origin': self.origin, 'checkout_id': cid,
                'architecture': arch, 'config_name': name,
                'compiler': cc, 'misc': clean({
                    'ref': ref, 'commit': commit, 'config_sha256': csum})})
            if old and isinstance(old.get('valid'), bool):
                b['valid'] = old['valid']
            elif not old and os.path.exists(os.path.join(
                    self.args.build_dir, name, KIMAGE.get(arch, '-'))):
                b['valid'] = True  # built; else: finish()
        self.builds[key] = b
        return b['id']

    def test(self, arch, ref, path, run_info=None, **fields):
        run_info = run_info or {}
        rid = run_info.get('id', self.run_id)
        tid = (f'{self.origin}:{rid}:{arch or "host"}-'
               f'{ref.replace(":", "-")}:{path}')
        tid += f'#{len(self.tests)}' if tid in self.tests else ''
        self.tests[tid] = clean({'id': tid, 'origin': self.origin,
                                 'build_id': self.build(arch, ref, run_info),
                                 'path': path, 'start_time':
                                 run_info.get('start_time', self.time),
                                 **fields})

    def finish(self):
        """A build is valid when a test ran on it (one that is no MISS)
        or, in a check, when its kernel image is there."""
        ran = {t['build_id'] for t in self.tests.values()
               if t.get('status') != 'MISS'}
        for b in self.builds.values():
            if 'valid' not in b:
                b['valid'] = b['id'] in ran


def boots_kernels(path):
    """{TAG: KERNEL} of guest/boots' lines."""
    out = {}
    for line in (read(path) or '').splitlines():
        f = line.split('|')
        if len(f) >= 3 and not line.startswith('#'):
            out[f[0]] = f[2]
    return out


def log_json(vf, tag):
    """The LOG.json 5-results.py wrote for verdict file VF of TAG, or {}."""
    parts = (tag or '').split('/')
    path = vf[:-len('.verdict')] + '.json'
    rig = parts[1:2] == ['rig']  # ARCH/rig/...: a boot on the rig
    parts = parts[:1] + parts[2:] if rig else parts
    if parts[1:2] == ['mutant']:  # 5-results.py --row ROW: LOG.ROW.json
        # of a boot on the rig (log ARCH_rig_...) or on stock TCG
        path = ([p for p in sorted(glob.glob(os.path.dirname(vf) + '/*.log.' +
                                             '_'.join(parts[2:]) + '.json'))
                 if os.path.basename(p).startswith(parts[0] + '_rig_') == rig]
                or [''])[0]
    try:
        return json.loads(read(path) or '{}') if tag else {}
    except ValueError:
        return {}


def verdicts(vf):
    """(STATUS, TAG, NAME, WHY) of each line of verdict file VF."""
    lines = read(vf).splitlines()
    items = []
    for line in lines:
        head, _, why = line.partition(' -- ')
        words = head.split(' ', 2)
        if words[0] not in ('PASS', 'FAIL', 'SKIP') or len(words) < 2:
            continue
        tag, name = (None, words[1]) if len(words) == 2 else words[1:]
        if tag in ('lint', 'selftest') and not why:  # NAME: WHY, NAME (WHY)
            m = re.match(r'(.+?)(?:: | (?=\())(.*)$', name)
            name, why = m.groups() if m else (name, why)
        items.append((words[0], tag, name, why))
    if not any(line.startswith('counts ') for line in lines):  # check.sh
        tag = items[0][1] if items else os.path.basename(vf).split('.')[0]
        items.append(('FAIL', tag, 'results', '5-results.py gave no counts'))
    return items


def check(doc, logdir):
    files = sorted(glob.glob(os.path.join(logdir, '*.verdict')))
    if not files:
        sys.exit(f'5-kcidb.py: no *.verdict files in {logdir}')
    for vf in files:
        items = verdicts(vf)
        outputs = log_json(vf, items[0][1]).get('outputs', {})
        for st, tag, name, why in items:
            parts = (tag or '').split('/')
            arch = parts[0] if parts[0] in ARCHES else None
            # ARCH/rig/...: the same kernels, booted on the tagged-TLB rig
            rig = bool(arch) and parts[1:2] == ['rig']
            kparts = parts[:1] + parts[2:] if rig else parts
            kind = kparts[1] if arch and len(kparts) > 1 else 'series'
            ref = 'mutants' if kind in ('mutant', 'mutants', 'emu') else kind
            # The kernel the boot's line of guest/boots names (the
            # longest tag that is the verdict's or starts it).
            for i in range(len(parts), 0, -1):
                if '/'.join(parts[:i]) in doc.boots:
                    ref = doc.boots['/'.join(parts[:i])]
                    break
            # ARCH/nested/...: L1 is base-count, or the series where
            # make check built no base-count (boot-row.sh row_build; its
            # L2 kernels are named in the tests' output)
            if ref == 'nested':
                ref = 'series' if os.path.exists(
                    os.path.join(logdir, '.nested-cold')) else 'base-count'
            out = outputs.get(name, [])
            pat = re.escape(name) + r': rc=-?\d+ seconds=([0-9.]+)'
            secs = [m[1] for m in (re.fullmatch(pat, o) for o in out) if m]
            status, waived = st, None
            if st == 'FAIL' and (MISS.match(why) or name.endswith('py parse')):
                status = 'MISS'
            elif st == 'FAIL' and ERROR.match(why):
                status = 'ERROR'
            elif st == 'SKIP' and WAIVED.match(why):
                status, waived = 'FAIL', True
            excerpt = '\n'.join([why] * bool(why) + out * (st != 'PASS'))
            doc.test(arch, ref, test_path(*parts[bool(arch):], name),
                     status=status, waived=waived,
                     duration=float(secs[-1]) if secs else None,
                     log_excerpt=excerpt[-16384:] or None,
                     misc=clean({'tag': tag, 'name': name, 'why': why or None,
                                 'verdict': st, 'file': os.path.basename(vf),
                                 'qemu': 'rig' if rig else None}))


def bench_ref(r):
    """The build a bench row's kernel was (guest/views): the x86 and
    hvscale sections and the stress test's emulated path boot the
    kernels with the in-guest Hyper-V stand-in, arm64's loops the perf
    variant, the floor is the mutants kernel, "counting" nsvm-stats."""
    k, sec = r['kernel'], r.get('section')
    if sec in ('x86', 'hvscale'):
        return {'base': 'base-emu', 'series': 'emu'}.get(k, k)
    if sec == 'arm64':
        return {'floor': 'mutants'}.get(k, k) + ':perf'
    if sec == 'stress' and r.get('path') == 'hv-emul':
        return 'emu'
    return {'counting': 'nsvm-stats', 'floor': 'mutants'}.get(k, k)


def bench(doc, path):
    with open(path) as f:
        rows = json.load(f)
    for r in rows:
        v = r.get('value')
        ok = isinstance(v, (int, float)) and not isinstance(v, bool)
        # A check among the measurements (regress: equal pass sets) has
        # its own status; a measurement is DONE, or ERROR without a value.
        status = r.get('status') or ('DONE' if ok else 'ERROR')
        ri = r.get('run') or {}
        env = clean({'comment': ri.get('host'), 'misc': clean({
            k: ri.get(k) for k in ('qemu', 'host_cpus')})})
        doc.test(r['arch'], bench_ref(r),
                 test_path('bench', r.get('section'), r['metric'],
                           r.get('path'), f'{r.get("vcpus")}vcpu'),
                 run_info=ri, status=status, environment=env or None,
                 log_excerpt=r.get('why'),
                 number=clean({'value': v, 'unit': r.get('unit')}) if ok
                 else None,
                 misc=clean({k: x for k, x in r.items()
                             if k not in ('metric', 'value', 'unit', 'run',
                                          'why')} |
                            {'run_id': ri.get('id'),
                             'harness_commit': ri.get('commit')}))


# kcidb_io/schema/v04_05.py: each object's required and allowed properties,
# their types (str unless in TYPES; N: a JSON number) and string patterns.
ANY = 'id origin comment log_url log_excerpt start_time misc '
SPEC = {
    'checkouts': ('id origin', ANY + 'tree_name git_repository_url '
                  'git_commit_hash git_commit_name git_repository_branch '
                  'patchset_files patchset_hash message_id contacts valid'),
    'builds': ('checkout_id id origin', ANY + 'checkout_id duration '
               'architecture command compiler input_files output_files '
               'config_name config_url valid'),
    'tests': ('build_id id origin', ANY + 'build_id environment path '
              'status number waived duration output_files'),
    'number': ('value', 'value unit prefix'),
    'environment': ('', 'compatible comment misc')}
N = (int, float)
TYPES: dict[str, type | tuple[type, ...]] = dict(
    duration=N, value=N, valid=bool, waived=bool, misc=dict,
    number=dict, environment=dict, patchset_files=list,
    contacts=list, input_files=list, output_files=list,
    compatible=list)
ID = r'[a-z0-9_]+:.*'
PATTERN = dict(id=ID, checkout_id=ID, build_id=ID, origin=r'[a-z0-9_]+',
               git_commit_hash=r'[0-9a-f]{40}', patchset_hash=r'|[0-9a-f]{64}',
               architecture=r'[a-z0-9_]*', path=r'[.a-zA-Z0-9_-]*',
               git_repository_url=r'(https|git)://.*', prefix='metric|binary',
               status=r'FAIL|ERROR|MISS|PASS|DONE|SKIP')


def obj_errors(o, kind, w):
    """The violations of object O, a KIND, at W."""
    required, props = SPEC[kind]
    errs = [f'{w}: no {k}' for k in required.split() if k not in o]
    for k, v in o.items():
        t, pat = TYPES.get(k, str), PATTERN.get(k)
        if k not in props.split():
            errs.append(f'{w}.{k}: not a property of {kind}')
        elif not isinstance(v, t) or isinstance(v, bool) != (t is bool):
            errs.append(f'{w}.{k}: {v!r} is not a {t} (never null)')
        elif pat and not re.fullmatch(pat, v):
            errs.append(f'{w}.{k}: {v!r} does not match {pat}')
        elif k == 'log_excerpt' and len(v) > 16384:
            errs.append(f'{w}.{k}: longer than 16384')
        elif k in ('number', 'environment'):
            errs += obj_errors(v, k, f'{w}.{k}')
    if 'origin' in o and kind in ('checkouts', 'builds', 'tests') and \
            not str(o.get('id')).startswith(o['origin'] + ':'):
        errs.append(f'{w}.id: does not start with its origin')
    return errs


def validate(doc):
    """DOC's violations of schema v4.5, as a list of messages."""
    ok = doc['version'] == {'major': 4, 'minor': 5}
    errs = [] if ok else ['version: not 4.5']
    for kind in ('checkouts', 'builds', 'tests'):
        for i, o in enumerate(doc[kind]):
            errs += obj_errors(o, kind, f'{kind}[{i}]')
        ids = [o.get('id') for o in doc[kind]]
        if len(set(ids)) != len(ids):
            errs.append(f'{kind}: ids are not unique')
    # Every build's checkout and every test's build is in the file (the
    # schema allows them elsewhere; a file of ours has them all).
    for kind, ref, parent in (('builds', 'checkout_id', 'checkouts'),
                              ('tests', 'build_id', 'builds')):
        have = {o.get('id') for o in doc[parent]}
        for i, o in enumerate(doc[kind]):
            if o.get(ref) not in have:
                errs.append(f'{kind}[{i}].{ref}: {o.get(ref)} is not in '
                            f'{parent}')
    try:
        from kcidb_io import schema  # pylint: disable=import-outside-toplevel
        schema.V4_5.validate_exactly(doc)
    except ImportError:
        pass
    except Exception as e:  # pylint: disable=broad-except
        errs.append(f'kcidb_io: {e}'.splitlines()[0])
    return errs


def attribution_errors(doc, rows):
    """Each bench row a test on the build of the kernel it booted
    (bench_ref), on the checkout of that kernel's patch stack, with a run
    id; as many tests as rows."""
    errs = [] if len(doc['tests']) == len(rows) else [
        f'{len(doc["tests"])} tests for {len(rows)} rows']
    builds = {b['id']: b for b in doc['builds']}
    cos = {c['id']: c for c in doc['checkouts']}
    for i, (r, t) in enumerate(zip(rows, doc['tests'])):
        want = bench_ref(r)
        b = builds.get(t.get('build_id'), {})
        c = cos.get(b.get('checkout_id'), {})
        ref, _, var = want.partition(':')
        name = f'{r["arch"]}-{ref}' + (f'-{var}' if var else '')
        if b.get('config_name') != name or b.get('misc', {}).get('ref') != ref:
            errs.append(f'tests[{i}] ({r["metric"]} {r["kernel"]}): build '
                        f'{b.get("config_name")}, not {name}')
        if c.get('misc', {}).get('stack') != list(STACKS.get(ref, ('patches',))):
            errs.append(f'tests[{i}] ({r["metric"]} {r["kernel"]}): checkout '
                        f'of {c.get("misc", {}).get("stack")}, not {ref}\'s '
                        f'{list(STACKS.get(ref, ("patches",)))}')
        if not isinstance(b.get('valid'), bool):
            errs.append(f'builds: {b.get("id")} has no valid')
        rid = (r.get('run') or {}).get('id')
        if not rid or t.get('misc', {}).get('run_id') != rid or \
                not t['id'].startswith(f'{t["origin"]}:{rid}:'):
            errs.append(f'tests[{i}] ({r["metric"]}): not the run id of its '
                        f'row ({rid})')
    return errs


def validate_main(path, bench_json):
    with open(path) as f:
        doc = json.load(f)
    errs = validate(doc)
    if bench_json:
        with open(bench_json) as f:
            errs += attribution_errors(doc, json.load(f))
    if errs:
        sys.exit(f'5-kcidb.py: {path}:\n  ' + '\n  '.join(errs[:20]))
    print(f'{path}: KCIDB v4.5, {len(doc["checkouts"])} checkouts, '
          f'{len(doc["builds"])} builds, {len(doc["tests"])} tests'
          + (f', each row of {bench_json} on the kernel it booted'
             if bench_json else ''))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('mode', choices=('check', 'bench', 'validate'))
    ap.add_argument('input', help='check: LOGDIR; bench: results/bench.json; '
                    'validate: a KCIDB JSON file')
    ap.add_argument('--tree')
    ap.add_argument('--out')
    ap.add_argument('--bench', help='validate: the bench.json it was made from')
    ap.add_argument('--origin', default='tlb_series')
    ap.add_argument('--patches', default=os.path.join(TOP, 'patches'))
    ap.add_argument('--testonly', default=os.path.join(TOP, 'testonly'))
    ap.add_argument('--mutants', default=os.path.join(TOP, 'mutants'))
    ap.add_argument('--testonly-base', default=os.path.join(TOP, 'testonly-base'))
    ap.add_argument('--boots', default=os.path.join(TOP, 'guest', 'boots'))
    ap.add_argument('--builds-from', metavar='KCIDB_JSON',
                    help='bench: the builds\' commits, .config sha256 and '
                    'compilers as recorded in an earlier file of the same '
                    'run, not from the tree and build dirs now')
    ap.add_argument('--build-dir', default=os.path.join(
        os.environ.get('OUT', os.path.join(TOP, 'out')), 'build'))
    ap.add_argument('--time', help='the run\'s start (ISO 8601), to render '
                    'an earlier run again under its own time and id')
    ap.add_argument('--fixed', action='store_true',
                    help='pin the run id and time, no host look-ups')
    args = ap.parse_args()
    if args.mode == 'validate':
        validate_main(args.input, args.bench)
        return
    if not args.tree or not args.out:
        ap.error('check and bench need --tree and --out')
    doc = Doc(args)
    (check if args.mode == 'check' else bench)(doc, args.input)
    doc.finish()
    data: dict[str, object] = {'version': {'major': 4, 'minor': 5}, **{k: list(getattr(
        doc, k).values()) for k in ('checkouts', 'builds', 'tests')}}
    if errs := validate(data):
        sys.exit('5-kcidb.py: not KCIDB v4.5:\n  ' + '\n  '.join(errs[:20]))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        f.write(json.dumps(data, indent=1) + '\n')


if __name__ == '__main__':
    main()
