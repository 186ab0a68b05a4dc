/*
 * x86_64 self-test of the tagged-TLB rig: PCID, INVPCID, INVLPG, SVM ASIDs,
 * INVLPGB and TLBSYNC.
 *
 * Each case maps a test page to page A, reads it (which fills the TLB),
 * rewrites the PTE to page B WITHOUT invalidating, does the operation
 * under test and reads again: A means the old translation was kept, B
 * that it was dropped.  Cases whose name ends in "(stale)" expect A; each
 * of them puts a context switch (MOV CR3, VMRUN) between the fill and the
 * read, which stock TCG flushes on, so they fail on stock QEMU.
 *
 * Power off: isa-debug-exit at port 0xf4 (QEMU exits with status 1 when
 * every case passed, 3 otherwise; see README.md).
 */
#include "../common/tap.h"

#define VA_BASE	0x8000000000UL		/* PML4 slot 1: the test pages */
#define VA_X	(VA_BASE + 0x0000)	/* non-global */
#define VA_G	(VA_BASE + 0x1000)	/* global (PTE.G) */
#define VA_H	(VA_BASE + 0x2000)	/* the host's page in the SVM cases */
#define GPA_Q	0x40000000UL		/* NPT guest: X's guest-physical page */
#define VA_M0	(VA_BASE + 0x200000)	/* 2 MiB pages (h_pd[1], h_pd[2]) */
#define VA_M1	(VA_BASE + 0x400000)
#define PA_MA	0x2000000UL		/* 2 MiB-aligned frames: A... */
#define PA_MB	0x2200000UL		/* ... and B at their start */

#define PTE_P	0x001UL
#define PTE_W	0x002UL
#define PTE_U	0x004UL
#define PTE_A	0x020UL
#define PTE_D	0x040UL
#define PTE_PS	0x080UL
#define PTE_G	0x100UL
#define PTE	(PTE_P | PTE_W | PTE_A | PTE_D)
#define NPTE	(PTE_P | PTE_W | PTE_U)		/* nested walks are user */

#define CR4_PAE		(1UL << 5)
#define CR4_PGE		(1UL << 7)
#define CR4_PCIDE	(1UL << 17)
#define MSR_EFER	0xC0000080
#define EFER_LME	(1UL << 8)
#define EFER_LMA	(1UL << 10)
#define EFER_SVME	(1UL << 12)
#define MSR_VM_HSAVE_PA	0xC0010117

#define DEBUG_EXIT_PORT	0xf4

#define PAGE __attribute__((aligned(4096)))

extern u64 boot_pml4[512], boot_pdpt[512];
extern char trap_stubs[], guest_entry[];

static u64 page_a[512] PAGE, page_b[512] PAGE;
/* host: PML4[1] -> h_pdpt -> h_pd -> h_pt (X, G, H) */
static u64 h_pdpt[512] PAGE, h_pd[512] PAGE, h_pt[512] PAGE;
/* SVM guest without NPT: its own CR3, gPA == hPA, X -> A or B */
static u64 g_pml4[512] PAGE, g_pdpt[512] PAGE, g_pd[512] PAGE, g_pt[512] PAGE;
/* SVM guest with NPT: X -> GPA_Q in its tables; the NPT maps GPA_Q -> A/B */
static u64 n_pml4[512] PAGE, n_pdpt[512] PAGE, n_pd[512] PAGE, n_pt[512] PAGE;
static u64 npt_pml4[512] PAGE, npt_pdpt[512] PAGE, npt_pd0[512] PAGE;
static u64 npt_pdq[512] PAGE, npt_ptq[512] PAGE;
static u8 vmcb[4096] PAGE, hsave[4096] PAGE;
static u64 guest_stack[512] PAGE;

static struct {
	u16 lo, sel;
	u8 ist, type;
	u16 mid;
	u32 hi, zero;
} __attribute__((packed)) idt[32];

/* ---- instructions ---- */

static inline void outb(u16 port, u8 v)
{
	asm volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(u16 port, u32 v)
{
	asm volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline void cpuid(u32 leaf, u32 sub, u32 r[4])
{
	asm volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
		     : "a"(leaf), "c"(sub));
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return lo | (u64)hi << 32;
}

static inline void wrmsr(u32 msr, u64 v)
{
	asm volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

static inline u64 read_cr4(void)
{
	u64 v;

	asm volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void write_cr4(u64 v)
{
	asm volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline void write_cr3(u64 v)
{
	asm volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline void invlpg(u64 va)
{
	asm volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline void invpcid(u64 type, u64 pcid, u64 va)
{
	struct { u64 pcid, va; } __attribute__((aligned(16))) d = { pcid, va };

	asm volatile("invpcid %0, %1" : : "m"(d), "r"(type) : "memory");
}

static inline void invlpga(u64 va, u32 asid)
{
	asm volatile("invlpga %%rax, %%ecx" : : "a"(va), "c"(asid) : "memory");
}

/*
 * INVLPGB (0F 01 FE) and TLBSYNC (0F 01 FF), as Linux's __invlpgb()
 * encodes them: rAX = the address | flags, ECX[15:0] pages after the
 * first, ECX[31] 2 MiB steps, EDX = PCID << 16 | ASID.
 */
#define IB_VA		(1UL << 0)	/* the address in rAX[63:12] is valid */
#define IB_PCID		(1UL << 1)	/* the PCID in EDX[27:16] is valid */
#define IB_ASID		(1UL << 2)	/* the ASID in EDX[15:0] is valid */
#define IB_GLOBAL	(1UL << 3)	/* global entries too */
#define IB_FINAL	(1UL << 4)	/* final translation only */
#define IB_2M		(1U << 31)	/* ECX: 2 MiB steps */

static inline void invlpgb(u64 rax, u32 ecx, u32 edx)
{
	asm volatile(".byte 0x0f, 0x01, 0xfe"
		     : : "a"(rax), "c"(ecx), "d"(edx) : "memory");
}

static inline void tlbsync(void)
{
	asm volatile(".byte 0x0f, 0x01, 0xff" : : : "memory");
}

static inline u64 rd(u64 va)
{
	return *(volatile u64 *)va;
}

void arch_putc(char c)
{
	outb(0x3f8, c);
}

static void __attribute__((noreturn)) power_off(int failed)
{
	outl(DEBUG_EXIT_PORT, failed ? 1 : 0);
	for (;;)
		asm volatile("cli; hlt");
}

void __attribute__((noreturn)) x86_trap(u64 *f)
{
	u64 cr2;

	asm volatile("mov %%cr2, %0" : "=r"(cr2));
	tap_puts("Bail out! exception ");
	tap_dec(f[0]);
	tap_puts(" error ");
	tap_hex(f[1]);
	tap_puts(" rip ");
	tap_hex(f[2]);
	tap_puts(" cr2 ");
	tap_hex(cr2);
	tap_puts("\n");
	power_off(1);
}

static void idt_load(void)
{
	struct { u16 limit; u64 base; } __attribute__((packed)) p;

	p.limit = sizeof(idt) - 1;
	p.base = (u64)idt;
	asm volatile("lidt %0" : : "m"(p));
}

static void idt_init(void)
{
	int i;

	for (i = 0; i < 32; i++) {
		u64 a = (u64)trap_stubs + 16 * i;

		idt[i].lo = a;
		idt[i].sel = 0x08;
		idt[i].type = 0x8E;		/* present, interrupt gate */
		idt[i].mid = a >> 16;
		idt[i].hi = a >> 32;
	}
	idt_load();
}

/* ---- the host's test pages and PCIDs ---- */

static void map(u64 *pt, u64 va, u64 *page, u64 flags)
{
	pt[(va >> 12) & 511] = (u64)page | flags;
}

static void flush_all(void)	/* CR4.PGE 1 -> 0 -> 1: everything goes */
{
	u64 cr4 = read_cr4();

	write_cr4(cr4 & ~CR4_PGE);
	write_cr4(cr4 | CR4_PGE);
}

#define KEEP	1	/* MOV CR3 with bit 63 set: no invalidation */
#define FLUSH	0

static void pcid(u64 p, int keep)
{
	write_cr3((u64)boot_pml4 | p | (u64)keep << 63);
}

/*
 * Start of a PCID case: va -> A, read under PCID 1, then va -> B with no
 * invalidation.  The case's own steps follow.
 */
static void begin(u64 va)
{
	u64 g = va == VA_G ? PTE_G : 0;

	pcid(1, KEEP);
	flush_all();
	map(h_pt, va, page_a, PTE | g);
	rd(va);
	map(h_pt, va, page_b, PTE | g);
}


/* The INVPCID cases, names[9] on: type, PCID and address, what PCID 1 reads. */
struct invpcid_case {
	u64 va, type, pcid, addr, want;
};

static const struct invpcid_case inv[] = {
	{ VA_X, 0, 2, VA_X, MARK_A }, { VA_X, 0, 1, VA_X, MARK_B },
	{ VA_X, 1, 2, 0, MARK_A },    { VA_X, 1, 1, 0, MARK_B },
	{ VA_X, 3, 0, 0, MARK_B },    { VA_X, 2, 0, 0, MARK_B },
	{ VA_G, 0, 1, VA_G, MARK_A }, { VA_G, 1, 1, 0, MARK_A },
	{ VA_G, 3, 0, 0, MARK_A },    { VA_G, 2, 0, 0, MARK_B },
};

/* A CPU feature a run of cases needs is missing: each of them fails. */
static void fail_cases(const char *const *names, int from, int to, const char *why)
{
	int i;

	for (i = from; i < to; i++)
		tap_fail(names[i], why, 0);
}

static void pcid_cases(int have_pcid, int have_invpcid)
{
	static const char *const names[] = {
		"pcid: PCID 1's entry kept across a no-flush switch to PCID 2 and back (stale)",
		"pcid: MOV CR3 to PCID 1 without bit 63 drops PCID 1's entry",
		"pcid: MOV CR3 to PCID 2 without bit 63 keeps PCID 1's entry (stale)",
		"pcid: INVLPG X under PCID 2 keeps PCID 1's entry (stale)",
		"pcid: INVLPG X under PCID 1 drops it",
		"pcid: global entry filled under PCID 1 hits under PCID 2 (stale)",
		"pcid: global entry kept by MOV CR3 without bit 63 (stale)",
		"pcid: global entry dropped by CR4.PGE toggle",
		"pcid: global entry dropped by INVLPG under PCID 2",
		"invpcid: type 0 (PCID 2, X) keeps PCID 1's entry (stale)",
		"invpcid: type 0 (PCID 1, X) drops it",
		"invpcid: type 1 (PCID 2) keeps PCID 1's entry (stale)",
		"invpcid: type 1 (PCID 1) drops it",
		"invpcid: type 3 (all but global) drops PCID 1's entry",
		"invpcid: type 2 (all incl. global) drops PCID 1's entry",
		"invpcid: type 0 (PCID 1, G) keeps the global entry (stale)",
		"invpcid: type 1 (PCID 1) keeps the global entry (stale)",
		"invpcid: type 3 keeps the global entry (stale)",
		"invpcid: type 2 drops the global entry",
	};
	unsigned i;

	if (!have_pcid) {
		fail_cases(names, 0, sizeof(names) / sizeof(names[0]),
			   "no PCID: CPUID.01H:ECX[17] =");
		return;
	}
	write_cr4(read_cr4() | CR4_PCIDE);	/* CR3[11:0] is 0 here */

	begin(VA_X); pcid(2, KEEP); pcid(1, KEEP);
	tap_check(names[0], rd(VA_X), MARK_A);
	begin(VA_X); pcid(2, KEEP); pcid(1, FLUSH);
	tap_check(names[1], rd(VA_X), MARK_B);
	begin(VA_X); pcid(2, FLUSH); pcid(1, KEEP);
	tap_check(names[2], rd(VA_X), MARK_A);
	begin(VA_X); pcid(2, KEEP); invlpg(VA_X); pcid(1, KEEP);
	tap_check(names[3], rd(VA_X), MARK_A);
	begin(VA_X); invlpg(VA_X); pcid(2, KEEP); pcid(1, KEEP);
	tap_check(names[4], rd(VA_X), MARK_B);

	begin(VA_G); pcid(2, KEEP);
	tap_check(names[5], rd(VA_G), MARK_A);
	begin(VA_G); pcid(2, FLUSH); pcid(1, FLUSH);
	tap_check(names[6], rd(VA_G), MARK_A);
	begin(VA_G); pcid(2, KEEP); flush_all(); pcid(1, KEEP);
	tap_check(names[7], rd(VA_G), MARK_B);
	begin(VA_G); pcid(2, KEEP); invlpg(VA_G); pcid(1, KEEP);
	tap_check(names[8], rd(VA_G), MARK_B);

	if (!have_invpcid) {
		fail_cases(names, 9, sizeof(names) / sizeof(names[0]),
			   "no INVPCID: CPUID.07H:EBX[10] =");
		goto out;
	}
	/* Each INVPCID runs under PCID 2, so that the read under PCID 1
	 * comes after a switch. */
	for (i = 0; i < sizeof(inv) / sizeof(inv[0]); i++) {
		const struct invpcid_case *c = &inv[i];

		begin(c->va);
		pcid(2, KEEP);
		invpcid(c->type, c->pcid, c->addr);
		pcid(1, KEEP);
		tap_check(names[9 + i], rd(c->va), c->want);
	}
out:
	/* Back to PCID 0 and CR4.PCIDE = 0 (which flushes everything). */
	pcid(0, FLUSH);
	write_cr4(read_cr4() & ~CR4_PCIDE);
}

/*
 * The INVLPGB cases, each issued under PCID 2 after an entry was filled
 * under PCID 1 (begin(), or begin_2m() for the 2 MiB ones), followed by
 * TLBSYNC unless the case says not, then read under PCID 1.  The host is
 * ASID 0.
 */
struct invlpgb_case {
	const char *name;
	u64 va, rax;		/* the entry filled and read; INVLPGB's rAX */
	u32 ecx, edx;
	int sync;		/* TLBSYNC after it */
	u64 want;
};

#define P(n)	((u32)(n) << 16)	/* EDX: PCID n, ASID 0 */

static const struct invlpgb_case ib[] = {
	{ "invlpgb: VA X, PCID 1, ASID 0, TLBSYNC drops PCID 1's entry",
	  VA_X, VA_X | IB_VA | IB_PCID | IB_ASID, 0, P(1), 1, MARK_B },
	{ "invlpgb: VA X, PCID 2, ASID 0 keeps PCID 1's entry (stale)",
	  VA_X, VA_X | IB_VA | IB_PCID | IB_ASID, 0, P(2), 1, MARK_A },
	{ "invlpgb: VA X only (any PCID, any ASID) drops it",
	  VA_X, VA_X | IB_VA, 0, P(2), 1, MARK_B },
	{ "invlpgb: VA X+4K, PCID 1 keeps X's entry (stale)",
	  VA_X, (VA_X + 0x1000) | IB_VA | IB_PCID | IB_ASID, 0, P(1), 1, MARK_A },
	{ "invlpgb: VA X, ASID 0 (any PCID) drops it",
	  VA_X, VA_X | IB_VA | IB_ASID, 0, P(2), 1, MARK_B },
	{ "invlpgb: VA X, ASID 1 keeps the host's (ASID 0) entry (stale)",
	  VA_X, VA_X | IB_VA | IB_ASID, 0, 1, 1, MARK_A },
	{ "invlpgb: PCID 1 only (every address) drops it",
	  VA_X, IB_PCID | IB_ASID, 0, P(1), 1, MARK_B },
	{ "invlpgb: PCID 2 only keeps PCID 1's entry (stale)",
	  VA_X, IB_PCID | IB_ASID, 0, P(2), 1, MARK_A },
	{ "invlpgb: ASID 0 only (all non-global) drops it",
	  VA_X, IB_ASID, 0, 0, 1, MARK_B },
	{ "invlpgb: VA X, final-only drops it (the entry is the final one)",
	  VA_X, VA_X | IB_VA | IB_PCID | IB_ASID | IB_FINAL, 0, P(1), 1, MARK_B },
	{ "invlpgb: VA G, PCID 1, global not included keeps the global entry (stale)",
	  VA_G, VA_G | IB_VA | IB_PCID | IB_ASID, 0, P(1), 1, MARK_A },
	{ "invlpgb: VA G, global included drops the global entry",
	  VA_G, VA_G | IB_VA | IB_ASID | IB_GLOBAL, 0, 0, 1, MARK_B },
	{ "invlpgb: ASID 0 only (all non-global) keeps the global entry (stale)",
	  VA_G, IB_ASID, 0, 0, 1, MARK_A },
	{ "invlpgb: ASID 0, global included (everything) drops the global entry",
	  VA_G, IB_ASID | IB_GLOBAL, 0, 0, 1, MARK_B },
	{ "invlpgb: VA X, count 2 (3 pages) drops X+8K's entry",
	  VA_H, VA_X | IB_VA | IB_PCID | IB_ASID, 2, P(1), 1, MARK_B },
	{ "invlpgb: VA X, count 1 (2 pages) keeps X+8K's entry (stale)",
	  VA_H, VA_X | IB_VA | IB_PCID | IB_ASID, 1, P(1), 1, MARK_A },
	{ "invlpgb: VA M0, 2M steps, count 1 drops the 2M entry at M0+2M",
	  VA_M1, VA_M0 | IB_VA | IB_PCID | IB_ASID, IB_2M | 1, P(1), 1, MARK_B },
	{ "invlpgb: VA M0, 4K steps, count 1 keeps the 2M entry at M0+2M (stale)",
	  VA_M1, VA_M0 | IB_VA | IB_PCID | IB_ASID, 1, P(1), 1, MARK_A },
	{ "invlpgb: VA M0, 2M steps, count 0 keeps the 2M entry at M0+2M (stale)",
	  VA_M1, VA_M0 | IB_VA | IB_PCID | IB_ASID, IB_2M, P(1), 1, MARK_A },
	{ "tlbsync: INVLPGB(VA X, PCID 1) not yet synced keeps the entry (stale)",
	  VA_X, VA_X | IB_VA | IB_PCID | IB_ASID, 0, P(1), 0, MARK_A },
};

/* begin() for the 2 MiB page at va (VA_M1): A's frame, read, then B's. */
static void begin_2m(u64 va)
{
	pcid(1, KEEP);
	flush_all();
	h_pd[(va >> 21) & 511] = PA_MA | PTE | PTE_PS;
	rd(va);
	h_pd[(va >> 21) & 511] = PA_MB | PTE | PTE_PS;
}

static void invlpgb_cases(int have_pcid, int have_invlpgb)
{
	static const char *const sync_name =
		"tlbsync: then TLBSYNC (under PCID 2) drops it";
	static const char *names[sizeof(ib) / sizeof(ib[0]) + 1];
	unsigned i, n = sizeof(ib) / sizeof(ib[0]);

	for (i = 0; i < n; i++)
		names[i] = ib[i].name;
	names[n] = sync_name;
	if (!have_invlpgb) {
		fail_cases(names, 0, n + 1, "no INVLPGB: CPUID.80000008H:EBX[3] =");
		return;
	}
	if (!have_pcid) {	/* INVLPGB without PCID: not an AMD CPU */
		fail_cases(names, 0, n + 1, "no PCID: CPUID.01H:ECX[17] =");
		return;
	}
	*(volatile u64 *)PA_MA = MARK_A;
	*(volatile u64 *)PA_MB = MARK_B;
	write_cr4(read_cr4() | CR4_PCIDE);	/* CR3[11:0] is 0 here */
	for (i = 0; i < n; i++) {
		const struct invlpgb_case *c = &ib[i];

		if (c->va >= VA_M0)
			begin_2m(c->va);
		else
			begin(c->va);
		pcid(2, KEEP);
		invlpgb(c->rax, c->ecx, c->edx);
		if (c->sync)
			tlbsync();
		pcid(1, KEEP);
		tap_check(c->name, rd(c->va), c->want);
		if (!c->sync) {
			/* the next case: the same INVLPGB, now synced */
			pcid(2, KEEP);
			tlbsync();
			pcid(1, KEEP);
			tap_check(sync_name, rd(c->va), MARK_B);
		}
	}
	h_pd[1] = h_pd[2] = 0;
	pcid(0, FLUSH);
	write_cr4(read_cr4() & ~CR4_PCIDE);
}

/*
 * ---- the second CPU: does INVLPGB reach another vCPU's TLB? ----
 *
 * CPU 1 (started with INIT-SIPI-SIPI through the local APIC, into
 * start.S's ap_tramp) serves a mailbox: FILL switches it to PCID 1 with
 * a flush of that PCID, reads X and switches to PCID 2 (keeping
 * PCID 1's entries); READ switches back to PCID 1 (keeping) and reads X.
 * Between the two, CPU 0 rewrites X to B and runs the operation under
 * test.  The switch away and back is what makes stock TCG read B.
 */
#define AP_TRAMP	0x8000UL
#define APIC_BASE	0xFEE00000UL
#define APIC_ICR_LO	0x300
#define APIC_ICR_HI	0x310
#define PTE_PWT		0x008UL
#define PTE_PCD		0x010UL
#define AP_FILL		1
#define AP_READ		2

extern char ap_tramp[], ap_tramp_end[];
static u64 apic_pd[512] PAGE;
static volatile u32 ap_up, ap_cmd, ap_seq, ap_done;
static volatile u64 ap_val;

void __attribute__((noreturn)) ap_main(void)
{
	u32 seen = 0;

	idt_load();
	write_cr4(read_cr4() | CR4_PGE);
	write_cr4(read_cr4() | CR4_PCIDE);	/* CR3[11:0] is 0 here */
	ap_up = 1;
	for (;;) {
		while (ap_seq == seen)
			asm volatile("pause");
		seen = ap_seq;
		if (ap_cmd == AP_FILL) {
			pcid(1, FLUSH);
			ap_val = rd(VA_X);
			pcid(2, KEEP);
		} else {
			pcid(1, KEEP);
			ap_val = rd(VA_X);
			pcid(2, KEEP);
		}
		ap_done = seen;
	}
}

static u64 ap_do(u32 cmd)
{
	u32 seq = ap_seq + 1;

	ap_cmd = cmd;
	ap_seq = seq;
	while (ap_done != seq)
		asm volatile("pause");
	return ap_val;
}

static void apic_icr(u32 lo)
{
	volatile u32 *apic = (volatile u32 *)APIC_BASE;

	apic[APIC_ICR_HI / 4] = 0;
	apic[APIC_ICR_LO / 4] = lo;	/* shorthand: all but self */
}

static int ap_start(void)
{
	char *d = (char *)AP_TRAMP;
	const char *p;
	unsigned long spin;

	for (p = ap_tramp; p < ap_tramp_end; p++)
		*d++ = *p;
	/* the local APIC's page: 3 GiB..4 GiB with 2 MiB pages */
	boot_pdpt[3] = (u64)apic_pd | PTE;
	apic_pd[(APIC_BASE >> 21) & 511] =
		APIC_BASE | PTE | PTE_PS | PTE_PCD | PTE_PWT;
	apic_icr(0xC4500);			/* INIT */
	apic_icr(0xC4600 | (AP_TRAMP >> 12));	/* SIPI */
	apic_icr(0xC4600 | (AP_TRAMP >> 12));
	for (spin = 0; spin < 2000000000UL && !ap_up; spin++)
		asm volatile("pause");
	return ap_up;
}

static void remote_cases(int have_invlpgb)
{
	static const char *const names[] = {
		"remote: CPU 1 reads A through its PCID 1 entry",
		"remote: CPU 0's INVLPG X keeps CPU 1's entry (stale)",
		"remote: CPU 0's INVLPGB(VA X, PCID 1) + TLBSYNC drops CPU 1's entry",
		"remote: CPU 0's INVLPGB(VA X, PCID 2) + TLBSYNC keeps it (stale)",
		"remote: CPU 0's INVLPGB(ASID 0, all non-global) + TLBSYNC drops it",
		"remote: CPU 0's INVLPGB(VA X, PCID 1) before its TLBSYNC keeps it (stale)",
		"remote: ... then CPU 0's TLBSYNC drops it",
	};
	const unsigned n = sizeof(names) / sizeof(names[0]);
	u64 v;

	if (!have_invlpgb) {
		fail_cases(names, 0, n, "no INVLPGB: CPUID.80000008H:EBX[3] =");
		return;
	}
	if (!ap_start()) {
		fail_cases(names, 0, n, "CPU 1 did not start (-smp 2?): up =");
		return;
	}
	/* each case: CPU 1 fills X -> A under PCID 1, then X -> B */
#define FILL()	do { map(h_pt, VA_X, page_a, PTE); v = ap_do(AP_FILL); \
		     map(h_pt, VA_X, page_b, PTE); } while (0)
	FILL();
	tap_check(names[0], v, MARK_A);
	FILL();
	invlpg(VA_X);
	tap_check(names[1], ap_do(AP_READ), MARK_A);
	FILL();
	invlpgb(VA_X | IB_VA | IB_PCID | IB_ASID, 0, P(1));
	tlbsync();
	tap_check(names[2], ap_do(AP_READ), MARK_B);
	FILL();
	invlpgb(VA_X | IB_VA | IB_PCID | IB_ASID, 0, P(2));
	tlbsync();
	tap_check(names[3], ap_do(AP_READ), MARK_A);
	FILL();
	invlpgb(IB_ASID, 0, 0);
	tlbsync();
	tap_check(names[4], ap_do(AP_READ), MARK_B);
	FILL();
	invlpgb(VA_X | IB_VA | IB_PCID | IB_ASID, 0, P(1));
	tap_check(names[5], ap_do(AP_READ), MARK_A);
	tlbsync();
	tap_check(names[6], ap_do(AP_READ), MARK_B);
#undef FILL
}

/* ---- SVM ---- */

/* VMCB offsets (AMD APM vol. 2, appendix B) */
#define VMCB_ICPT_EXC	0x008
#define VMCB_ICPT	0x00c
#define VMCB_ASID	0x058
#define VMCB_TLB_CTL	0x05c
#define VMCB_EXITCODE	0x070
#define VMCB_EXITINFO1	0x078
#define VMCB_NP_ENABLE	0x090
#define VMCB_N_CR3	0x0b0
#define VMCB_ES		0x400
#define VMCB_CS		0x410
#define VMCB_SS		0x420
#define VMCB_DS		0x430
#define VMCB_GDTR	0x460
#define VMCB_IDTR	0x480
#define VMCB_EFER	0x4d0
#define VMCB_CR4	0x548
#define VMCB_CR3	0x550
#define VMCB_CR0	0x558
#define VMCB_RFLAGS	0x570
#define VMCB_RIP	0x578
#define VMCB_RSP	0x5d8
#define VMCB_RAX	0x5f8
#define VMCB_G_PAT	0x668

#define ICPT_SHUTDOWN	(1UL << 31)	/* exit code - 0x60 */
#define ICPT_VMRUN	(1UL << 32)
#define ICPT_VMMCALL	(1UL << 33)
#define EXIT_VMMCALL	0x81

#define TLB_DO_NOTHING	0
#define TLB_FLUSH_ALL	1
#define TLB_FLUSH_ASID	3
#define TLB_FLUSH_ASID_LOCAL	7	/* this ASID's non-global entries */

#define V64(off)	(*(volatile u64 *)(vmcb + (off)))
#define V32(off)	(*(volatile u32 *)(vmcb + (off)))
#define V16(off)	(*(volatile u16 *)(vmcb + (off)))
#define V8(off)		(*(volatile u8 *)(vmcb + (off)))

static u64 last_exit;
static int guest_pge;		/* the guest runs with CR4.PGE */

static void seg(unsigned off, u16 sel, u16 attrib)
{
	V16(off) = sel;
	V16(off + 2) = attrib;
	V32(off + 4) = 0xffffffff;
	V64(off + 8) = 0;
}

/*
 * One VMRUN of the guest at guest_entry, which reads va and does VMMCALL.
 * Returns what it read; last_exit says how it left.
 */
static u64 guest_read(int npt, u32 asid, u8 tlb_ctl, u64 va)
{
	struct { u16 limit; u64 base; } __attribute__((packed)) gdtr;
	u8 *p;

	for (p = vmcb; p < vmcb + sizeof(vmcb); p++)
		*p = 0;
	V32(VMCB_ICPT_EXC) = 0xffffffff;	/* any guest exception exits */
	V64(VMCB_ICPT) = ICPT_VMRUN | ICPT_VMMCALL | ICPT_SHUTDOWN;
	V32(VMCB_ASID) = asid;
	V8(VMCB_TLB_CTL) = tlb_ctl;
	V64(VMCB_NP_ENABLE) = npt;
	V64(VMCB_N_CR3) = (u64)npt_pml4;

	asm volatile("sgdt %0" : "=m"(gdtr));
	seg(VMCB_CS, 0x08, 0x0a9b);		/* 64-bit code: P S type B, L G */
	seg(VMCB_SS, 0x10, 0x0c93);
	seg(VMCB_DS, 0x10, 0x0c93);
	seg(VMCB_ES, 0x10, 0x0c93);
	V32(VMCB_GDTR + 4) = gdtr.limit;
	V64(VMCB_GDTR + 8) = gdtr.base;
	V32(VMCB_IDTR + 4) = sizeof(idt) - 1;
	V64(VMCB_IDTR + 8) = (u64)idt;
	V64(VMCB_EFER) = EFER_LME | EFER_LMA | EFER_SVME;
	V64(VMCB_CR0) = 0x80010011;		/* PG WP ET PE */
	V64(VMCB_CR4) = CR4_PAE | (guest_pge ? CR4_PGE : 0);
	V64(VMCB_CR3) = npt ? (u64)n_pml4 : (u64)g_pml4;
	V64(VMCB_RFLAGS) = 2;
	V64(VMCB_RIP) = (u64)guest_entry;
	V64(VMCB_RSP) = (u64)(guest_stack + 512);
	V64(VMCB_G_PAT) = 0x0007040600070406UL;
	V64(VMCB_EXITCODE) = ~0UL;

	/* VMRUN switches RAX/RSP/RIP only: the guest gets va in RBX. */
	asm volatile("vmrun; stgi" : : "a"((u64)vmcb), "b"(va) : "memory", "cc");
	last_exit = V64(VMCB_EXITCODE);
	return V64(VMCB_RAX);
}

static void svm_check(const char *name, u64 got, u64 want)
{
	if (last_exit != EXIT_VMMCALL)
		tap_fail(name, "#VMEXIT code (not VMMCALL):", last_exit);
	else
		tap_check(name, got, want);
}

/* Point the guest's X at a page: its PTE, or with NPT the NPT entry. */
static void guest_map(int npt, u64 *page)
{
	if (npt)
		map(npt_ptq, GPA_Q, page, NPTE);
	else
		map(g_pt, VA_X, page, PTE);
}

/*
 * Start of an SVM case: the guest's X -> A, a run of ASID 1 after a
 * flush of everything reads it, then X -> B with no invalidation.
 * Returns the fill's read.
 */
static u64 svm_begin(int npt)
{
	u64 v;

	guest_map(npt, page_a);
	v = guest_read(npt, 1, TLB_FLUSH_ALL, VA_X);
	guest_map(npt, page_b);
	return v;
}

static void svm_tables(void)
{
	int i;

	/* Without NPT: the host's identity map below 1 GiB, X in slot 1. */
	g_pml4[0] = boot_pml4[0];
	g_pml4[1] = (u64)g_pdpt | PTE;
	g_pdpt[0] = (u64)g_pd | PTE;
	g_pd[0] = (u64)g_pt | PTE;

	/* With NPT, the guest's tables: the same, X -> GPA_Q. */
	n_pml4[0] = boot_pml4[0];
	n_pml4[1] = (u64)n_pdpt | PTE;
	n_pdpt[0] = (u64)n_pd | PTE;
	n_pd[0] = (u64)n_pt | PTE;
	n_pt[0] = GPA_Q | PTE;

	/* The NPT: identity below 1 GiB (2 MiB pages), GPA_Q -> A or B. */
	npt_pml4[0] = (u64)npt_pdpt | NPTE;
	npt_pdpt[0] = (u64)npt_pd0 | NPTE;
	for (i = 0; i < 512; i++)
		npt_pd0[i] = ((u64)i << 21) | NPTE | PTE_PS;
	npt_pdpt[GPA_Q >> 30] = (u64)npt_pdq | NPTE;
	npt_pdq[0] = (u64)npt_ptq | NPTE;
}

static void svm_cases(int have_svm, int have_npt)
{
	static const char *const names[] = {
		"svm: guest (ASID 1, own CR3) reads A after TLB_CONTROL=1",
		"svm: VMRUN, same ASID, TLB_CONTROL=0 keeps the guest's entry (stale)",
		"svm: TLB_CONTROL=3 (flush this ASID) drops it",
		"svm: TLB_CONTROL=1 (flush all) drops it",
		"svm: INVLPGA(X, ASID 2) keeps ASID 1's entry (stale)",
		"svm: INVLPGA(X, ASID 1) drops it",
		"svm: ASID 2 reads B (fresh)",
		"svm: ASID 1's entry survives a run of ASID 2 (stale)",
		"svm: host (ASID 0) entry survives VMRUN/#VMEXIT, TLB_CONTROL=0 (stale)",
		"svm: host (ASID 0) entry survives TLB_CONTROL=3 of ASID 1 (stale)",
		"svm: host (ASID 0) entry dropped by TLB_CONTROL=1",
		"svm+npt: guest reads A through the NPT after TLB_CONTROL=1",
		"svm+npt: NPT entry rewritten, TLB_CONTROL=0 keeps the entry (stale)",
		"svm+npt: TLB_CONTROL=3 drops it",
		"svm+npt: TLB_CONTROL=1 drops it",
		"svm+npt: ASID 2 reads B (fresh)",
	};
	static const u8 host_ctl[] = { TLB_DO_NOTHING, TLB_FLUSH_ASID, TLB_FLUSH_ALL };
	u64 v;
	int i, npt;

	if (!have_svm) {
		fail_cases(names, 0, 16, "no SVM: CPUID.80000001H:ECX[2] =");
		return;
	}
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SVME);
	wrmsr(MSR_VM_HSAVE_PA, (u64)hsave);
	svm_tables();

	for (npt = 0; npt <= 1; npt++) {
		const char *const *n = names + (npt ? 11 : 0);

		if (npt && !have_npt) {
			fail_cases(names, 11, 16, "no NPT: CPUID.8000000AH:EDX[0] =");
			break;
		}
		v = svm_begin(npt);
		svm_check(n[0], v, MARK_A);

		svm_begin(npt);
		v = guest_read(npt, 1, TLB_DO_NOTHING, VA_X);
		svm_check(n[1], v, MARK_A);

		svm_begin(npt);
		v = guest_read(npt, 1, TLB_FLUSH_ASID, VA_X);
		svm_check(n[2], v, MARK_B);

		svm_begin(npt);
		v = guest_read(npt, 1, TLB_FLUSH_ALL, VA_X);
		svm_check(n[3], v, MARK_B);

		if (npt) {
			svm_begin(npt);
			v = guest_read(npt, 2, TLB_DO_NOTHING, VA_X);
			svm_check(n[4], v, MARK_B);
			continue;
		}

		svm_begin(npt);
		invlpga(VA_X, 2);
		v = guest_read(npt, 1, TLB_DO_NOTHING, VA_X);
		svm_check(n[4], v, MARK_A);

		svm_begin(npt);
		invlpga(VA_X, 1);
		v = guest_read(npt, 1, TLB_DO_NOTHING, VA_X);
		svm_check(n[5], v, MARK_B);

		svm_begin(npt);
		v = guest_read(npt, 2, TLB_DO_NOTHING, VA_X);
		svm_check(n[6], v, MARK_B);
		v = guest_read(npt, 1, TLB_DO_NOTHING, VA_X);
		svm_check(n[7], v, MARK_A);

		/* The host's own entry for H, around one run of ASID 1. */
		for (i = 0; i < 3; i++) {
			guest_map(0, page_a);
			flush_all();
			map(h_pt, VA_H, page_a, PTE);
			rd(VA_H);
			map(h_pt, VA_H, page_b, PTE);
			guest_read(0, 1, host_ctl[i], VA_X);
			v = rd(VA_H);
			if (last_exit != EXIT_VMMCALL)
				tap_fail(n[8 + i], "#VMEXIT code (not VMMCALL):", last_exit);
			else
				tap_check(n[8 + i], v, i < 2 ? MARK_A : MARK_B);
		}
	}
}

/*
 * TLB_CONTROL=7 and INVLPGA with NPT.  Without NPT: a non-global entry of
 * ASID 1 goes with 7, a global one (guest CR4.PGE, PTE.G) stays until 3.
 * With NPT: INVLPGA drops the guest-virtual address's entry of its ASID
 * only, as without NPT.
 */
static void svm_more_cases(int have_svm, int have_npt)
{
	static const char *const names[] = {
		"svm: TLB_CONTROL=7 (this ASID, non-global) drops a non-global entry",
		"svm: TLB_CONTROL=7 keeps the guest's global entry (stale)",
		"svm: TLB_CONTROL=3 drops the guest's global entry",
		"svm+npt: INVLPGA(X, ASID 2) keeps ASID 1's entry (stale)",
		"svm+npt: INVLPGA(X, ASID 1) drops it",
	};
	u64 v;

	if (!have_svm) {
		fail_cases(names, 0, 5, "no SVM: CPUID.80000001H:ECX[2] =");
		return;
	}

	svm_begin(0);
	v = guest_read(0, 1, TLB_FLUSH_ASID_LOCAL, VA_X);
	svm_check(names[0], v, MARK_B);

	guest_pge = 1;
	map(g_pt, VA_X, page_a, PTE | PTE_G);
	guest_read(0, 1, TLB_FLUSH_ALL, VA_X);
	map(g_pt, VA_X, page_b, PTE | PTE_G);
	v = guest_read(0, 1, TLB_FLUSH_ASID_LOCAL, VA_X);
	svm_check(names[1], v, MARK_A);
	v = guest_read(0, 1, TLB_FLUSH_ASID, VA_X);
	svm_check(names[2], v, MARK_B);
	guest_pge = 0;

	if (!have_npt) {
		fail_cases(names, 3, 5, "no NPT: CPUID.8000000AH:EDX[0] =");
		return;
	}
	svm_begin(1);
	invlpga(VA_X, 2);
	v = guest_read(1, 1, TLB_DO_NOTHING, VA_X);
	svm_check(names[3], v, MARK_A);

	svm_begin(1);
	invlpga(VA_X, 1);
	v = guest_read(1, 1, TLB_DO_NOTHING, VA_X);
	svm_check(names[4], v, MARK_B);
}

/* ---- main ---- */

void main(void)
{
	u32 r[4], max_ext;
	int pcid, invpcid, svm = 0, npt = 0, have_ib = 0;
	unsigned i;

	idt_init();
	for (i = 0; i < 512; i++) {
		page_a[i] = MARK_A;
		page_b[i] = MARK_B;
	}
	boot_pml4[1] = (u64)h_pdpt | PTE;
	h_pdpt[0] = (u64)h_pd | PTE;
	h_pd[0] = (u64)h_pt | PTE;
	write_cr4(read_cr4() | CR4_PGE);

	tap_puts("# rig-selftest x86_64\n");
	cpuid(1, 0, r);
	pcid = r[2] >> 17 & 1;
	cpuid(7, 0, r);
	invpcid = r[1] >> 10 & 1;
	cpuid(0x80000000, 0, r);
	max_ext = r[0];
	if (max_ext >= 0x80000001) {
		cpuid(0x80000001, 0, r);
		svm = r[2] >> 2 & 1;
	}
	tap_note("CPUID PCID", pcid);
	tap_note("CPUID INVPCID", invpcid);
	tap_note("CPUID SVM", svm);
	if (svm && max_ext >= 0x8000000a) {
		cpuid(0x8000000a, 0, r);
		npt = r[3] & 1;
		tap_note("SVM NASID", r[1]);
		tap_note("SVM features (EDX; NP bit 0, FlushByAsid bit 6)", r[3]);
	}

	if (max_ext >= 0x80000008) {
		cpuid(0x80000008, 0, r);
		have_ib = r[1] >> 3 & 1;
		tap_note("CPUID INVLPGB", have_ib);
		tap_note("INVLPGB max count (EDX[15:0])", r[3] & 0xffff);
	}

	pcid_cases(pcid, invpcid);
	invlpgb_cases(pcid, have_ib);
	remote_cases(have_ib);
	svm_cases(svm, npt);
	svm_more_cases(svm, npt);
	power_off(tap_summary());
}
