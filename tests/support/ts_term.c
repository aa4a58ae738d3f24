#include "ts_term.h"
#include "testsupport.h"
#include "util/deadline.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* `stty -g` of the pty: its settings as stty prints them. */
char *ts_term_stty(const struct ts_term *t)
{
	char *out = NULL;
	assert_int_equal(ts_run(&out, "stty -g -F %s", t->slave_path), 0);
	return out;
}

void ts_term_start(struct ts_term *t, const char *cmd)
{
	memset(t, 0, sizeof(*t));
	t->master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(t->master >= 0);
	assert_int_equal(grantpt(t->master), 0);
	assert_int_equal(unlockpt(t->master), 0);
	t->slave_path = xstrdup(ptsname(t->master));
	t->slave = open(t->slave_path, O_RDWR | O_NOCTTY);
	assert_true(t->slave >= 0);
	t->before = ts_term_stty(t);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		setsid();
		int fd = open(t->slave_path, O_RDWR);   /* becomes the controlling tty */
		if (fd < 0)
			_exit(127);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
}

/* Reads what the command wrote for at most ms. */
void ts_term_pump(struct ts_term *t, int ms)
{
	struct pollfd p = { .fd = t->master, .events = POLLIN };
	if (poll(&p, 1, ms) <= 0)
		return;
	char buf[4096];
	ssize_t n = read(t->master, buf, sizeof(buf));
	if (n > 0)
		strbuf_append(&t->seen, buf, (size_t)n);
}

/* Waits until text appears after offset *from (then *from moves past it);
 * while waiting, nudge (when not NULL) is typed every 3 s. */
bool ts_term_wait(struct ts_term *t, size_t *from, const char *text, int64_t ms,
		      const char *nudge)
{
	int64_t dl = deadline_in_ms(ms), next_nudge = 0;
	while (!deadline_expired(dl)) {
		const char *at = strstr(strbuf_str(&t->seen) + *from, text);
		if (at) {
			*from = (size_t)(at - strbuf_str(&t->seen)) + strlen(text);
			return true;
		}
		if (nudge && clock_mono_ms() >= next_nudge) {
			assert_true(write(t->master, nudge, strlen(nudge)) == (ssize_t)strlen(nudge));
			next_nudge = clock_mono_ms() + 3000;
		}
		ts_term_pump(t, 100);
	}
	print_message("waited for '%s' in vain; seen:\n%s\n", text, strbuf_str(&t->seen));
	return false;
}

void ts_term_type(struct ts_term *t, const char *keys)
{
	assert_true(write(t->master, keys, strlen(keys)) == (ssize_t)strlen(keys));
}

/* The command's exit status, waited for at most ms (-1: still running). */
int ts_term_wait_exit(struct ts_term *t, int64_t ms)
{
	int64_t dl = deadline_in_ms(ms);
	int st;
	while (!deadline_expired(dl)) {
		if (waitpid(t->pid, &st, WNOHANG) == t->pid) {
			t->pid = 0;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		ts_term_pump(t, 50);
	}
	return -1;
}

void ts_term_end(struct ts_term *t)
{
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
	close(t->master);
	close(t->slave);
	TS_FREE(t->slave_path, t->before);
	strbuf_release(&t->seen);
}

/* Waits until the command made the pty raw (its settings differ from
 * before it started). */
bool ts_term_wait_raw(struct ts_term *t, int64_t ms)
{
	int64_t dl = deadline_in_ms(ms);
	while (!deadline_expired(dl)) {
		char *now = ts_term_stty(t);
		bool changed = strcmp(now, t->before) != 0;
		free(now);
		if (changed)
			return true;
		ts_term_pump(t, 50);
	}
	return false;
}


void ts_term_start_raw_at(struct ts_term *t, const char *cmd, const char *banner, size_t *at,
			  int64_t ms, const char *file, int line)
{
	ts_term_start(t, cmd);
	if (!ts_term_wait(t, at, banner, ms, NULL)) {
		print_error("no \"%s\" within %lld ms\n", banner, (long long)ms);
		_fail(file, line);
	}
	if (!ts_term_wait_raw(t, ms)) {
		print_error("the pty did not turn raw within %lld ms\n", (long long)ms);
		_fail(file, line);
	}
}

void ts_term_assert_exit_at(struct ts_term *t, int want, int64_t ms, const char *file, int line)
{
	int rc = ts_term_wait_exit(t, ms);
	if (rc != want) {
		const char *seen = strbuf_str(&t->seen);
		size_t len = t->seen.len;
		print_error("exit status %d, wanted %d; the end of what it wrote:\n%s\n", rc, want,
			    seen + (len > 400 ? len - 400 : 0));
		_fail(file, line);
	}
	char *after = ts_term_stty(t);
	bool restored = strcmp(t->before, after) == 0;
	if (!restored)
		print_error("the pty's settings are \"%s\", not those from before, \"%s\"\n", after,
			    t->before);
	free(after);
	if (!restored)
		_fail(file, line);
}
