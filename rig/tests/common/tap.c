/* TAP output: "ok N - name", "not ok N - name: details", then a summary. */
#include "tap.h"

static unsigned n_case, n_pass, n_fail, n_skip;

void tap_puts(const char *s)
{
	while (*s) {
		if (*s == '\n')
			arch_putc('\r');
		arch_putc(*s++);
	}
}

void tap_hex(u64 v)
{
	int i;

	tap_puts("0x");
	for (i = 60; i >= 0; i -= 4)
		arch_putc("0123456789abcdef"[(v >> i) & 15]);
}

void tap_dec(u64 v)
{
	char b[21];
	int i = 20;

	b[i] = 0;
	do {
		b[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	tap_puts(b + i);
}

static void page_name(u64 v)
{
	if (v == MARK_A)
		tap_puts("A");
	else if (v == MARK_B)
		tap_puts("B");
	else
		tap_hex(v);
}

static void head(int ok, const char *name)
{
	tap_puts(ok ? "ok " : "not ok ");
	tap_dec(++n_case);
	tap_puts(" - ");
	tap_puts(name);
}

void tap_check(const char *name, u64 got, u64 want)
{
	int ok = got == want;

	head(ok, name);
	if (!ok) {
		tap_puts(": read ");
		page_name(got);
		tap_puts(", expected ");
		page_name(want);
	}
	tap_puts("\n");
	if (ok)
		n_pass++;
	else
		n_fail++;
}

void tap_fail(const char *name, const char *why, u64 v)
{
	head(0, name);
	tap_puts(": ");
	tap_puts(why);
	tap_puts(" ");
	tap_hex(v);
	tap_puts("\n");
	n_fail++;
}

void tap_skip(const char *name, const char *why)
{
	head(1, name);
	tap_puts(" # SKIP ");
	tap_puts(why);
	tap_puts("\n");
	n_skip++;
}

int tap_summary(void)
{
	tap_puts("1..");
	tap_dec(n_case);
	tap_puts("\nrig-selftest: ");
	tap_dec(n_pass);
	tap_puts(" passed, ");
	tap_dec(n_fail);
	tap_puts(" failed");
	if (n_skip) {
		tap_puts(", ");
		tap_dec(n_skip);
		tap_puts(" skipped");
	}
	tap_puts("\n");
	return n_fail;
}

void tap_note(const char *what, u64 v)
{
	tap_puts("# ");
	tap_puts(what);
	tap_puts(" ");
	tap_hex(v);
	tap_puts("\n");
}
