#include "testsupport.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <limits.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A peer that closes its end must not kill the test with SIGPIPE before
 * its teardown has stopped what it started. */
__attribute__((constructor)) static void ts_ignore_sigpipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}

/* Board locks are machine-wide (the lock folder): every test process gets
 * a lock folder of its own, so tests that run at once (ctest -j, another
 * checkout's suite) never hold each other's boards. A test of the locks
 * themselves sets ORCH_LOCK_DIR in the commands it runs. */
static char ts_lock_dir[64];

static void ts_remove_lock_dir(void)
{
	if (getpid() != (pid_t)strtol(strrchr(ts_lock_dir, '-') + 1, NULL, 10))
		return;   /* a forked child exiting */
	char *cmd = xasprintf("rm -rf '%s'", ts_lock_dir);
	if (system(cmd) != 0) {
		/* a leftover folder in /tmp is harmless */
	}
	free(cmd);
}

__attribute__((constructor)) static void ts_private_lock_dir(void)
{
	if (getenv("ORCH_LOCK_DIR"))
		return;
	snprintf(ts_lock_dir, sizeof(ts_lock_dir), "/tmp/orch-test-locks-%ld", (long)getpid());
	if (mkdir(ts_lock_dir, 0700) < 0 && errno != EEXIST)
		return;
	setenv("ORCH_LOCK_DIR", ts_lock_dir, 1);
	atexit(ts_remove_lock_dir);
}

pid_t ts_spawn(const char *cmd, const char *log)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	setsid();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);   /* the test died before the death signal was set */
	signal(SIGPIPE, SIG_DFL);
	int fd = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

void ts_stop(pid_t *pid)
{
	if (*pid <= 0)
		return;
	kill(-*pid, SIGTERM);
	kill(*pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		if (waitpid(*pid, NULL, WNOHANG) == *pid) {
			*pid = 0;
			return;
		}
		usleep(10000);
	}
	kill(-*pid, SIGKILL);
	kill(*pid, SIGKILL);
	waitpid(*pid, NULL, 0);
	*pid = 0;
}

char *ts_mkdtemp(const char *prefix)
{
	const char *base = getenv("ORCH_TEST_TMP");
	if (!base || !*base)
		base = "/tmp";
	mkdir(base, 0755);
	char *tmpl = xasprintf("%s/%s-XXXXXX", base, prefix);
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "mkdtemp %s: %s\n", tmpl, strerror(errno));
		abort();
	}
	return tmpl;
}

void ts_rmrf(const char *dir)
{
	if (!dir || (strncmp(dir, "/tmp/", 5) != 0 && !strstr(dir, "/tmp/")))
		return;
	ts_run(NULL, "rm -rf '%s'", dir);
}

char *ts_mkdtemp_with(const char *prefix, const char *name, const char *text)
{
	char *dir = ts_mkdtemp(prefix);
	free(ts_write_file(dir, name, text));
	return dir;
}

int ts_rmrf_free(char **dir)
{
	ts_rmrf(*dir);
	free(*dir);
	*dir = NULL;
	return 0;
}

char *ts_write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		abort();
	}
	fputs(text, f);
	fclose(f);
	return path;
}

char *ts_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_append(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb);
}

char *ts_read_in(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *text = ts_read_file(path);
	if (!text)
		fail_msg("cannot read %s", path);
	free(path);
	return text;
}

size_t ts_count_lines(const char *text, const char *w1, const char *w2)
{
	size_t n = 0;
	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char *line = xstrndup(l, len);
		if (strstr(line, w1) && (!w2 || strstr(line, w2)))
			n++;
		free(line);
		l = e ? e + 1 : l + len;
	}
	return n;
}

bool ts_file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

bool ts_pid_running(long pid)
{
	char *path = xasprintf("/proc/%ld/status", pid);
	char *text = ts_read_file(path);
	bool alive = text && !strstr(text, "State:\tZ");
	TS_FREE(text, path);
	return alive;
}

int ts_run(char **output, const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	strbuf_puts(&cmd, " 2>&1");
	FILE *p = popen(strbuf_str(&cmd), "r");
	strbuf_release(&cmd);
	if (!p)
		return -1;
	struct strbuf out = STRBUF_INIT;
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		if (out.len < (1u << 20))
			strbuf_append(&out, buf, n);
	int status = pclose(p);
	if (output)
		*output = strbuf_detach(&out);
	else
		strbuf_release(&out);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int ts_run_until(int ms, int want, const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	int rc = -1;
	for (int64_t dl = deadline_in_ms(ms);;) {
		if ((rc = ts_run(NULL, "%s", strbuf_str(&cmd))) == want || deadline_expired(dl))
			break;
		usleep(20000);
	}
	strbuf_release(&cmd);
	return rc;
}

int64_t ts_deadline_in_ms(int ms)
{
	return deadline_in_ms(ms);
}

bool ts_deadline_passed(int64_t deadline)
{
	return deadline_expired(deadline);
}

void ts_pause_ms(int ms)
{
	usleep((useconds_t)ms * 1000);
}

bool ts_pid_has_open(pid_t pid, const char *path)
{
	char *dir = xasprintf("/proc/%ld/fd", (long)pid);
	DIR *d = opendir(dir);
	bool found = false;
	for (struct dirent *e; d && !found && (e = readdir(d));) {
		char *fd = xasprintf("%s/%s", dir, e->d_name);
		char target[PATH_MAX];
		ssize_t n = readlink(fd, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			found = strcmp(target, path) == 0;
		}
		free(fd);
	}
	if (d)
		closedir(d);
	free(dir);
	return found;
}

bool ts_is_root(void)
{
	return geteuid() == 0;
}

static bool ts_skipped;

static void ts_vsay_skip(const char *fmt, va_list ap)
{
	struct strbuf why = STRBUF_INIT;
	strbuf_vprintf(&why, fmt, ap);
	fprintf(stderr, "SKIP: %s\n", strbuf_str(&why));
	strbuf_release(&why);
}

void ts_note_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ts_vsay_skip(fmt, ap);
	va_end(ap);
	ts_skipped = true;
}

void ts_skip_file(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ts_vsay_skip(fmt, ap);
	va_end(ap);
	fflush(NULL);
	exit(77);
}

void ts_require_root(const char *why)
{
	if (!ts_is_root())
		ts_skip_file("needs root (%s)", why);
}

void ts_require_tool(const char *tool, const char *how)
{
	if (ts_run(NULL, "command -v '%s' >/dev/null 2>&1", tool) != 0)
		ts_skip_file("needs %s (%s)", tool, how);
}

int ts_exit_code(int failed)
{
	if (failed)
		return failed;
	return ts_skipped ? 77 : 0;
}

const char *ts_find_chromium(void)
{
	static const char *const names[] = { "chromium", "chromium-browser", "google-chrome" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ts_run(NULL, "command -v %s >/dev/null 2>&1", names[i]) == 0)
			return names[i];
	return NULL;
}

void ts_lab_script_down(const char *script, const char *dir)
{
	char *out = NULL;
	if (dir) {
		int rc = ts_run(&out, "%s/tests/lab/%s down --dir '%s' 2>&1", ORCH_SOURCE_DIR, script,
				dir);
		if (rc != 0)
			fprintf(stderr, "%s down failed (%d):\n%s\n", script, rc, out ? out : "");
		free(out);
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

void ts_lab_script_dirs(const char *name, unsigned mode, char **tmp, char **dir)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	*tmp = ts_mkdtemp(name);
	chmod(*tmp, (mode_t)mode);
	*dir = xasprintf("%s/%s", *tmp, name);
}

char *ts_tmp;

int ts_tmp_setup(void **state)
{
	ts_tmp = ts_mkdtemp(program_invocation_short_name);
	return 0;
}

int ts_tmp_teardown(void **state)
{
	return ts_rmrf_free(&ts_tmp);
}
