/*
 * transport/ssh_wrap: what the wrapper costs a board before the command
 * runs, read from the board shell's own /proc/PID/io (syscr: read calls)
 * by the command itself, in dash and busybox ash, as the leader of its
 * process group (an OpenSSH exec channel: setsid) and not (dropbear: the
 * wrapper then calls setsid itself). Before, the group check read
 * /proc/$$/stat one byte per call: 300 reads on every command.
 */
#include "testsupport.h"
#include "transport/ssh_wrap.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The command: syscr (line 3 of /proc/$$/io) so far, and whether the
 * shell leads its group. */
static const char PROBE[] =
	"{ read -r x; read -r x; read -r x n; } </proc/$$/io; "
	"kill -0 -$$ 2>/dev/null && g=leader || g=member; echo \"reads $n $g\"";

/* Runs the wrapped probe under sh (with setsid in front when leader);
 * returns the number of reads and checks the group the command saw. */
static long run_probe(const char *sh, bool leader)
{
	char *wrapped = ssh_wrap_command(PROBE, "tok", true);
	char *dir = ts_mkdtemp("wrap");
	char *path = ts_write_file(dir, "cmd", wrapped);
	char *out = NULL;
	/* $0 sh, as a login shell of /bin/sh; stdout a pipe, as on a channel:
	 * the wrapper then runs the command itself and the reap in its EXIT trap */
	int rc = ts_run(&out, "%s %s -c \"$(cat %s)\" sh | cat", leader ? "setsid -w" : "", sh, path);
	long n = -1;
	const char *r = out ? strstr(out, "reads ") : NULL;
	if (rc != 0 || !r || !strstr(out, "orch-reap"))
		fail_msg("%s: exit %d, output:\n%s", sh, rc, out ? out : "");
	n = strtol(r + 6, NULL, 10);
	/* either way the command runs as the leader of its own group */
	if (!strstr(r, " leader"))
		fail_msg("%s (%s): the command's shell does not lead its group:\n%s", sh,
			 leader ? "leader" : "member", out);
	ts_rmrf(dir);
	TS_FREE(out, path, dir, wrapped);
	return n;
}

static void check(const char *sh)
{
	for (int leader = 1; leader >= 0; leader--) {
		long n = run_probe(sh, leader);
		print_message("%s (%s): %ld reads\n", sh, leader ? "leader" : "member", n);
		/* the probe's own /proc/$$/io lines are about 40 reads */
		if (n < 0 || n > 120)
			fail_msg("%s (%s): %ld read calls before the command", sh,
				 leader ? "leader" : "member", n);
	}
}

static void test_dash(void **state)
{
	check("dash");
}

static void test_busybox_ash(void **state)
{
	if (access("/bin/busybox", X_OK) != 0)
		fail_msg("needs /bin/busybox (busybox-static, scripts/install-deps.sh)");
	check("busybox ash");
}

TS_MAIN(NULL, NULL, test_dash, test_busybox_ash)
