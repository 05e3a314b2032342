// SPDX-License-Identifier: GPL-2.0
/*
 * zram_holdcpu: how long a discard of a whole block device keeps a CPU
 * from a real-time task.
 *
 * Usage: zram_holdcpu CPU DEVICE
 *
 * A child bound to CPU discards all of DEVICE with one BLKDISCARD ioctl;
 * meanwhile a SCHED_FIFO task bound to the same CPU sleeps PERIOD_US at a
 * time. Prints one line:
 *
 *   discard_us=D max_gap_us=G wakeups=N error=E
 *
 * D: how long the ioctl took; G: the longest time between two wakeups of
 * the real-time task (about PERIOD_US when it always ran on time); E: the
 * ioctl's errno, 0 when it succeeded. With the kernel's preemption mode
 * "none", kernel code gives the CPU up only where it reschedules, so G
 * near D means the discard held the CPU all along.
 *
 * Exits 0 after printing, 2 on a usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_US	1000

/* what the child reports through the pipe */
struct result {
	uint64_t discard_us;
	int error;
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int bind_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The child: discard all of @path, report through @fd. */
static void discard_all(const char *path, int fd)
{
	struct sched_param sp = { .sched_priority = 0 };
	struct result r = { .error = 0 };
	uint64_t range[2] = { 0, 0 }, t;
	int dev;

	if (sched_setscheduler(0, SCHED_OTHER, &sp))
		_exit(2);
	dev = open(path, O_WRONLY);
	if (dev < 0 || ioctl(dev, BLKGETSIZE64, &range[1])) {
		perror(path);
		_exit(2);
	}
	t = now_us();
	if (ioctl(dev, BLKDISCARD, range))
		r.error = errno;
	r.discard_us = now_us() - t;
	if (write(fd, &r, sizeof(r)) != sizeof(r))
		_exit(2);
	_exit(0);
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 50 };
	const struct timespec period = { .tv_nsec = PERIOD_US * 1000L };
	uint64_t last, t, gap, max_gap = 0, wakeups = 0;
	struct result r;
	int fds[2], wstatus;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: %s CPU DEVICE\n", argv[0]);
		return 2;
	}
	if (bind_to(atoi(argv[1])) || pipe(fds)) {
		perror("setup");
		return 2;
	}
	/* real-time before the fork: the child never runs ahead of us */
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("sched_setscheduler");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (!pid)
		discard_all(argv[2], fds[1]);
	close(fds[1]);
	last = now_us();
	for (;;) {
		pid_t done = waitpid(pid, &wstatus, WNOHANG);

		if (done == pid)
			break;
		if (done < 0) {
			perror("waitpid");
			return 2;
		}
		nanosleep(&period, NULL);
		t = now_us();
		gap = t - last;
		if (gap > max_gap)
			max_gap = gap;
		last = t;
		wakeups++;
	}
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) ||
	    read(fds[0], &r, sizeof(r)) != sizeof(r)) {
		fprintf(stderr, "%s: the discarding child failed\n", argv[0]);
		return 2;
	}
	printf("discard_us=%llu max_gap_us=%llu wakeups=%llu error=%d\n",
	       (unsigned long long)r.discard_us,
	       (unsigned long long)max_gap, (unsigned long long)wakeups,
	       r.error);
	return 0;
}
