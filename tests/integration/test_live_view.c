/*
 * The live view on a terminal, read through a pty as a terminal would show
 * it: 64 local boards, a test failing on 30 of them, the pty 20 rows high.
 * A small model of the screen (cursor moves, erases, scrolling) follows
 * what orch writes: no frame is taller than the window (a frame line
 * pushed into the scrollback would show there), the header carries the
 * totals and an ETA, failures are named while the run goes on, and after
 * the window shrinks to 12 rows the frames fit that. The final summary is
 * the only thing that scrolls.
 */
#include "testsupport.h"
#include "ts_orch.h"
#include "util/strbuf.h"

#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROWS 20
#define COLS 100
#define SMALL_ROWS 12
#define MAX_ROWS 64

static char *tmp;

static int group_setup(void **state)
{
	tmp = ts_rack_dir("live-view");
	struct strbuf sc = STRBUF_INIT;
	strbuf_puts(&sc, TS_RACK_HEAD("live")
			 "  - { name: t01, run: 'sleep 0.4' }\n"
			 "  - { name: t02, run: \"case {board.name} in b[1-3][0-9]) echo disk gone; "
			 "exit 1;; esac; sleep 0.4\" }\n");
	for (int t = 3; t <= 8; t++)
		strbuf_printf(&sc, "  - { name: t%02d, run: 'sleep 0.4' }\n", t);
	free(ts_write_file(tmp, "live.yaml", sc.buf));
	strbuf_release(&sc);
	return 0;
}

static int group_teardown(void **state)
{
	return ts_rmrf_free(&tmp);
}

/* What a terminal of rows x COLS shows, and what it scrolled away. */
struct screen {
	unsigned rows, r, c;
	char cells[MAX_ROWS][COLS + 1];
	struct strbuf scrolled;   /* lines pushed off the top, one per line */
	struct strbuf wrapped;    /* lines longer than the window, one per line */
	bool waiting_clear;       /* resized: scrolling is the old frame's until a clear */
	enum { PLAIN, ESC, CSI } st;
	char arg[16];
	size_t n_arg;
};

static void scr_clear_from(struct screen *s, unsigned row)
{
	for (unsigned i = row; i < MAX_ROWS; i++)
		memset(s->cells[i], 0, sizeof(s->cells[i]));
}

static void scr_newline(struct screen *s)
{
	s->c = 0;
	if (s->r + 1 < s->rows) {
		s->r++;
		return;
	}
	if (!s->waiting_clear) {
		strbuf_puts(&s->scrolled, s->cells[0]);
		strbuf_putc(&s->scrolled, '\n');
	}
	memmove(s->cells[0], s->cells[1], (size_t)(s->rows - 1) * sizeof(s->cells[0]));
	memset(s->cells[s->rows - 1], 0, sizeof(s->cells[0]));
}

static void scr_csi(struct screen *s, char final)
{
	s->arg[s->n_arg] = '\0';
	unsigned n = s->n_arg ? (unsigned)atoi(s->arg) : 0;
	switch (final) {
	case 'A':
		s->r = s->r >= (n ? n : 1) ? s->r - (n ? n : 1) : 0;
		break;
	case 'H':
		s->r = s->c = 0;
		break;
	case 'J':
		if (n == 2) {
			scr_clear_from(s, 0);
			s->waiting_clear = false;
		} else {
			memset(s->cells[s->r] + s->c, 0, COLS + 1 - s->c);
			scr_clear_from(s, s->r + 1);
		}
		break;
	case 'K':
		memset(s->cells[s->r] + s->c, 0, COLS + 1 - s->c);
		break;
	default:   /* colours */
		break;
	}
}

static void scr_put(struct screen *s, const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];
		if (s->st == ESC) {
			s->st = ch == '[' ? CSI : PLAIN;
			s->n_arg = 0;
		} else if (s->st == CSI) {
			if ((ch >= '0' && ch <= '9') || ch == ';') {
				if (s->n_arg + 1 < sizeof(s->arg))
					s->arg[s->n_arg++] = ch;
			} else {
				scr_csi(s, ch);
				s->st = PLAIN;
			}
		} else if (ch == '\033') {
			s->st = ESC;
		} else if (ch == '\r') {
			s->c = 0;
		} else if (ch == '\n') {
			scr_newline(s);
		} else if ((unsigned char)ch >= 0x20) {
			if (s->c == COLS) {
				strbuf_puts(&s->wrapped, s->cells[s->r]);
				strbuf_putc(&s->wrapped, '\n');
				scr_newline(s);
			}
			s->cells[s->r][s->c++] = ch;
		}
	}
}

static bool matches(const char *text, const char *re)
{
	regex_t rx;
	assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NEWLINE | REG_NOSUB), 0);
	bool m = regexec(&rx, text, 0, NULL, 0) == 0;
	regfree(&rx);
	return m;
}

/* The end of a long text, for a failure message (cmocka cuts long ones). */
static const char *tail(const char *text)
{
	size_t n = strlen(text);
	return n > 3000 ? text + n - 3000 : text;
}

static void set_size(int fd, unsigned rows)
{
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = COLS };
	assert_int_equal(ioctl(fd, TIOCSWINSZ, &ws), 0);
}

/* Reads what there is on the terminal into s and raw; false when nothing
 * came within ms. */
static bool take(int master, int ms, struct screen *s, struct strbuf *raw)
{
	struct pollfd pfd = { .fd = master, .events = POLLIN };
	if (poll(&pfd, 1, ms) <= 0)
		return false;
	char buf[4096];
	ssize_t n = read(master, buf, sizeof(buf));
	if (n <= 0)
		return n < 0 && errno == EINTR;
	strbuf_append(raw, buf, (size_t)n);
	scr_put(s, buf, (size_t)n);
	return true;
}

#define END_MARK "\n-- end of orch's output --\n"

/* Follows the child's terminal until it exits; then the test writes a mark
 * on the terminal itself, which comes out after everything the child wrote
 * (the tty hands bytes over asynchronously), and reads up to it. Shrinks
 * the window once the header and a failure have been drawn. Returns the
 * child's wait status. */
static int follow(int master, int slave, pid_t pid, struct screen *s, struct strbuf *raw)
{
	bool shrunk = false;
	int st = 0;
	for (int quiet_ms = 0; quiet_ms < 60000;) {
		if (!take(master, 100, s, raw)) {
			quiet_ms += 100;
			if (waitpid(pid, &st, WNOHANG) == pid) {
				assert_int_equal(write(slave, END_MARK, strlen(END_MARK)),
						 (ssize_t)strlen(END_MARK));
				while (!strstr(strbuf_str(raw), "-- end of orch's output --"))
					if (!take(master, 10000, s, raw))
						fail_msg("the end mark did not come back");
				return st;
			}
			continue;
		}
		quiet_ms = 0;
		if (!shrunk && matches(strbuf_str(raw), "[0-9]+/512 done.*ETA [0-9]") &&
		    strstr(strbuf_str(raw), "failed: t02")) {
			set_size(master, SMALL_ROWS);
			s->rows = SMALL_ROWS;
			if (s->r >= s->rows)
				s->r = s->rows - 1;
			s->waiting_clear = true;
			kill(pid, SIGWINCH);
			shrunk = true;
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	fail_msg("no output from orch for 60 s");
	return st;
}

static void test_frames_fit(void **state)
{
	int master, slave;
	struct winsize ws = { .ws_row = ROWS, .ws_col = COLS };
	assert_int_equal(openpty(&master, &slave, NULL, NULL, &ws), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(master);
		/* the pty is orch's stdin, stdout and stderr, not its controlling
		 * terminal: a session leader's exit would hang the terminal up and
		 * drop what orch wrote last before the test has read it */
		if (dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0 ||
		    chdir(tmp) != 0)
			_exit(126);
		close(slave);
		setenv("TERM", "xterm", 1);
		unsetenv("NO_COLOR");
		execl(ORCH_BIN, ORCH_BIN, "run", "live.yaml", "-o", "runs", (char *)NULL);
		_exit(127);
	}
	struct screen *s = calloc(1, sizeof(*s));
	s->rows = ROWS;
	struct strbuf raw = STRBUF_INIT;
	int st = follow(master, slave, pid, s, &raw);
	close(master);
	close(slave);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);   /* t02 failed on 30 boards */

	const char *text = strbuf_str(&raw);
	/* the header: totals and an ETA from the durations seen */
	if (!matches(text, "[0-9]+/512 done, [0-9]+ passed, [0-9]+ failed, [0-9]+ errors?, "
			   "[^,]+ elapsed, ETA [0-9]"))
		fail_msg("no header with totals and an ETA:\n%.4000s", text);
	/* the tests running now, folded by test */
	if (!matches(text, "running t0[1-8] on [0-9]+ boards b\\["))
		fail_msg("no folded running line:\n%.4000s", text);
	/* a frame taller than the window leaves its lines in the scrollback;
	 * only the summary at the end may scroll */
	const char *sc = strbuf_str(&s->scrolled);
	if (matches(sc, "done, [0-9]+ passed") || matches(sc, "^running t0") ||
	    matches(sc, "^b[0-9]+ [0-9]+/8"))
		fail_msg("a frame scrolled off a %u-row window:\n%s", ROWS, sc);
	if (s->waiting_clear)
		fail_msg("the window shrank to %u rows and the view was not drawn again",
			 SMALL_ROWS);
	/* messages above the view and the summary may wrap, the view's lines not */
	const char *wr = strbuf_str(&s->wrapped);
	if (matches(wr, "done, [0-9]+ passed") || matches(wr, "^running t0"))
		fail_msg("lines of the view wider than the window:\n%s", wr);
	/* the failures were named in the view, the summary printed once */
	TS_ASSERT_HAS(text, "failed: t02 on b1");
	const char *tally = strstr(text, "482 passed, 30 failed, 0 errors, 0 skipped in ");
	if (!tally || strstr(tally + 1, "482 passed, 30 failed, 0 errors, 0 skipped in "))
		fail_msg("the summary's tally not there once; the end:\n%s", tail(text));
	strbuf_release(&s->scrolled);
	strbuf_release(&s->wrapped);
	free(s);
	strbuf_release(&raw);
}

TS_MAIN(group_setup, group_teardown, test_frames_fit)
