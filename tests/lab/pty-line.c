/*
 * pty-line: a board on a serial line of a given baud rate, for tests and
 * benchmarks of console pushes. A pty pair does not care about baud rates
 * (bytes go through at memory speed), so this program sits between two
 * ptys and moves bytes each way no faster than a UART would: one byte per
 * 10 bit times (8N1) on average, from the moment a byte is waiting.
 *
 *   pty-line [--baud N] --link PATH -- COMMAND [ARG]...
 *
 * PATH becomes a symlink to the controller's end (open it like a serial
 * port); COMMAND runs on the board's end as its controlling terminal, with
 * the tty's usual settings (canonical, echo on), like a getty'd shell. Ends
 * when COMMAND ends, or on SIGTERM/SIGINT (COMMAND is hung up); removes
 * PATH. Baud 0 means no pacing.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* most bytes sent at once while a backlog waits (catching up on timer and
 * scheduling slack: never ahead of the line rate since the backlog began); an idle line
 * saves up nothing, so the average is exactly the line rate */
#define BURST 1024

struct dir {
	int from, to;
	unsigned char buf[4096];
	size_t len, off;
	double credit;             /* bytes the line may carry now */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Moves what the credit allows; returns -1 when an end is gone. */
static int pump(struct dir *d, double rate, double dt)
{
	bool backlog = d->off < d->len;
	if (rate > 0 && backlog) {
		d->credit += dt * rate;
		if (d->credit > BURST)
			d->credit = BURST;
	}
	if (d->off == d->len) {
		d->credit = 0;
		d->off = d->len = 0;
		ssize_t n = read(d->from, d->buf, sizeof(d->buf));
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return -1;
		if (n > 0)
			d->len = (size_t)n;
	}
	size_t want = d->len - d->off;
	if (rate > 0 && want > (size_t)d->credit)
		want = (size_t)d->credit;
	if (want == 0)
		return 0;
	ssize_t w = write(d->to, d->buf + d->off, want);
	if (w < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	d->off += (size_t)w;
	if (rate > 0)
		d->credit -= (double)w;
	return 0;
}

int main(int argc, char **argv)
{
	long baud = 115200;
	const char *link_path = NULL;
	int i = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--baud") && i + 1 < argc)
			baud = atol(argv[++i]);
		else if (!strcmp(argv[i], "--link") && i + 1 < argc)
			link_path = argv[++i];
		else if (!strcmp(argv[i], "--"))
			break;
		else
			break;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (!link_path || i >= argc) {
		fprintf(stderr, "usage: pty-line [--baud N] --link PATH -- COMMAND [ARG]...\n");
		return 2;
	}
	int host_master, host_slave, board_master;
	if (openpty(&host_master, &host_slave, NULL, NULL, NULL) < 0) {
		perror("pty-line: openpty");
		return 3;
	}
	struct termios raw;
	tcgetattr(host_slave, &raw);
	cfmakeraw(&raw);
	tcsetattr(host_slave, TCSANOW, &raw);
	tcgetattr(host_master, &raw);
	cfmakeraw(&raw);
	tcsetattr(host_master, TCSANOW, &raw);
	pid_t child = forkpty(&board_master, NULL, NULL, NULL);
	if (child < 0) {
		perror("pty-line: forkpty");
		return 3;
	}
	if (child == 0) {
		execvp(argv[i], argv + i);
		perror("pty-line: exec");
		_exit(127);
	}
	unlink(link_path);
	if (symlink(ttyname(host_slave), link_path) < 0) {
		perror("pty-line: symlink");
		kill(child, SIGHUP);
		return 3;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGHUP, on_signal);
	fcntl(host_master, F_SETFL, O_NONBLOCK);
	fcntl(board_master, F_SETFL, O_NONBLOCK);
	double rate = baud > 0 ? (double)baud / 10.0 : 0;
	struct dir down = { .from = host_master, .to = board_master };
	struct dir up = { .from = board_master, .to = host_master };
	double last = now_s();
	int ret = 0;
	while (!stop) {
		struct pollfd p[2] = {
			{ host_master, down.off < down.len ? 0 : POLLIN, 0 },
			{ board_master, up.off < up.len ? 0 : POLLIN, 0 },
		};
		bool busy = down.off < down.len || up.off < up.len;
		/* waiting bytes: come back after about one character time */
		int timeout = busy ? (rate > 0 ? 1 : 0) : 100;
		poll(p, 2, timeout);
		if (p[1].revents & (POLLHUP | POLLERR) && !(p[1].revents & POLLIN))
			break;   /* the board's command ended */
		double t = now_s();
		double dt = t - last;
		last = t;
		if (pump(&down, rate, dt) < 0 && down.len == 0) {
			/* the controller closed its end: keep waiting for a new open */
			struct timespec ts = { 0, 20 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		if (pump(&up, rate, dt) < 0 && up.len == 0)
			break;
	}
	unlink(link_path);
	kill(child, SIGHUP);
	kill(child, SIGTERM);
	for (int k = 0; k < 100; k++) {
		if (waitpid(child, NULL, WNOHANG) == child)
			return ret;
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return ret;
}
