// SPDX-License-Identifier: GPL-2.0
/*
 * ctxsw: what a context switch costs, for make bench (it times, it checks
 * nothing). Two tasks pass a byte back and forth through two pipes, so each
 * round trip is two switches; the time per switch is printed.
 *
 *   ctxsw -m MODE [-n ROUND_TRIPS] [-r REPEATS]
 *
 *   procs-only    two processes on CPU 0, neither of which has run anywhere
 *                 else: every switch changes mm, and on arm64 with the
 *                 series each mm is recorded as active on CPU 0 alone
 *   procs-many    the same, after each process has also run a thread on
 *                 CPU 1: both mms are recorded as "many", and with the
 *                 series every switch into one of them issues a DSB
 *   threads       two threads of one process on CPU 0: no mm switch
 *   procs-2cpu    two processes, one on CPU 0 and one on CPU 1: each CPU
 *                 goes idle and wakes its task again, and idle keeps the
 *                 task's mm, so no switch changes mm
 *   threads-2cpu  two threads of one process on CPUs 0 and 1: likewise
 *
 * Start it on CPU 0 (taskset -c 0), so that the mm exec gives it has only
 * run there.
 *
 * Each repeat prints "ctxsw: mode=MODE ns_per_switch=N", and the last line
 * "ctxsw: mode=MODE median_ns=N" is the median of the repeats.
 */
#define _GNU_SOURCE
#include <err.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pin.h"

static int ping[2], pong[2];	/* to the echo task, and back */
static long round_trips = 2000;

static void *on_cpu1(void *arg)
{
	pin(1);	/* back from the migration: this thread runs on CPU 1 */
	return arg;
}

/* Run a thread of this process on CPU 1, so that its mm has been there. */
static void visit_cpu1(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, on_cpu1, NULL) || pthread_join(t, NULL))
		errx(1, "thread on CPU 1");
}

static void xfer(int in, int out)
{
	char c = 0;

	if (out >= 0 && write(out, &c, 1) != 1)
		err(1, "write");
	if (in >= 0 && read(in, &c, 1) != 1)
		err(1, "read");
}

/* The echo task: answers every ping until the pipe closes. */
static void echo(void)
{
	char c;

	while (read(ping[0], &c, 1) == 1)
		if (write(pong[1], &c, 1) != 1)
			err(1, "write");
}

static void *echo_thread(void *arg)
{
	pin((long)arg);
	echo();
	return NULL;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double one_repeat(void)
{
	double t0;
	long i;

	for (i = 0; i < round_trips / 10 + 1; i++)	/* warm-up */
		xfer(pong[0], ping[1]);
	t0 = now_ns();
	for (i = 0; i < round_trips; i++)
		xfer(pong[0], ping[1]);
	return (now_ns() - t0) / (2.0 * round_trips);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	int repeats = 5, opt, i;
	int procs, many = 0, echo_cpu = 0;
	double *ns;
	pthread_t t;
	pid_t pid = 0;

	while ((opt = getopt(argc, argv, "m:n:r:")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'n': round_trips = atol(optarg); break;
		case 'r': repeats = atoi(optarg); break;
		default: errx(2, "usage: ctxsw -m MODE [-n ROUND_TRIPS] [-r REPEATS]");
		}
	}
	if (!mode)
		errx(2, "usage: ctxsw -m MODE [-n ROUND_TRIPS] [-r REPEATS]");
	if (!strcmp(mode, "procs-only") || !strcmp(mode, "procs-many") ||
	    !strcmp(mode, "procs-2cpu"))
		procs = 1;
	else if (!strcmp(mode, "threads") || !strcmp(mode, "threads-2cpu"))
		procs = 0;
	else
		errx(2, "unknown mode %s", mode);
	many = !strcmp(mode, "procs-many");
	if (strstr(mode, "2cpu"))
		echo_cpu = 1;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		errx(1, "needs two CPUs");
	ns = calloc(repeats, sizeof(*ns));
	if (!ns || repeats < 1 || round_trips < 1)
		errx(2, "bad -n or -r");
	if (pipe(ping) || pipe(pong))
		err(1, "pipe");

	/* Pinned before fork, so a procs-only child never runs elsewhere. */
	pin(0);
	if (procs) {
		pid = fork();
		if (pid < 0)
			err(1, "fork");
		if (!pid) {
			pin(echo_cpu);
			if (many)
				visit_cpu1();
			close(ping[1]);
			close(pong[0]);
			echo();
			_exit(0);
		}
		close(ping[0]);
		close(pong[1]);
		if (many)
			visit_cpu1();
	} else if (pthread_create(&t, NULL, echo_thread, (void *)(long)echo_cpu)) {
		errx(1, "pthread_create");
	}

	for (i = 0; i < repeats; i++) {
		ns[i] = one_repeat();
		printf("ctxsw: mode=%s ns_per_switch=%.1f\n", mode, ns[i]);
	}
	qsort(ns, repeats, sizeof(*ns), cmp);
	printf("ctxsw: mode=%s median_ns=%.1f\n", mode, ns[repeats / 2]);
	fflush(stdout);

	close(ping[1]);
	if (procs)
		waitpid(pid, NULL, 0);
	return 0;
}
