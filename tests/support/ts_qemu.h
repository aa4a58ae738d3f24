#ifndef ORCH_TS_QEMU_H
#define ORCH_TS_QEMU_H
/*
 * The qemu lab board (tests/lab/qemu-board.sh) as a test fixture: checks
 * that it can run here, starts it in a scratch folder of its own and stops
 * it again. Its console, ssh key and known_hosts are in STATE; the power
 * commands are `SCRIPT power on|off|cycle --state STATE`.
 */

struct ts_qemu {
	char *script;   /* tests/lab/qemu-board.sh in the source tree */
	char *dir;      /* the scratch folder (removed by ts_qemu_stop) */
	char *state;    /* DIR/board: the board's state folder */
};

/* Starts the board with `start --state STATE` and the options OPTS_FMT
 * gives (e.g. "--no-net", "--ssh-port %d"), in a scratch folder named
 * after PREFIX. Returns 0, or -1 after saying why on the test output
 * ("skipped: ..." when qemu, a kernel or a tool is missing) with Q
 * cleaned up as ts_qemu_stop does. */
int ts_qemu_start(struct ts_qemu *q, const char *prefix, const char *opts_fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Stops the board, removes the scratch folder, frees and zeroes Q; a
 * zeroed or already stopped Q is fine. */
void ts_qemu_stop(struct ts_qemu *q);

#endif
