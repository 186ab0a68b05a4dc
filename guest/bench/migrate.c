// SPDX-License-Identifier: GPL-2.0
/*
 * migrate: what an mprotect() loop costs after its process has moved between
 * CPUs, for the arm64 take-over prototype (results/arm64-migration-design.md).
 * It times and counts; it checks nothing.
 *
 *   migrate -m MODE [-n ITERATIONS] [-r REPEATS] [-k MOVE_EVERY]
 *
 * Each repeat forks a fresh process (a fresh mm) that changes the protection
 * of one page back and forth and writes to it, ITERATIONS times, on CPU 0
 * ("home"), after:
 *
 *   pinned       nothing: forked on CPU 0, never anywhere else
 *   moved-idle   a warm-up on CPU 1, then a move to CPU 0; CPU 1 then idles,
 *                and idle keeps the mm in TTBR0_EL1 (lazy TLB); nothing of
 *                this program runs on CPU 1 meanwhile
 *   moved-busy   the same, with a SCHED_IDLE spinner (another process)
 *                pinned to CPU 1, so that CPU 1 switches to another mm
 *   migrating    forked on CPU 0, moved between CPUs 0 and 1 every
 *                MOVE_EVERY iterations (default 64), with SCHED_IDLE
 *                spinners on both: every kernel moves as often per
 *                iteration, however fast its iterations are
 *   threads2     two threads of the process, on CPUs 0 and 1, each on its
 *                own page, both running throughout
 *
 * Start it on CPU 0 (taskset -c 0). Each repeat prints
 *   "migrate: mode=M median_us=X p90_us=Y mean_us=Z broadcast_per_iter=B
 *    migrations=K"
 * (the mean includes the first iteration after each move, which pays for
 * the move's invalidation and refills; the move itself is not timed) where B is the growth of nr_tlb_remote_flush in /proc/vmstat (system-wide;
 * CONFIG_DEBUG_TLBFLUSH) per iteration, or -1 without the counter, and the
 * last line "migrate: mode=M median_us=X" is the median of the repeats'
 * medians.
 */
#define _GNU_SOURCE
#include <err.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pin.h"

#define HOME	0
#define AWAY	1
#define WARMUP	64

struct result {
	double median_us, p90_us, mean_us, broadcast_per_iter;
	long migrations;
	int failed;
};

static long iterations = 4000;
static long move_every = 64;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* nr_tlb_remote_flush, or -1 without CONFIG_DEBUG_TLBFLUSH. */
static long remote_flushes(void)
{
	char name[64];
	long val;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", name, &val) == 2) {
		if (!strcmp(name, "nr_tlb_remote_flush")) {
			fclose(f);
			return val;
		}
	}
	fclose(f);
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static char *map_page(void)
{
	char *p = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		err(1, "mmap");
	memset(p, 1, getpagesize());
	return p;
}

/*
 * One iteration: read-only and back, then a write, which needs the write
 * permission back, so every iteration invalidates the page's translation.
 */
static void iteration(char *page, long i)
{
	if (mprotect(page, getpagesize(), PROT_READ) ||
	    mprotect(page, getpagesize(), PROT_READ | PROT_WRITE))
		err(1, "mprotect");
	page[i % getpagesize()] = i;
}

/*
 * Time n iterations; with every > 0, move between CPUs 0 and 1 before every
 * every-th iteration (the move itself is not timed).
 */
static long timed_loop(char *page, double *us, long n, long every)
{
	long i, moves = 0;
	int cpu = HOME;

	for (i = 0; i < n; i++) {
		double t0;

		if (every && i && i % every == 0) {
			cpu = cpu == HOME ? AWAY : HOME;
			pin(cpu);
			moves++;
		}
		t0 = now_us();
		iteration(page, i);
		us[i] = now_us() - t0;
	}
	return moves;
}

static void summarise(struct result *r, double *us, long n, long before)
{
	long after = remote_flushes();
	double sum = 0;
	long i;

	for (i = 0; i < n; i++)
		sum += us[i];
	r->mean_us = sum / n;
	qsort(us, n, sizeof(*us), cmp_double);
	r->median_us = us[n / 2];
	r->p90_us = us[n * 9 / 10];
	r->broadcast_per_iter = before < 0 || after < 0 ? -1 :
				(double)(after - before) / n;
}

struct thread_arg {
	int cpu;
	double *us;
	pthread_barrier_t *ready;
};

static void *thread_fn(void *p)
{
	struct thread_arg *a = p;
	char *page = map_page();

	pin(a->cpu);
	pthread_barrier_wait(a->ready);	/* both threads on their CPUs */
	pthread_barrier_wait(a->ready);	/* counter read */
	timed_loop(page, a->us, iterations, 0);
	return NULL;
}

static void threads2(struct result *r)
{
	struct thread_arg args[2];
	pthread_barrier_t ready;
	pthread_t tids[2];
	long before;
	double *us;
	int i;

	us = calloc(2 * iterations, sizeof(*us));
	if (!us)
		err(1, "calloc");
	pthread_barrier_init(&ready, NULL, 3);
	for (i = 0; i < 2; i++) {
		args[i] = (struct thread_arg){ i ? AWAY : HOME,
					       us + i * iterations, &ready };
		if (pthread_create(&tids[i], NULL, thread_fn, &args[i]))
			errx(1, "pthread_create");
	}
	pthread_barrier_wait(&ready);
	before = remote_flushes();
	pthread_barrier_wait(&ready);
	for (i = 0; i < 2; i++)
		pthread_join(tids[i], NULL);
	summarise(r, us, 2 * iterations, before);
	free(us);
}

/* The process under test, forked for each repeat. */
static void child(const char *mode, struct result *r)
{
	double *us = calloc(iterations, sizeof(*us));
	char *page = map_page();
	long before, i;

	if (!us)
		err(1, "calloc");
	if (!strcmp(mode, "threads2")) {
		threads2(r);
		return;
	}
	for (i = 0; i < WARMUP; i++)
		iteration(page, i);
	/* moved-*: forked on CPU 1 (see run()), warmed up there; now move. */
	if (!strncmp(mode, "moved-", 6))
		pin(HOME);
	before = remote_flushes();
	r->migrations = timed_loop(page, us, iterations,
				   strcmp(mode, "migrating") ? 0 : move_every);
	summarise(r, us, iterations, before);
}

/* Read the byte that says go on; its writer has done what we wait for. */
static void wait_for(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		errx(1, "lost the other process");
	close(fd);
}

static void say_go(int fd)
{
	if (write(fd, "g", 1) != 1)
		err(1, "write");
	close(fd);
}

/* A SCHED_IDLE busy loop on @cpu; returns once it runs there. */
static pid_t spinner(int cpu)
{
	struct sched_param sp = { 0 };
	int ready[2];
	pid_t pid;

	if (pipe(ready))
		err(1, "pipe");
	pid = fork();
	if (pid < 0)
		err(1, "fork");
	if (pid) {
		close(ready[1]);
		wait_for(ready[0]);
		return pid;
	}
	close(ready[0]);
	pin(cpu);
	if (sched_setscheduler(0, SCHED_IDLE, &sp))
		err(1, "SCHED_IDLE");
	say_go(ready[1]);
	for (;;)
		;
}

static void run(const char *mode, struct result *r)
{
	pid_t spin[2] = { 0, 0 };
	int status, i, go[2];
	pid_t pid;

	if (!strcmp(mode, "moved-busy"))
		spin[0] = spinner(AWAY);
	if (!strcmp(mode, "migrating")) {
		spin[0] = spinner(AWAY);
		spin[1] = spinner(HOME);
	}
	if (pipe(go))
		err(1, "pipe");
	/*
	 * The child's mm is first live where it is forked. It waits until we
	 * are back on CPU 0, so that no task of ours but the child runs on
	 * CPU 1 after the fork.
	 */
	pin(!strncmp(mode, "moved-", 6) ? AWAY : HOME);
	pid = fork();
	if (pid < 0)
		err(1, "fork");
	if (!pid) {
		close(go[1]);
		wait_for(go[0]);
		child(mode, r);
		_exit(0);
	}
	close(go[0]);
	pin(HOME);
	say_go(go[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		r->failed = 1;
	for (i = 0; i < 2; i++) {
		if (spin[i]) {
			kill(spin[i], SIGKILL);
			waitpid(spin[i], NULL, 0);
		}
	}
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	long repeats = 5, k;
	struct result *r;
	double *med;
	int opt;

	while ((opt = getopt(argc, argv, "m:n:r:k:")) != -1) {
		switch (opt) {
		case 'm': mode = optarg; break;
		case 'n': iterations = atol(optarg); break;
		case 'r': repeats = atol(optarg); break;
		case 'k': move_every = atol(optarg); break;
		default: errx(2, "usage: migrate -m MODE [-n N] [-r R] [-k K]");
		}
	}
	if (!mode || (strcmp(mode, "pinned") && strcmp(mode, "moved-idle") &&
		      strcmp(mode, "moved-busy") && strcmp(mode, "migrating") &&
		      strcmp(mode, "threads2")))
		errx(2, "-m pinned|moved-idle|moved-busy|migrating|threads2");
	if (iterations < WARMUP || repeats < 1 || move_every < 1)
		errx(2, "bad -n, -r or -k");

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	med = calloc(repeats, sizeof(*med));
	if (r == MAP_FAILED || !med)
		err(1, "alloc");
	pin(HOME);
	for (k = 0; k < repeats; k++) {
		memset(r, 0, sizeof(*r));
		run(mode, r);
		if (r->failed)
			errx(1, "mode %s: the process under test failed", mode);
		printf("migrate: mode=%s median_us=%.1f p90_us=%.1f mean_us=%.1f broadcast_per_iter=%.3f migrations=%ld\n",
		       mode, r->median_us, r->p90_us, r->mean_us,
		       r->broadcast_per_iter, r->migrations);
		fflush(stdout);
		med[k] = r->median_us;
	}
	qsort(med, repeats, sizeof(*med), cmp_double);
	printf("migrate: mode=%s median_us=%.1f\n", mode, med[repeats / 2]);
	return 0;
}
