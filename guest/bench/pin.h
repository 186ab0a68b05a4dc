/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pin(): what the benchmark programs in guest/bench share. Include it after
 * defining _GNU_SOURCE.
 */
#ifndef GUEST_BENCH_PIN_H
#define GUEST_BENCH_PIN_H

#include <err.h>
#include <sched.h>

/*
 * Run the calling thread on @cpu alone. sched_setaffinity() moves the thread
 * before it returns, which the check makes sure of.
 */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		err(1, "sched_setaffinity(%d)", cpu);
	if (sched_getcpu() != cpu)
		errx(1, "not on CPU %d after sched_setaffinity()", cpu);
}

#endif
