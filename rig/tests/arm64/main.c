/*
 * arm64 self-test of the tagged-TLB rig: ASIDs, TLBI by ASID/VA/range,
 * local versus broadcast (IS) TLBI seen from a second CPU.
 *
 * Each case maps a test page to page A, reads it under ASID 1 (which
 * fills the TLB), rewrites the descriptor to page B WITHOUT a TLBI, does
 * the operation under test and reads again under ASID 1: A means the old
 * translation was kept, B that it was dropped.  Cases whose name ends in
 * "(stale)" expect A; each switches ASID between the fill and the read,
 * which stock TCG flushes on, so they fail on stock QEMU.
 *
 * Power off: PSCI SYSTEM_OFF through HVC.
 */
#include "../common/tap.h"

#define UART	0x09000000UL		/* PL011 data register */
#define VA_X	0x80000000UL		/* nG = 1 */
#define VA_G	0x80001000UL		/* nG = 0: global */

#define PSCI_CPU_ON	0xC4000003UL
#define PSCI_SYSTEM_OFF	0x84000008UL

/* stage 1 descriptors, 4 KiB granule */
#define D_TABLE		3UL
#define D_BLOCK		1UL
#define D_PAGE		3UL
#define D_DEVICE	(0UL << 2)	/* MAIR attr 0 */
#define D_NORMAL	(1UL << 2)	/* MAIR attr 1 */
#define D_ISH		(3UL << 8)
#define D_AF		(1UL << 10)
#define D_NG		(1UL << 11)
#define D_XN		(3UL << 53)	/* PXN | UXN */

#define TCR_A1		(1UL << 22)
#define TCR_EPD1	(1UL << 23)
/* 39-bit VAs, 4 KiB granule, WB-WA inner shareable walks, 40-bit PAs */
#define TCR_BASE	(25UL | 1UL << 8 | 1UL << 10 | 3UL << 12 | 25UL << 16 | \
			 TCR_EPD1 | 2UL << 32)

#define PAGE __attribute__((aligned(4096)))

static u64 l1[512] PAGE, l2x[512] PAGE, l3x[512] PAGE;
static u64 page_a[512] PAGE, page_b[512] PAGE;

extern char secondary_entry[];

#define msr(r, v)	asm volatile("msr " #r ", %0" : : "r"((u64)(v)) : "memory")
#define mrs(r)		({ u64 v_; asm volatile("mrs %0, " #r : "=r"(v_)); v_; })
#define isb()		asm volatile("isb" : : : "memory")
#define dsb(o)		asm volatile("dsb " #o : : : "memory")
#define tlbi(op, v)	asm volatile("tlbi " #op ", %0" : : "r"((u64)(v)) : "memory")
#define tlbi_all(op)	asm volatile("tlbi " #op : : : "memory")

/* TLBI operands (Arm ARM D8.13 / C5.5 "TLB maintenance instructions") */
#define OP_ASID(a)	((u64)(a) << 48)
#define OP_VA(a, va)	(OP_ASID(a) | (va) >> 12)
/* range: TG = 4 KiB, SCALE 0, NUM 0: (0 + 1) * 2^1 = 2 pages from va */
#define OP_RANGE(a, va)	(OP_ASID(a) | 1UL << 46 | ((va) >> 12 & 0x1fffffffffUL))

static inline u64 rd(u64 va)
{
	return *(volatile u64 *)va;
}

void arch_putc(char c)
{
	*(volatile u32 *)UART = c;
}

static u64 psci(u64 fn, u64 a1, u64 a2, u64 a3)
{
	register u64 x0 asm("x0") = fn, x1 asm("x1") = a1;
	register u64 x2 asm("x2") = a2, x3 asm("x3") = a3;

	asm volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : :
		     "memory", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
		     "x11", "x12", "x13", "x14", "x15", "x16", "x17");
	return x0;
}

static void __attribute__((noreturn)) power_off(void)
{
	psci(PSCI_SYSTEM_OFF, 0, 0, 0);
	for (;;)
		asm volatile("wfe");
}

void __attribute__((noreturn)) arm_trap(u64 vec, u64 esr, u64 elr, u64 far)
{
	tap_puts("Bail out! exception vector ");
	tap_dec(vec);
	tap_puts(" esr ");
	tap_hex(esr);
	tap_puts(" elr ");
	tap_hex(elr);
	tap_puts(" far ");
	tap_hex(far);
	tap_puts("\n");
	power_off();
}

/* ---- translation ---- */

static void build_tables(void)
{
	l1[0] = 0x00000000UL | D_BLOCK | D_DEVICE | D_AF | D_XN;   /* UART, GIC */
	l1[1] = 0x40000000UL | D_BLOCK | D_NORMAL | D_ISH | D_AF;  /* RAM */
	l1[2] = (u64)l2x | D_TABLE;				    /* X, G */
	l2x[0] = (u64)l3x | D_TABLE;
}

/* Both CPUs: TTBR0 walks, ASID from TTBR1 (TCR.A1 = 1, as Linux). */
static void mmu_on(void)
{
	msr(mair_el1, 0xff00);			/* attr 0 Device, 1 WB */
	msr(tcr_el1, TCR_BASE | TCR_A1);
	msr(ttbr0_el1, (u64)l1);
	msr(ttbr1_el1, 0);
	isb();
	tlbi_all(vmalle1);
	dsb(nsh);
	isb();
	msr(sctlr_el1, (mrs(sctlr_el1) & ~2UL) | 1UL | 1UL << 2 | 1UL << 12);
	isb();
}

static void asid(u64 a)			/* TCR.A1 = 1: TTBR1_EL1.ASID */
{
	msr(ttbr1_el1, OP_ASID(a));
	isb();
}

static void map(u64 va, u64 *page)	/* no TLBI */
{
	l3x[(va >> 12) & 511] = (u64)page | D_PAGE | D_NORMAL | D_ISH | D_AF |
				(va == VA_G ? 0 : D_NG);
	dsb(ishst);
}

static void sync_local(void)
{
	dsb(nsh);
	isb();
}

/* Start of a one-CPU case: va -> A, read under ASID 1, va -> B, no TLBI. */
static void begin(u64 va)
{
	asid(1);
	map(va, page_a);
	tlbi_all(vmalle1);
	sync_local();
	rd(va);
	map(va, page_b);
}

static void local_cases(int range)
{
	u64 v;

	begin(VA_X); asid(2); asid(1);
	tap_check("asid: ASID 1's entry kept across a switch to ASID 2 and back (stale)", rd(VA_X), MARK_A);

	/* Each TLBI runs under ASID 2, so that the read under ASID 1 comes
	 * after a switch. */
	begin(VA_X); asid(2); tlbi(aside1, OP_ASID(2)); sync_local(); asid(1);
	tap_check("tlbi aside1: ASID 2 keeps ASID 1's entry (stale)", rd(VA_X), MARK_A);
	begin(VA_X); asid(2); tlbi(aside1, OP_ASID(1)); sync_local(); asid(1);
	tap_check("tlbi aside1: ASID 1, issued under ASID 2, drops it", rd(VA_X), MARK_B);
	begin(VA_X); tlbi(aside1, OP_ASID(1)); sync_local();
	tap_check("tlbi aside1: ASID 1, issued under ASID 1, drops it", rd(VA_X), MARK_B);
	begin(VA_X); asid(2); tlbi(vae1, OP_VA(2, VA_X)); sync_local(); asid(1);
	tap_check("tlbi vae1: (ASID 2, X) keeps ASID 1's entry (stale)", rd(VA_X), MARK_A);
	begin(VA_X); asid(2); tlbi(vae1, OP_VA(1, VA_X)); sync_local(); asid(1);
	tap_check("tlbi vae1: (ASID 1, X) drops it", rd(VA_X), MARK_B);
	begin(VA_X); asid(2); tlbi(vale1, OP_VA(1, VA_X)); sync_local(); asid(1);
	tap_check("tlbi vale1: (ASID 1, X) drops it", rd(VA_X), MARK_B);
	begin(VA_X); asid(2); tlbi(vaae1, OP_VA(0, VA_X)); sync_local(); asid(1);
	tap_check("tlbi vaae1: X (all ASIDs) drops it", rd(VA_X), MARK_B);
	begin(VA_X); asid(2); tlbi_all(vmalle1); sync_local(); asid(1);
	tap_check("tlbi vmalle1: drops it", rd(VA_X), MARK_B);
	if (range) {
		begin(VA_X); asid(2); tlbi(rvae1, OP_RANGE(2, VA_X)); sync_local(); asid(1);
		tap_check("tlbi rvae1: (ASID 2, X..X+8K) keeps ASID 1's entry (stale)", rd(VA_X), MARK_A);
		begin(VA_X); asid(2); tlbi(rvae1, OP_RANGE(1, VA_X)); sync_local(); asid(1);
		tap_check("tlbi rvae1: (ASID 1, X..X+8K) drops it", rd(VA_X), MARK_B);
	} else {
		tap_skip("tlbi rvae1: (ASID 2, X..X+8K) keeps ASID 1's entry (stale)", "no FEAT_TLBIRANGE");
		tap_skip("tlbi rvae1: (ASID 1, X..X+8K) drops it", "no FEAT_TLBIRANGE");
	}

	begin(VA_G); asid(2);
	tap_check("global: nG=0 entry filled under ASID 1 hits under ASID 2 (stale)", rd(VA_G), MARK_A);
	begin(VA_G); asid(2); tlbi(aside1, OP_ASID(1)); sync_local(); asid(1);
	tap_check("global: kept by TLBI ASIDE1 of ASID 1 (stale)", rd(VA_G), MARK_A);
	begin(VA_G); asid(2); tlbi(vae1, OP_VA(2, VA_G)); sync_local(); asid(1);
	tap_check("global: dropped by TLBI VAE1 of another ASID (2)", rd(VA_G), MARK_B);
	begin(VA_G); asid(2); tlbi(vae1, OP_VA(1, VA_G)); sync_local(); asid(1);
	tap_check("global: dropped by TLBI VAE1 of ASID 1", rd(VA_G), MARK_B);

	/* TCR.A1 = 0: the ASID is TTBR0's.  TCR fields may be held in the
	 * TLB, so a TCR change is followed by TLBI VMALLE1. */
	msr(tcr_el1, TCR_BASE);
	msr(ttbr1_el1, OP_ASID(7));
	msr(ttbr0_el1, (u64)l1 | OP_ASID(1));
	isb();
	map(VA_X, page_a);
	tlbi_all(vmalle1);
	sync_local();
	rd(VA_X);
	map(VA_X, page_b);
	msr(ttbr0_el1, (u64)l1 | OP_ASID(2));
	isb();
	msr(ttbr0_el1, (u64)l1 | OP_ASID(1));
	isb();
	v = rd(VA_X);
	tap_check("tcr.a1=0: ASID 1 (TTBR0) kept across a TTBR0 switch to ASID 2 and back (stale)", v, MARK_A);
	msr(ttbr1_el1, OP_ASID(8));
	isb();
	tap_check("tcr.a1=0: TTBR1.ASID is not the tag: changing it keeps the entry (stale)", rd(VA_X), MARK_A);
	tlbi(aside1, OP_ASID(1));
	sync_local();
	tap_check("tcr.a1=0: TLBI ASIDE1 of ASID 1 drops it", rd(VA_X), MARK_B);
	map(VA_X, page_a);

	msr(tcr_el1, TCR_BASE | TCR_A1);
	msr(ttbr0_el1, (u64)l1);
	msr(ttbr1_el1, 0);
	isb();
	tlbi_all(vmalle1);
	sync_local();
}

/* ---- CPU 1: a mailbox served in a loop ---- */

enum { C_NOP, C_ASID, C_READ, C_READ_AFTER_GO };
#define TIMEOUT 0xdead00000000dead

static struct { u64 seq, ack, cmd, arg, val, go; } mbox;

void secondary_main(void)
{
	u64 seen = 0, s;

	mmu_on();
	for (;;) {
		while ((s = __atomic_load_n(&mbox.seq, __ATOMIC_ACQUIRE)) == seen)
			;
		seen = s;
		if (mbox.cmd == C_ASID)
			asid(mbox.arg);
		else if (mbox.cmd == C_READ)
			mbox.val = rd(mbox.arg);
		else if (mbox.cmd == C_READ_AFTER_GO) {
			/* ack first (CPU 0 waits for it), then read right
			 * after seeing go, with no round trip between */
			__atomic_store_n(&mbox.ack, s, __ATOMIC_RELEASE);
			while (!__atomic_load_n(&mbox.go, __ATOMIC_ACQUIRE))
				;
			mbox.val = rd(mbox.arg);
			__atomic_store_n(&mbox.go, 0, __ATOMIC_RELEASE);
			continue;
		}
		__atomic_store_n(&mbox.ack, s, __ATOMIC_RELEASE);
	}
}

/* CPU 0: have CPU 1 do cmd; TIMEOUT if it does not answer within 2 s. */
static u64 cpu1(u64 cmd, u64 arg)
{
	u64 s = mbox.seq + 1, end;

	mbox.cmd = cmd;
	mbox.arg = arg;
	__atomic_store_n(&mbox.seq, s, __ATOMIC_RELEASE);
	end = mrs(cntvct_el0) + 2 * mrs(cntfrq_el0);
	while (__atomic_load_n(&mbox.ack, __ATOMIC_ACQUIRE) != s)
		if (mrs(cntvct_el0) > end)
			return TIMEOUT;
	return mbox.val;
}

/*
 * One two-CPU case: CPU 1 fills X -> A under ASID 1 and moves to ASID 2;
 * CPU 0 rewrites X -> B and runs op (then DSB ISH); CPU 1 returns to
 * ASID 1 and reads X.
 */
enum { LOCAL_ASIDE1, IS_ASIDE1, LOCAL_VAE1, IS_VAE1, LOCAL_RVAE1, IS_RVAE1,
       LOCAL_VMALLE1, IS_VMALLE1 };

static void smp_case(const char *name, int op, u64 want)
{
	u64 v;

	map(VA_X, page_a);
	tlbi_all(vmalle1is);
	dsb(ish);
	isb();
	cpu1(C_ASID, 1);
	v = cpu1(C_READ, VA_X);
	if (v != MARK_A) {
		tap_fail(name, "CPU 1's fill read", v);
		return;
	}
	cpu1(C_ASID, 2);
	map(VA_X, page_b);
	switch (op) {
	case LOCAL_ASIDE1:  tlbi(aside1, OP_ASID(1)); break;
	case IS_ASIDE1:     tlbi(aside1is, OP_ASID(1)); break;
	case LOCAL_VAE1:    tlbi(vae1, OP_VA(1, VA_X)); break;
	case IS_VAE1:       tlbi(vae1is, OP_VA(1, VA_X)); break;
	case LOCAL_RVAE1:   tlbi(rvae1, OP_RANGE(1, VA_X)); break;
	case IS_RVAE1:      tlbi(rvae1is, OP_RANGE(1, VA_X)); break;
	case LOCAL_VMALLE1: tlbi_all(vmalle1); break;
	case IS_VMALLE1:    tlbi_all(vmalle1is); break;
	}
	dsb(ish);
	isb();
	cpu1(C_ASID, 1);
	v = cpu1(C_READ, VA_X);
	if (v == TIMEOUT)
		tap_fail(name, "CPU 1 did not answer:", v);
	else
		tap_check(name, v, want);
}

/*
 * CPU 1 stays in ASID 1 with X -> A cached and spins on a flag; CPU 0
 * rewrites X -> B, TLBI VAE1IS, DSB ISH, then sets the flag; CPU 1 reads
 * X as soon as it sees it.  Once CPU 0's DSB has completed, the broadcast
 * invalidation is complete on CPU 1 too: it must read B, every round.
 * (Stock TCG passes: its IS flush is synchronous.)
 */
static void smp_tight_case(const char *name, int rounds)
{
	int i, stale = 0;
	u64 end;

	cpu1(C_ASID, 1);
	for (i = 0; i < rounds; i++) {
		map(VA_X, page_a);
		tlbi(vae1is, OP_VA(1, VA_X));
		dsb(ish);
		isb();
		if (cpu1(C_READ, VA_X) != MARK_A ||
		    cpu1(C_READ_AFTER_GO, VA_X) == TIMEOUT) {
			tap_fail(name, "CPU 1's fill failed in round", i);
			return;
		}
		map(VA_X, page_b);
		tlbi(vae1is, OP_VA(1, VA_X));
		dsb(ish);
		__atomic_store_n(&mbox.go, 1, __ATOMIC_RELEASE);
		end = mrs(cntvct_el0) + 2 * mrs(cntfrq_el0);
		while (__atomic_load_n(&mbox.go, __ATOMIC_ACQUIRE))
			if (mrs(cntvct_el0) > end) {
				tap_fail(name, "CPU 1 did not answer in round", i);
				return;
			}
		if (mbox.val != MARK_B)
			stale++;
	}
	if (stale)
		tap_fail(name, "rounds that read A (stale):", stale);
	else
		tap_check(name, MARK_B, MARK_B);
}

static void smp_cases(int range)
{
	static const char *const names[] = {
		"smp: CPU 0's local TLBI ASIDE1 leaves CPU 1's entry (stale)",
		"smp: CPU 0's TLBI ASIDE1IS drops CPU 1's entry",
		"smp: CPU 0's local TLBI VAE1 leaves CPU 1's entry (stale)",
		"smp: CPU 0's TLBI VAE1IS drops CPU 1's entry",
		"smp: CPU 0's local TLBI RVAE1 leaves CPU 1's entry (stale)",
		"smp: CPU 0's TLBI RVAE1IS drops CPU 1's entry",
		"smp: CPU 0's local TLBI VMALLE1 leaves CPU 1's entry (stale)",
		"smp: CPU 0's TLBI VMALLE1IS drops CPU 1's entry",
	};
	static const char tight[] = "smp: TLBI VAE1IS + DSB ISH complete on "
		"CPU 1 before CPU 0's next store (100 rounds)";
	u64 r;
	int i;

	r = psci(PSCI_CPU_ON, 1, (u64)secondary_entry, 0);
	if (r == 0)
		r = cpu1(C_NOP, 0);
	for (i = 0; i < 8; i++) {
		if (r != 0)
			tap_fail(names[i], "CPU 1 not up: PSCI CPU_ON or mailbox", r);
		else if ((i == LOCAL_RVAE1 || i == IS_RVAE1) && !range)
			tap_skip(names[i], "no FEAT_TLBIRANGE");
		else
			smp_case(names[i], i, i % 2 ? MARK_B : MARK_A);
	}
	if (r != 0)
		tap_fail(tight, "CPU 1 not up: PSCI CPU_ON or mailbox", r);
	else
		smp_tight_case(tight, 100);
}

/* ---- main ---- */

void main(void)
{
	u64 isar0 = mrs(id_aa64isar0_el1);
	int range = (isar0 >> 56 & 15) >= 2;
	unsigned i;

	for (i = 0; i < 512; i++) {
		page_a[i] = MARK_A;
		page_b[i] = MARK_B;
	}
	build_tables();
	mmu_on();

	tap_puts("# rig-selftest arm64\n");
	tap_note("MIDR_EL1", mrs(midr_el1));
	tap_note("ID_AA64ISAR0_EL1 (TLB [59:56]: 2 = FEAT_TLBIRANGE)", isar0);
	tap_note("ID_AA64MMFR0_EL1 (ASIDBits [7:4])", mrs(id_aa64mmfr0_el1));

	local_cases(range);
	smp_cases(range);
	tap_summary();
	power_off();
}
