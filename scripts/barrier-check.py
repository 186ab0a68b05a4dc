#!/usr/bin/env python3
"""Check the compiled arm64 code for the barriers of the series' ordering
argument (the litmus tests in litmus/, which herd-check.sh runs).

    barrier-check.py [--offsets active_cpu=N,id=M] [--cmd-dir DIR] OBJDIR

OBJDIR is an arm64 build dir of the series (or a scratch dir with the same
layout) that holds arch/arm64/mm/context.o, mm/mmap.o and
mm/pgtable-generic.o.  The offsets of mm->context.active_cpu and
mm->context.id in struct mm_struct are found by compiling a probe with
the command kbuild used for context.o (DIR/arch/arm64/mm/.context.o.cmd,
DIR defaults to OBJDIR), unless given.  Prints one line per barrier,
"PASS barrier.NAME -- ..." or "FAIL barrier.NAME -- why", then
"counts P F S"; exit status 1 on any FAIL.

How: aarch64-linux-gnu-objdump -d of each object, a control-flow graph of
each function named below from its branches (b, b.cond, cbz/cbnz,
tbz/tbnz; bl and blr fall through; ret, br and brk end a path; a branch
out of the function ends it too), plus the edges of the alternatives
(.altinstructions: a site patched to NOPs or to a branch at boot also
falls through, or branches where its replacement does).  Each check is a
search over every path of that graph between named anchors:

  switch-sb (litmus switch-sb, -nodsb, -dmb): check_and_switch_context():
    every path from the CAS of active_cpu (a 32-bit cas/stxr or a call of
    __cmpxchg_case_*32) to the TTBR0_EL1 write (bl cpu_do_switch_mm, or
    msr ttbr0_el1) passes a DSB, and the first DSB after a CAS on some
    path completes stores (ISH, ISHST, SY, ST): the mark is complete
    before the walks.  (A failed CAS stores nothing; it may end at the
    DSB ISHLD of the "many" path, which is why any DSB counts for a.)
  switch-rwc (switch-rwc, -nodsb, -ishst): every path from a read of
    active_cpu that stores nothing (it reaches no CAS) to the TTBR0_EL1
    write passes DSB ISHLD, ISH, LD or SY, except the early return: the
    successor of the first conditional branch after the read that reaches
    no CAS (the state already names this CPU).
  switch-isb (switch-sb-noisb): in every function of context.o that writes
    TTBR0_EL1 (cpu_do_switch_mm(); not cpu_set_reserved_ttbr0_nosync(),
    whose tables map nothing), every path from the write to a return, a
    call or a branch out passes an ISB.
  flush-dsb (switch-sb, flush-sb-nodsb, flush-sb-ishld): in the flush
    functions below, every path from the entry to a non-shareable user
    TLBI (aside1, vale1, vae1, rvae1, rvale1) passes a DSB that completes
    stores (ISH, ISHST, SY, ST) and then reads active_cpu: the DSB that
    completes the page-table updates before the look.
  flush-look (switch-sb's CPU 1): every such path reads active_cpu after
    its last DSB: the decision to go local is read after the DSB.
  rollover-wmb (rollover, rollover-nowmb): in context.o, every path from
    a plain store to active_cpu (set_active_cpu_new_asid()'s reset, in
    new_context()) to a store of context.id, a return or a branch out
    passes DMB ISHST, DMB ISH or a DSB.
  rollover-acquire (rollover, rollover-noacquire):
    check_and_switch_context(): every path from the entry to a read or a
    CAS of active_cpu passes a 64-bit LDAR/LDAPR (of context.id).
  pin-dsb (no litmus test; the switch-sb shape, patch 16):
    arm64_mm_context_get(): every path from its store to active_cpu to a
    return passes a DSB that completes stores.
  local-complete (no litmus test: completion of a local TLBI): in the
    flush functions below, every path from a non-shareable TLBI to a
    return or a branch out passes a DSB (DSB NSH is the one).
  batch-complete (no litmus test; patch 18): try_to_unmap_flush() in
    mm/rmap.o (arch_tlbbatch_flush() inlined): every path from the entry
    to a return that stores anything (the batch's flags; stores to the
    stack do not count) passes a DSB, DSB ISH for a batch that
    broadcast, DSB NSH for an all-local one.
  walk-op (no litmus test; patch 17's __tlbi_user_op()): the out-of-line
    flush_tlb_range() copy in mm/pgtable-generic.o, which is called after
    page tables are freed and passes no TLBF_NOWALKCACHE, has local
    TLBIs and none of them is last-level only (VALE1, RVALE1).

Flush functions: dup_mmap() in mm/mmap.o (flush_tlb_mm() inlined),
ptep_clear_flush() (__flush_tlb_page()) and __flush_tlb_range*() in
mm/pgtable-generic.o (the range path: flush_tlb_range(), out of line).

What it cannot check: values.  It does not know which branch is taken on
which value, so "the early return is the case where the state names this
CPU", "the CAS succeeded" and "the second look's value decides local"
are assumed from the code's shape, not proven; a mutant that keeps every
instruction but changes a comparison is for the KUnit cases and the
stress tests.  Nor does it see the page-table store before the flush
(callers, anywhere), paths of static keys (__jump_table is not read: the
mutants kernel's keys are not followed), the SW PAN path (TTBR0 set in
uaccess_enable(), not configured here), other callers of the inlined
flush than the functions above, or loops around a whole flush (a path
that flushed once may carry its state into the next iteration; none of
the functions above flushes in a loop).
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

OBJDUMP = os.environ.get('OBJDUMP', 'aarch64-linux-gnu-objdump')
CONTEXT = 'arch/arm64/mm/context.o'
FLUSH = [('mm/mmap.o', 'dup_mmap'), ('mm/pgtable-generic.o', 'ptep_clear_flush'),
         ('mm/pgtable-generic.o', '__flush_tlb_range*')]
# flush_tlb_range(), which pmdp_collapse_flush() and the other THP helpers
# call after freeing or replacing a table: out of line, TLBF_NONE.
FREED = ('mm/pgtable-generic.o', '__flush_tlb_range.constprop*')
BATCH = ('mm/rmap.o', 'try_to_unmap_flush')
LOCAL_TLBI = {'aside1', 'vale1', 'vae1', 'rvae1', 'rvale1'}
LEAF_TLBI = {'vale1', 'rvale1'}
DSB_STORE = {'ish', 'ishst', 'sy', 'st'}   # completes earlier stores
DSB_LOAD = {'ish', 'ishld', 'sy', 'ld'}    # completes earlier loads
WMB = {('dmb', 'ishst'), ('dmb', 'ish'), ('dmb', 'sy'), ('dmb', 'st')}
COND = re.compile(r'^(b\.\w+|cbz|cbnz|tbz|tbnz)$')


class Insn:
    def __init__(self, addr, op, args):
        self.addr, self.op, self.args = addr, op, args
        self.target = None
        self.sym = None
        m = re.search(r'\b([0-9a-f]+) <([^>+]+)(\+0x[0-9a-f]+)?>', args)
        if m and (self.op in ('b', 'bl') or COND.match(self.op)):
            self.target = int(m.group(1), 16)
            self.sym = m.group(2)

    def __str__(self):
        return f'{self.op} {self.args.split(" <")[0]}'.strip()


def disassemble(path):
    """{function: [Insn]} of .text, and every .text Insn by address."""
    out = subprocess.run([OBJDUMP, '-d', '--no-show-raw-insn', '-j', '.text', path],
                         capture_output=True, text=True, check=True).stdout
    funcs: dict[str, list[Insn]] = {}
    by_addr: dict[int, Insn] = {}
    cur = None
    for line in out.splitlines():
        m = re.match(r'^([0-9a-f]+) <([^>]+)>:$', line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        m = re.match(r'^\s+([0-9a-f]+):\s+(\S+)\s*(.*?)\s*$', line)
        if m and cur is not None:
            ins = Insn(int(m.group(1), 16), m.group(2), m.group(3).split('//')[0].strip())
            cur.append(ins)
            by_addr[ins.addr] = ins
    return funcs, by_addr


def alternatives(path):
    """[(orig, orig_len, repl or None, repl_len)] of .altinstructions
    entries whose original code is in .text; repl None for a callback."""
    rel = subprocess.run([OBJDUMP, '-r', '-j', '.altinstructions', path],
                         capture_output=True, text=True).stdout
    raw = subprocess.run([OBJDUMP, '-s', '-j', '.altinstructions', path],
                         capture_output=True, text=True).stdout
    data = bytearray()
    for line in raw.splitlines():
        m = re.match(r'^ ([0-9a-f]{4,}) ((?:[0-9a-f]{2,8} ){1,4})', line)
        if m:
            data += bytes.fromhex(m.group(2).replace(' ', ''))
    relocs = {}
    for line in rel.splitlines():
        m = re.match(r'^([0-9a-f]+)\s+R_AARCH64_PREL32\s+(\S+)$', line)
        if m:
            relocs[int(m.group(1), 16)] = m.group(2)

    def text_off(v):
        m = re.match(r'^\.text(?:\+0x([0-9a-f]+))?$', v or '')
        return None if not m else int(m.group(1) or '0', 16)
    alts = []
    for off in range(0, len(data) - 11, 12):
        orig = text_off(relocs.get(off))
        if orig is None:
            continue
        repl = text_off(relocs.get(off + 4))
        alts.append((orig, data[off + 10], repl, data[off + 11]))
    return alts


class Obj:
    def __init__(self, path):
        self.path = path
        self.funcs, self.by_addr = disassemble(path)
        self.extra: dict[int, set[int]] = {}
        for orig, olen, repl, rlen in alternatives(path):
            for i in range(0, olen, 4):
                a = orig + i
                r = self.by_addr.get(repl + i) if repl is not None and i < rlen else None
                if r is not None and r.target is not None and r.op != 'bl':
                    self.extra.setdefault(a, set()).add(r.target)
                    if COND.match(r.op):
                        self.extra[a].add(a + 4)
                else:
                    self.extra.setdefault(a, set()).add(a + 4)

    def named(self, pattern):
        if pattern.endswith('*'):
            return sorted(f for f in self.funcs if f.startswith(pattern[:-1]))
        return [pattern] if pattern in self.funcs else []


class Graph:
    """The control-flow graph of one function."""

    def __init__(self, obj, name):
        self.name = name
        self.insns = obj.funcs[name]
        self.at = {i.addr: i for i in self.insns}
        self.succ = {}
        for n, i in enumerate(self.insns):
            nxt = self.insns[n + 1].addr if n + 1 < len(self.insns) else None
            s = set()
            if i.op in ('ret', 'br', 'brk', 'eret'):
                pass
            elif i.op == 'b' and i.target is not None:
                s.add(i.target)
            elif COND.match(i.op):
                s.update({i.target, nxt})
            else:
                s.add(nxt)
            s |= obj.extra.get(i.addr, set())
            # None or an address outside: the path leaves the function.
            self.succ[i.addr] = {a if a in self.at else None for a in s}

    def entry(self):
        return self.insns[0].addr

    def walk(self, starts, block, skip=()):
        """Addresses reachable from the successors of starts without
        entering a node for which block(insn) is true (those are returned
        apart); None in the result is "left the function"."""
        seen, blocked, todo = set(), set(), []
        for s in starts:
            todo += [(s, t) for t in self.succ[s]]
        while todo:
            frm, a = todo.pop()
            if (frm, a) in skip or a in seen:
                continue
            if a is not None and block(self.at[a]):
                blocked.add(a)
                continue
            seen.add(a)
            if a is not None:
                todo += [(a, t) for t in self.succ[a]]
        return seen, blocked

    def first_cond_after(self, addr):
        a = addr
        while a is not None:
            i = self.at[a]
            if a != addr and COND.match(i.op):
                return i
            nx = [t for t in self.succ[a] if t is not None]
            if i.op == 'b' or len(nx) != 1:
                return None
            a = nx[0]
        return None


def dsb(kinds):
    return lambda i: i.op == 'dsb' and i.args in kinds


def any_dsb(i):
    return i.op == 'dsb'


class Checker:
    def __init__(self, objdir, off):
        self.objdir, self.off = objdir, off
        self.lines = []
        self.objs = {}

    def obj(self, rel):
        if rel not in self.objs:
            self.objs[rel] = Obj(os.path.join(self.objdir, rel))
        return self.objs[rel]

    def verdict(self, ok, name, litmus, detail):
        self.lines.append(f"{'PASS' if ok else 'FAIL'} barrier.{name} -- {detail} "
                          f"(litmus: {litmus})")

    # anchors
    def is_load(self, i):
        return i.op == 'ldr' and re.fullmatch(
            rf'w\d+, \[x\d+, #{self.off["active_cpu"]}\]', i.args) is not None

    def is_store(self, i):
        return i.op == 'str' and re.fullmatch(
            rf'(w\d+|wzr), \[x\d+, #{self.off["active_cpu"]}\]', i.args) is not None

    def is_id_store(self, i):
        return i.op == 'str' and re.fullmatch(
            rf'(x\d+|xzr), \[x\d+, #{self.off["id"]}\]', i.args) is not None

    @staticmethod
    def is_cas(i):
        if i.op == 'bl':
            return bool(i.sym and re.match(r'__cmpxchg_case_\w*32$', i.sym))
        if re.match(r'^cas(a|l|al)?$', i.op):
            return i.args.startswith('w')
        if re.match(r'^st(l)?xr$', i.op):
            return re.match(r'^w\d+, w', i.args) is not None
        return False

    @staticmethod
    def is_ttbr(i):
        return (i.op == 'bl' and i.sym == 'cpu_do_switch_mm') or \
            (i.op == 'msr' and i.args.startswith('ttbr0_el1'))

    @staticmethod
    def is_local_tlbi(i):
        return i.op == 'tlbi' and i.args.split(',')[0] in LOCAL_TLBI

    def graph(self, rel, fn):
        o = self.obj(rel)
        return Graph(o, fn) if fn in o.funcs else None

    def run(self):
        ctx = self.obj(CONTEXT)
        g = self.graph(CONTEXT, 'check_and_switch_context')
        if g is None:
            for n, lit in (('switch-sb', 'switch-sb'), ('switch-rwc', 'switch-rwc'),
                           ('rollover-acquire', 'rollover')):
                self.verdict(False, n, lit, f'no check_and_switch_context in {CONTEXT}')
        else:
            self.switch_sb(g)
            self.switch_rwc(g)
            self.rollover_acquire(g)
        self.switch_isb(ctx)
        self.rollover_wmb(ctx)
        self.pin_dsb()
        self.flush()
        self.local_complete()
        self.batch_complete()
        self.walk_op()
        p = sum(line.startswith('PASS') for line in self.lines)
        return self.lines + [f'counts {p} {len(self.lines) - p} 0']

    def switch_sb(self, g):
        lit = 'switch-sb, switch-sb-nodsb, switch-sb-dmb'
        cas = [i.addr for i in g.insns if self.is_cas(i)]
        ttbr = [i.addr for i in g.insns if self.is_ttbr(i)]
        if not cas or not ttbr:
            self.verdict(False, 'switch-sb', lit, f'{g.name}: no CAS of active_cpu or no '
                         'TTBR0_EL1 write (bl cpu_do_switch_mm, msr ttbr0_el1) found')
            return
        seen, stop = g.walk(cas, any_dsb)
        bad = sorted(a for a in seen if a in ttbr)
        if bad:
            self.verdict(False, 'switch-sb', lit, f'{g.name}: a path from the CAS of '
                         f'active_cpu ({hex(cas[0])}) reaches the TTBR0_EL1 write at '
                         f'{hex(bad[0])} with no DSB')
            return
        kinds = sorted({g.at[a].args for a in stop})
        if not any(k in DSB_STORE for k in kinds):
            self.verdict(False, 'switch-sb', lit, f'{g.name}: after the CAS of active_cpu '
                         f'only DSB {"/".join(kinds).upper()}: nothing completes the mark '
                         'before the walks')
            return
        self.verdict(True, 'switch-sb', lit, f'{g.name}: CAS of active_cpu '
                     f'({", ".join(hex(a) for a in cas)}) -> DSB '
                     f'{"/".join(kinds).upper()} ({", ".join(hex(a) for a in sorted(stop))}) '
                     f'-> TTBR0_EL1 write ({hex(ttbr[0])}) on every path')

    def switch_rwc(self, g):
        lit = 'switch-rwc, switch-rwc-nodsb, switch-rwc-ishst'
        loads = [i.addr for i in g.insns if self.is_load(i)]
        ttbr = {i.addr for i in g.insns if self.is_ttbr(i)}
        if not loads or not ttbr:
            self.verdict(False, 'switch-rwc', lit, f'{g.name}: no read of active_cpu or no '
                         'TTBR0_EL1 write found')
            return
        skip = set()
        for ld in loads:
            br = g.first_cond_after(ld)
            if br is None:
                self.verdict(False, 'switch-rwc', lit, f'{g.name}: no conditional branch '
                             f'after the read of active_cpu at {hex(ld)} (early return)')
                return
            early = [t for t in g.succ[br.addr] if t is not None and
                     not any(self.is_cas(g.at[a]) for a in g.walk([br.addr], lambda i: False,
                             {(br.addr, u) for u in g.succ[br.addr] if u != t})[0] if a)]
            if len(early) != 1:
                self.verdict(False, 'switch-rwc', lit, f'{g.name}: the branch at '
                             f'{hex(br.addr)} after the read of active_cpu has '
                             f'{len(early)} successors that store nothing, not one '
                             '(the early return)')
                return
            skip.add((br.addr, early[0]))
        seen, stop = g.walk(loads, lambda i: self.is_cas(i) or dsb(DSB_LOAD)(i), skip)
        bad = sorted(a for a in seen if a in ttbr)
        found = sorted(a for a in stop if g.at[a].op == 'dsb')
        wrong = sorted({str(g.at[a]) for a in seen if a is not None and g.at[a].op in ('dsb', 'dmb')})
        if bad:
            self.verdict(False, 'switch-rwc', lit, f'{g.name}: a path from the read of '
                         f'active_cpu ({hex(loads[0])}) that stores nothing reaches the '
                         f'TTBR0_EL1 write at {hex(bad[0])} without DSB ISHLD/ISH'
                         + (f' (only {", ".join(wrong).upper()})' if wrong else ''))
            return
        self.verdict(True, 'switch-rwc', lit, f'{g.name}: read of active_cpu '
                     f'({hex(loads[0])}), no store -> '
                     f'{", ".join(str(g.at[a]).upper() + " (" + hex(a) + ")" for a in found)}'
                     ' -> TTBR0_EL1 write on every path but the early return')

    def switch_isb(self, ctx):
        lit = 'switch-sb-noisb'
        # cpu_set_reserved_ttbr0_nosync() (out of line with some configs)
        # installs the reserved tables, which map nothing, and leaves the
        # ISB to its caller's next TTBR0_EL1 write.
        fns = [f for f in ctx.funcs if 'reserved_ttbr0' not in f and
               any(i.op == 'msr' and i.args.startswith('ttbr0_el1') for i in ctx.funcs[f])]
        if 'cpu_do_switch_mm' not in fns:
            self.verdict(False, 'switch-isb', lit, f'no TTBR0_EL1 write in cpu_do_switch_mm '
                         f'in {CONTEXT}')
            return
        for f in fns:
            g = Graph(ctx, f)
            w = [i.addr for i in g.insns if i.op == 'msr' and i.args.startswith('ttbr0_el1')]
            seen, _ = g.walk(w, lambda i: i.op == 'isb')
            out = sorted((a for a in seen if a is None or g.at[a].op in ('ret', 'bl', 'blr')),
                         key=lambda a: -1 if a is None else a)
            if out:
                where = 'a branch out' if out[0] is None else f'{g.at[out[0]]} at {hex(out[0])}'
                self.verdict(False, 'switch-isb', lit, f'{f}: a path from the TTBR0_EL1 '
                             f'write reaches {where} without ISB')
                return
        self.verdict(True, 'switch-isb', lit, f'{", ".join(fns)}: every TTBR0_EL1 write '
                     'is followed by an ISB on every path')

    def rollover_wmb(self, ctx):
        lit = 'rollover, rollover-nowmb'
        done = []
        for f in ctx.funcs:
            if f == 'arm64_mm_context_get':
                continue
            g = Graph(ctx, f)
            st = [i.addr for i in g.insns if self.is_store(i)]
            if not st:
                continue
            seen, stop = g.walk(st, lambda i: (i.op, i.args) in WMB or i.op == 'dsb')
            bad = sorted((a for a in seen if a is None or self.is_id_store(g.at[a]) or
                          g.at[a].op == 'ret'), key=lambda a: -1 if a is None else a)
            if bad:
                where = 'a branch out' if bad[0] is None else f'{g.at[bad[0]]} at {hex(bad[0])}'
                self.verdict(False, 'rollover-wmb', lit, f'{f}: a path from the store to '
                             f'active_cpu at {hex(st[0])} reaches {where} without '
                             'DMB ISHST (smp_wmb())')
                return
            done.append(f'{f}: store ({", ".join(hex(a) for a in st)}) -> '
                        f'{"/".join(sorted({str(g.at[a]).upper() for a in stop}))}')
        if not done:
            self.verdict(False, 'rollover-wmb', lit, f'no store to active_cpu in {CONTEXT} '
                         '(set_active_cpu_new_asid())')
            return
        self.verdict(True, 'rollover-wmb', lit, '; '.join(done) +
                     ' before the new context.id is published, on every path')

    def rollover_acquire(self, g):
        lit = 'rollover, rollover-noacquire'
        acq = [i.addr for i in g.insns if i.op in ('ldar', 'ldapr') and i.args.startswith('x')]
        seen, _ = g.walk([g.entry()], lambda i: i.addr in acq)
        if g.entry() in acq:
            seen = set()
        bad = sorted(a for a in seen | {g.entry()} if a is not None and
                     (self.is_load(g.at[a]) or self.is_cas(g.at[a])) and a not in acq)
        if not acq or bad:
            self.verdict(False, 'rollover-acquire', lit, f'{g.name}: the read of active_cpu '
                         f'at {hex(bad[0]) if bad else "?"} is reached without an acquire '
                         'load (LDAR) of context.id')
            return
        self.verdict(True, 'rollover-acquire', lit, f'{g.name}: LDAR of context.id '
                     f'({", ".join(hex(a) for a in acq)}) before every access to active_cpu')

    def pin_dsb(self):
        lit = 'none: the switch-sb shape, for an agent'
        g = self.graph(CONTEXT, 'arm64_mm_context_get')
        st = [i.addr for i in g.insns if self.is_store(i)] if g else []
        if not st:
            self.verdict(False, 'pin-dsb', lit, 'no store to active_cpu in '
                         'arm64_mm_context_get()')
            return
        seen, stop = g.walk(st, dsb(DSB_STORE))
        bad = [a for a in seen if a is None or g.at[a].op in ('ret', 'bl')]
        self.verdict(not bad, 'pin-dsb', lit, f'{g.name}: store to active_cpu '
                     f'({hex(st[0])}) ' + ('is followed by DSB ISH on every path' if not bad
                                           else 'reaches a return or call without DSB'))

    def flush(self):
        lit = {'flush-dsb': 'switch-sb, flush-sb-nodsb, flush-sb-ishld',
               'flush-look': 'switch-sb'}
        res: dict[str, list[str]] = {'flush-dsb': [], 'flush-look': []}
        bad: dict[str, list[str]] = {'flush-dsb': [], 'flush-look': []}
        for rel, pat in FLUSH:
            o = self.obj(rel)
            names = [f for f in o.named(pat)
                     if any(self.is_local_tlbi(i) for i in o.funcs[f])]
            if not names:
                for k in bad:
                    bad[k].append(f'no {pat} with a local TLBI in {rel}')
                continue
            for f in names:
                g = Graph(o, f)
                for k, why in self.flush_paths(g).items():
                    (bad if why else res)[k].append(why or f)
        for k in ('flush-dsb', 'flush-look'):
            if bad[k]:
                self.verdict(False, k, lit[k], '; '.join(bad[k]))
            else:
                what = ('DSB ISHST, then a read of active_cpu' if k == 'flush-dsb'
                        else 'read of active_cpu after the last DSB')
                self.verdict(True, k, lit[k], f'{what} before every local TLBI in '
                             f'{", ".join(res[k])}')

    def flush_paths(self, g):
        """State search from the entry: s 0 nothing, 1 a store-completing
        DSB, 2 such a DSB then a read of active_cpu; t 1 if active_cpu was
        read since the last DSB."""
        start = (g.entry(), 0, 0)
        seen, todo = set(), [start]
        why: dict[str, str | None] = {'flush-dsb': None, 'flush-look': None}
        while todo:
            a, s, t = todo.pop()
            if (a, s, t) in seen:
                continue
            seen.add((a, s, t))
            i = g.at[a]
            if self.is_load(i):
                t = 1
                if s == 1:
                    s = 2
            elif i.op == 'dsb':
                t = 0
                if s == 0 and i.args in DSB_STORE:
                    s = 1
            if self.is_local_tlbi(i):
                if s < 2 and not why['flush-dsb']:
                    why['flush-dsb'] = (f'{g.name}: {i} at {hex(a)} is reached without a DSB '
                                        'ISHST/ISH followed by a read of active_cpu')
                if not t and not why['flush-look']:
                    why['flush-look'] = (f'{g.name}: {i} at {hex(a)} is reached with no read '
                                         'of active_cpu after the last DSB')
            todo += [(n, s, t) for n in g.succ[a] if n is not None]
        return why

    @staticmethod
    def exits(g, seen):
        return sorted((a for a in seen if a is None or g.at[a].op == 'ret'),
                      key=lambda a: -1 if a is None else a)

    def local_complete(self):
        lit = 'none: completion of the local TLBIs'
        done, bad = [], []
        for rel, pat in FLUSH:
            o = self.obj(rel)
            for f in o.named(pat):
                g = Graph(o, f)
                tl = [i.addr for i in g.insns if self.is_local_tlbi(i)]
                if not tl:
                    continue
                seen, _ = g.walk(tl, any_dsb)
                out = self.exits(g, seen)
                if out:
                    where = 'a branch out' if out[0] is None else f'ret at {hex(out[0])}'
                    bad.append(f'{f}: a path from a local TLBI ({hex(tl[0])}) reaches '
                               f'{where} without a DSB')
                else:
                    done.append(f)
        if not done and not bad:
            bad.append('no flush function with a local TLBI')
        self.verdict(not bad, 'local-complete', lit, '; '.join(bad) if bad else
                     f'every local TLBI is followed by a DSB on every path in {", ".join(done)}')

    def batch_complete(self):
        lit = 'none: completion of batched TLBIs'
        rel, fn = BATCH
        g = self.graph(rel, fn)
        if g is None:
            self.verdict(False, 'batch-complete', lit, f'no {fn} in {rel}')
            return

        def is_store(i):
            return re.match(r'^stu?r[bh]?$|^stp$', i.op) is not None and \
                not re.search(r'\[sp\b', i.args)
        # state search: (addr, stored, dsb)
        todo, seen, bad, dsbs = [(g.entry(), False, False)], set(), None, set()
        while todo and bad is None:
            a, st, d = todo.pop()
            if (a, st, d) in seen:
                continue
            seen.add((a, st, d))
            i = g.at[a]
            if i.op == 'dsb':
                d = True
                dsbs.add(f'DSB {i.args.upper()}')
            if is_store(i):
                st = True
            nxt = g.succ[a]
            if (i.op == 'ret' or None in nxt) and st and not d:
                bad = f'{fn}: a path stores ({i} at {hex(a)} or before) and returns without a DSB'
            todo += [(n, st, d) for n in nxt if n is not None]
        if not dsbs and bad is None:
            bad = f'{fn}: no DSB at all'
        self.verdict(bad is None, 'batch-complete', lit, bad or
                     f'{fn}: every path that completes the batch passes a DSB '
                     f'({", ".join(sorted(dsbs))})')

    def walk_op(self):
        lit = 'none: the op that also drops walk caches'
        rel, pat = FREED
        o = self.obj(rel)
        names = [f for f in o.named(pat) if any(self.is_local_tlbi(i) for i in o.funcs[f])]
        if not names:
            self.verdict(False, 'walk-op', lit, f'no {pat} with a local TLBI in {rel}')
            return
        bad = [f'{f}: {i} at {hex(i.addr)}' for f in names for i in o.funcs[f]
               if i.op == 'tlbi' and i.args.split(',')[0] in LEAF_TLBI]
        ops = sorted({i.args.split(',')[0].upper() for f in names for i in o.funcs[f]
                      if self.is_local_tlbi(i)})
        self.verdict(not bad, 'walk-op', lit, ('last-level-only local TLBI after tables '
                     'were freed: ' + '; '.join(bad)) if bad else
                     f'{", ".join(names)}: local TLBIs {"/".join(ops)}, none last-level only')


def offsets(cmd_dir):
    """offsetof(struct mm_struct, context.active_cpu / context.id), from a
    probe compiled as kbuild compiled context.o."""
    with open(os.path.join(cmd_dir, 'arch/arm64/mm/.context.o.cmd')) as f:
        cmd = f.readline().split(':=', 1)[1].strip()
    args = shlex.split(cmd)
    args = [a for a in args if not a.startswith('-Wp,-MMD')]
    cut = args.index('-c')
    args = args[:cut] + ['-S', '-o', '-', '-x', 'c', '-']
    probe = ('#include <linux/mm_types.h>\n#include <linux/stddef.h>\n'
             'void barrier_probe(void);\nvoid barrier_probe(void)\n{\n'
             '\tasm volatile("@@active_cpu %0" :: "i" (offsetof(struct mm_struct, context.active_cpu)));\n'
             '\tasm volatile("@@id %0" :: "i" (offsetof(struct mm_struct, context.id)));\n}\n')
    out = subprocess.run(args, input=probe, capture_output=True, text=True,
                         cwd=cmd_dir, check=True).stdout
    return {m.group(1): int(m.group(2)) for m in re.finditer(r'@@(\w+) #?(\d+)', out)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('objdir')
    ap.add_argument('--cmd-dir')
    ap.add_argument('--offsets', help='active_cpu=N,id=M')
    a = ap.parse_args()
    try:
        if a.offsets:
            off = {k: int(v) for k, v in (p.split('=') for p in a.offsets.split(','))}
        else:
            off = offsets(a.cmd_dir or a.objdir)
        lines = Checker(a.objdir, off).run()
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError) as e:
        lines = [f'FAIL barrier.check -- {e}', 'counts 0 1 0']
    print('\n'.join(lines))
    return 1 if not lines[-1].startswith('counts') or lines[-1].split()[2] != '0' else 0


if __name__ == '__main__':
    sys.exit(main())
