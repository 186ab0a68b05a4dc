/* TAP output on the serial port, shared by the x86_64 and arm64 guests. */
#ifndef RIG_TAP_H
#define RIG_TAP_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long u64;

/* What the test pages hold: a read of X tells which page X maps to. */
#define MARK_A 0x4141414141414141UL /* "AAAAAAAA" */
#define MARK_B 0x4242424242424242UL /* "BBBBBBBB" */

void arch_putc(char c);                 /* per arch: one byte to the UART */

void tap_puts(const char *s);
void tap_hex(u64 v);
void tap_dec(u64 v);
void tap_note(const char *what, u64 v);  /* "# what 0x<v>" */

/*
 * One case.  A name ending in "(stale)" expects the old page: those are
 * the cases stock TCG, which flushes on every context switch, must fail.
 */
void tap_check(const char *name, u64 got, u64 want);    /* got == want */
void tap_fail(const char *name, const char *why, u64 v); /* "why 0x<v>" */
void tap_skip(const char *name, const char *why);
int tap_summary(void);                  /* returns the number failed */

#endif
