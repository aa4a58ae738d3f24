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
	char *inventory; /* DIR/rack.yaml, once ts_qemu_write_inventory wrote it */
};

/* Starts the board with `start --state STATE` and the options OPTS_FMT
 * gives (e.g. "--no-net", "--ssh-port %d"), in a scratch folder named
 * after PREFIX. Returns 0, or -1 after saying why on the test output
 * ("skipped: ..." when qemu, a kernel or a tool is missing) with Q
 * cleaned up as ts_qemu_stop does. */
int ts_qemu_start(struct ts_qemu *q, const char *prefix, const char *opts_fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The inventory keys of the started board, indented for a board's map
 * (four spaces): ssh as root on ADDR:PORT with its key, known_hosts and
 * CONNECT_TIMEOUT ("5s"), its serial console, and power on/off/cycle
 * through the lab script. Caller frees. */
char *ts_qemu_board_yaml(const struct ts_qemu *q, const char *addr, int port,
			 const char *connect_timeout);
/* Writes TEXT to DIR/rack.yaml and sets q->inventory to its path. */
void ts_qemu_write_inventory(struct ts_qemu *q, const char *text);
/* Stops the board, removes the scratch folder, frees and zeroes Q; a
 * zeroed or already stopped Q is fine. */
void ts_qemu_stop(struct ts_qemu *q);

/* A group teardown whose state is the struct ts_qemu the setup started:
 * ts_qemu_stop of it; returns 0. */
int ts_qemu_group_down(void **state);

#endif
