#include "ts_pty_board.h"
#include "testsupport.h"

#include "util/deadline.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <unistd.h>

#define PTY_LINE ORCH_BINARY_DIR "/tests/lab/pty-line"

int ts_pty_board_setup(void **state, const char *prefix)
{
	if (access("/bin/busybox", X_OK) != 0 || access("/bin/dash", X_OK) != 0)
		ts_skip_file("needs /bin/busybox and /bin/dash (apt-get install busybox dash)");
	if (access(PTY_LINE, X_OK) != 0) {
		print_message("the build has no %s\n", PTY_LINE);
		return -1;
	}
	struct ts_pty_board *f = xcalloc(1, sizeof(*f));
	f->dir = ts_mkdtemp(prefix);
	*state = f;
	return 0;
}

int ts_pty_board_teardown(void **state)
{
	struct ts_pty_board *f = *state;
	if (!f)
		return 0;
	ts_stop(&f->board);
	ts_rmrf(f->dir);
	TS_FREE(f->dir, f->port, f);
	*state = NULL;
	return 0;
}

void ts_pty_board_start(struct ts_pty_board *f, const char *name, int baud, const char *shell)
{
	ts_stop(&f->board);
	free(f->port);
	f->port = xasprintf("%s/%s.tty", f->dir, name);
	char *cmd = xasprintf("exec %s --baud %d --link %s -- /bin/sh -c 'while :; do %s; done'",
			      PTY_LINE, baud, f->port, shell);
	f->board = ts_spawn(cmd, NULL);
	free(cmd);
	for (int64_t dl = deadline_in_ms(5000); !ts_file_exists(f->port) && !deadline_expired(dl);)
		usleep(20000);
	if (!ts_file_exists(f->port))
		fail_msg("the board's console %s did not appear in 5 s", f->port);
}
