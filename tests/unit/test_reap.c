/*
 * transport/reap: the leftover search, run for real in dash and busybox ash
 * inside a pid namespace of its own (unshare: its /proc holds only what the
 * test starts, so the pid window is known exactly). Each case starts 50
 * sleeps in the step's pid window from an older, unrelated shell (as the
 * other boards of a loopback rack do), then a step that leaves nothing, or
 * leaves a plain `cmd &`, a daemon that setsid's (orphaned to a subreaper
 * above the step, not to 1), a grandchild, and a shell whose TERM trap
 * starts one more process as it is stopped; two older processes have
 * pids above the step's, as on a board whose pids wrapped. The step shell is P in the
 * three ways orch runs the search: the wrapper's EXIT trap (P = $$), a
 * subshell of a long-lived runner shell (P = the subshell's pid, its parent
 * the runner, whose ancestors were read once as it started) and a second
 * command after the step's shell is gone.
 * Asserted: what is left is found and stopped; grep, the one process the
 * search starts, is never run over the unrelated sleeps, and not at all
 * when the step left nothing.
 */
#include "testsupport.h"
#include "transport/reap.h"
#include "util/strbuf.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char self[PATH_MAX];
static char *dir;

/* The lab, run by a subreaper (this program with --subreaper) as the
 * step's grandparent: two sleeps older than the step, children of the
 * subreaper, with pids set (ns_last_pid) above the step's as after a
 * wrap-around: one beyond the last pid, one inside the step's window;
 * noise (its sleeps start only once the step runs, so they are newer than
 * P); then the step in MODE; then what is left of `sleep 30[1-3]`. */
static const char LAB[] =
	"SH=$1; mode=$2; left=$3; d=$4; v=$5; reap_dir=$d; export d v reap_dir\n"
	"echo 30000 >/proc/sys/kernel/ns_last_pid; sleep 300 &\n"
	"echo 150 >/proc/sys/kernel/ns_last_pid; sleep 300 &\n"
	"echo 100 >/proc/sys/kernel/ns_last_pid; sleep 0.05\n"
	"$SH -c 'read x <'$d'/go; i=0; while [ $i -lt 50 ]; do sleep 300 & i=$((i+1)); done; "
	"echo >'$d'/ready; wait' &\n"
	"noise=$!\n"
	"$SH $d/step.sh \"$@\"\n"
	"if [ $mode = after ]; then P0=$(cat $d/p) $SH -c \". $d/fns.sh; $(cat $d/reap-after$v)\"; fi\n"
	"sleep 0.05; echo; echo \"left: $(pgrep -c -f '^sleep 30[1-5]')\"\n"
	"pkill -f '^sleep 30[0-5]'; kill $noise 2>/dev/null; wait\n";

/* grep as a function (busybox ash runs its own applet, not PATH's grep),
 * so every call is logged (to reap_dir: the script sets short names such
 * as d); body: what the step leaves. */
static const char FNS[] =
	"grep() { echo \"$*\" >>${reap_dir:?}/grep.log; command grep \"$@\"; }\n"
	"body() { [ $left = 1 ] || return 0; sleep 301 & "
	"setsid $SH -c 'sleep 302 </dev/null >/dev/null 2>&1 &'; "
	"$SH -c 'trap \"sleep 304 & exit 0\" TERM; sleep 305 & wait' & "
	"$SH -c 'sleep 303 & echo >'$d'/gc; wait' & "
	"while [ ! -e $d/gc ]; do :; done; }\n";

static const char STEP[] =
	"SH=$1; mode=$2; left=$3; d=$4; v=$5; . $d/fns.sh\n"
	"go() { echo >$d/go; read x <$d/ready; body; }\n"
	"case $mode in\n"
	"wrap) export ORCH_STEP_ID=tok; trap \"$(cat $d/reap-wrap$v)\" EXIT; go;;\n"
	"sub) eval \"$(cat $d/anc)\"; while :; do ( cd -P /proc/self && orch_p=${PWD#/proc/}; cd /; "
	"export ORCH_STEP_ID=tok; trap \"$(cat $d/reap-sub$v)\" EXIT; go ); break; done;;\n"
	"after) export ORCH_STEP_ID=tok; echo $$ >$d/p; go;;\n"
	"esac\n";

/* NAME: the script as orch sends it; NAME-ppid: the same made to take
 * the way of a kernel without /proc/PID/task/TID/children. */
static void write_script(const char *name, const char *pid_expr, const char *anc_expr)
{
	char *s = reap_script_under("tok", pid_expr, anc_expr, "1");
	free(ts_write_file(dir, name, s));
	struct strbuf b = STRBUF_INIT;
	for (const char *p = s; *p;) {
		if (strncmp(p, "/children", 9) == 0) {
			strbuf_puts(&b, "/nochildren");
			p += 9;
		} else {
			strbuf_putc(&b, *p++);
		}
	}
	char *alt = xasprintf("%s-ppid", name);
	free(ts_write_file(dir, alt, strbuf_str(&b)));
	free(alt);
	strbuf_release(&b);
	free(s);
}

static int setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	if (ts_run(NULL, "unshare -r -p -f --mount-proc true") != 0) {
		print_message("needs unshare -r -p -f --mount-proc (user and pid namespaces)\n");
		return -1;
	}
	dir = ts_mkdtemp_with("reap", "lab.sh", LAB);
	free(ts_write_file(dir, "fns.sh", FNS));
	free(ts_write_file(dir, "step.sh", STEP));
	write_script("reap-wrap", "$$", "");
	write_script("reap-sub", "$orch_p", "$orch_a");   /* as ssh_runner.c */
	write_script("reap-after", "$P0", "");
	char *anc = reap_ancestors_script("orch_a");
	free(ts_write_file(dir, "anc", anc));
	free(anc);
	return 0;
}

static int teardown(void **state)
{
	return ts_rmrf_free(&dir);
}

/* The grep calls of the last run, one line each ("" when none). */
static char *grep_calls(void)
{
	char *path = xasprintf("%s/grep.log", dir);
	char *text = ts_read_file(path);
	free(path);
	return text ? text : xstrdup("");
}

static void run_case(const char *sh, const char *mode, const char *variant, bool left)
{
	ts_run(NULL, "cd %s && rm -f grep.log p gc go ready && mkfifo go ready", dir);
	char *out = NULL;
	int rc = ts_run(&out, "unshare -r -p -f --mount-proc %s --subreaper %s %s/lab.sh '%s' %s %d %s '%s'",
			self, sh, dir, sh, mode, left ? 1 : 0, dir, variant);
	char *calls = grep_calls();
	struct transport_leftovers lo;
	int parsed = reap_parse(out, strlen(out), &lo);
	bool ok = rc == 0 && parsed == 0 && strstr(out, "left: 0\n");
	/* Environ files grep read, and its calls. After the step's shell is
	 * gone its start time is too, so the old sleep inside the window
	 * (pid 151, a child of the subreaper) may be read then, and only then. */
	int paths = 0, lines = 0;
	for (const char *p = calls; (p = strstr(p, "/proc/")); p++)
		if (strncmp(p, "/proc/151/", 10) != 0 || strcmp(mode, "after") != 0)
			paths++;
	for (const char *p = calls; (p = strchr(p, '\n')); p++)
		lines++;
	/* left: sleep 301, sleep 302, the grandchild's shell and sleep 303,
	 * the trapping shell and its sleep 305, found by one grep over those
	 * six; then sleep 304, which the trap starts on TERM, by a second pass
	 * (its grep also reads the first pass's processes that are not reaped
	 * yet: their environ is empty). The other shell's 50 sleeps are in no
	 * grep. Else no grep (but for pid 151, above). */
	if (left)
		ok = ok && lo.n == 7 && strstr(lo.list, "sleep") && lines >= 2 && lines <= 3 &&
		     paths >= 7 && paths <= 8 * lines;
	else
		ok = ok && lo.n == 0 && paths == 0 && lines <= (strcmp(mode, "after") == 0);
	if (!ok)
		fail_msg("%s, %s%s, %s: exit %d, reap line %s (%d: %s), grep calls:\n%s\noutput:\n%s",
			 sh, mode, variant, left ? "leftovers" : "none left", rc,
			 parsed == 0 ? "parsed" : "missing", lo.n, lo.list, calls, out);
	TS_FREE(calls, out);
}

static void cases(const char *sh)
{
	const char *modes[] = { "wrap", "sub", "after" };
	const char *variants[] = { "", "-ppid" };
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		for (size_t v = 0; v < 2; v++) {
			run_case(sh, modes[i], variants[v], false);
			run_case(sh, modes[i], variants[v], true);
		}
}

static void test_dash(void **state)
{
	cases("dash");
}

static void test_busybox_ash(void **state)
{
	if (access("/bin/busybox", X_OK) != 0)
		fail_msg("needs /bin/busybox (busybox-static, scripts/install-deps.sh)");
	cases("busybox ash");
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "--subreaper") == 0) {
		/* pid 1 of the namespace waits; its child, a subreaper, runs the lab */
		pid_t pid = fork();
		if (pid == 0) {
			prctl(PR_SET_CHILD_SUBREAPER, 1);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		int st = 0;
		while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		return pid > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dash),
		cmocka_unit_test(test_busybox_ash),
	};
	return ts_run_group(tests, setup, teardown);
}
