#ifndef ORCH_TS_PTY_BOARD_H
#define ORCH_TS_PTY_BOARD_H
/*
 * A board whose only way in is its console, for the serial tests: the
 * lab's pty-line (tests/lab/pty-line.c) running a shell on a pty, again
 * after each logout, paced at a baud rate (0: as fast as it goes), its
 * console linked at DIR/NAME.tty. One board at a time per fixture; the
 * group fixture's state is a struct ts_pty_board.
 */
#include <sys/types.h>

struct ts_pty_board {
	char *dir;     /* the test's scratch folder (removed at teardown) */
	char *port;    /* DIR/NAME.tty of the board started last, or NULL */
	pid_t board;   /* pty-line, 0 when no board runs */
};

/* Group setup: exits 77 unless /bin/busybox and /bin/dash are here; -1
 * when the build has no pty-line; else *state is a fixture with a scratch
 * folder named after PREFIX, and 0. */
int ts_pty_board_setup(void **state, const char *prefix);
/* Group teardown: stops the board, removes the folder, frees; returns 0. */
int ts_pty_board_teardown(void **state);
/* Stops the board that runs, then starts board NAME at BAUD running SHELL
 * and waits for its console to appear (fails the test when it does not). */
void ts_pty_board_start(struct ts_pty_board *f, const char *name, int baud, const char *shell);

#endif
