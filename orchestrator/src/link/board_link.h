#ifndef ORCH_LINK_BOARD_LINK_H
#define ORCH_LINK_BOARD_LINK_H
/*
 * The board link: one object per board for a whole run, owned by the
 * scheduler, and the only code that opens and closes what reaches a board:
 * its command transport (the SSH session, a local shell, or a logged-in
 * serial console), the extra connections of background steps, the serial
 * console itself (opened once per run and shared by boot capture, the
 * serial shell and background steps) and the power commands.
 *
 * It knows the board's state:
 *   unknown  nothing tried yet (or the last connection dropped: try again)
 *   up       a command transport is open
 *   booting  a power action or a reboot was made: the transport was dropped,
 *            and the next use waits (up to the asking test's timeout) until
 *            the board answers again; the wait is kept as last_reconnect_s
 *   down     connecting failed; later tests error at once with the same
 *            reason, until a power action makes the board booting again
 * and what the board can do (config/caps.h: ssh, console, power, arch).
 *
 * A link is used by one thread at a time: its board's worker, or the worker
 * of a multi-host test holding the board's lock (schedule.c).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/caps.h"
#include "config/model.h"
/* What the stages above reach boards with, offered here: nothing outside
 * link/ and transport/ includes a transport header (the stage_deps build
 * step enforces it). */
#include "transport/serial_capture.h"
#include "transport/serial_port.h"
#include "transport/transport.h"

enum board_state { BOARD_UNKNOWN = 0, BOARD_UP, BOARD_BOOTING, BOARD_DOWN };

/* "unknown", "up", "booting", "down". */
const char *board_state_name(enum board_state s);

struct board_link_thread;

struct board_link {
	const struct board *board;
	const char *power_dir;         /* power commands run here (borrowed) */
	enum board_state state;
	struct transport *transport;   /* the command transport; NULL until connected */
	struct serial_port *console;   /* the serial console, once opened */
	bool lent;                     /* the serial shell is lent to a background step */
	char *arch;                    /* inventory arch, or `uname -m` once */
	char *down_reason;             /* state down: why */
	char *connected_host;          /* the host SSH reached (after ~/.ssh/config), or NULL */
	bool bench_dir_ready;          /* workdir created on the board */
	int64_t booting_since_ms;      /* when the power action or reboot was made */
	double last_reconnect_s;       /* the last wait for a booting board; -1: none */
	struct board_link_thread *threads;  /* adopted: joined at release */
	/* runs that died holding the board: their board tokens, stopped
	 * before the board's first command (board_link_set_orphans), and
	 * who they were; NULL when none are pending */
	char *orphans, *orphans_from;
	char *orphans_note;            /* what was found and stopped, for the next result */
	atomic_int halt;               /* board_link_halt: stop every command on it */
};

/* power_dir is borrowed (the inventory's folder). */
void board_link_init(struct board_link *bl, const struct board *board, const char *power_dir);
/* Joins adopted threads, then closes everything the link opened. */
void board_link_release(struct board_link *bl);

/*
 * The command transport, connecting if needed: 0, or -1 with the reason in
 * err. A booting board is tried again and again until it answers or
 * wait_ms passes (the asking test's timeout; <= 0: one try); the wait is
 * then in bl->last_reconnect_s. A board found down fails at once.
 */
int board_link_get(struct board_link *bl, int64_t wait_ms, struct transport **out,
		   char *err, size_t errlen);
/* Drops a broken transport (a command failed at the transport level); the
 * next board_link_get() connects again. */
void board_link_reset(struct board_link *bl);

/* The connected address for {board.host}: what SSH reached after
 * ~/.ssh/config (HostName, ProxyJump), "localhost" for a local board, else
 * NULL (use the inventory's). Borrowed; valid until the next reconnect. */
const char *board_link_host(const struct board_link *bl);

/* Before a retry of an infrastructure error on a board without power
 * control: drops the transport and forgets that the board was found down,
 * so the next board_link_get() tries to connect again. */
void board_link_try_again(struct board_link *bl);

enum power_action { POWER_CYCLE = 0, POWER_ON, POWER_OFF };

/*
 * Runs the board's power commands for action (cycle: `cycle`, else `off`
 * then `on`), each bounded by timeout_ms (<= 0: 60 s). The command
 * transport is dropped and the board becomes booting (down after off), so
 * a board that was down is tried again. 0, or -1 with the reason in err.
 */
int board_link_power(struct board_link *bl, enum power_action action, int64_t timeout_ms,
		     char *err, size_t errlen);
/* Asks the board to reboot over its command transport; the transport is
 * dropped and the board becomes booting. 0, or -1 with the reason in err. */
int board_link_reboot(struct board_link *bl, char *err, size_t errlen);
/* The board is no longer this run's (its database lock was lost): the
 * command in flight on any of the link's connections is stopped (killed
 * like on a timeout) and every later one too. Any thread. */
void board_link_halt(struct board_link *bl);
/* Whether board_link_halt was called. */
bool board_link_halted(struct board_link *bl);

/* The board's state after a boot test watched it come up on its own (no
 * trigger): booting, so the next command waits for it. */
void board_link_mark_booting(struct board_link *bl);

/* The serial console, opened on first use and kept for the run (a serial
 * shell is attached to this same port). 0, or -1 with the reason in err.
 * Borrowed. */
int board_link_console(struct board_link *bl, struct serial_port **out, char *err,
		       size_t errlen);

/*
 * A connection of its own for a background step (released with
 * board_link_put_extra), once the board answers (a booting board is waited
 * for up to wait_ms, as board_link_get). Over ssh or local a new connection; on a board
 * whose only shell is its serial console, that shell is lent out (the board's
 * foreground commands then fail until it is given back).
 */
struct transport *board_link_get_extra(struct board_link *bl, int64_t wait_ms, char *err,
					size_t errlen);
void board_link_put_extra(struct board_link *bl, struct transport *t);

/* SSH algorithms for one connection (strings borrowed; NULL: the board's
 * ciphers, libssh's MACs). */
struct link_ssh_algos {
	const char *ciphers;
	const char *macs;
};
/*
 * An SSH connection of its own offering algos, once the board answers (a
 * booting board is waited for up to wait_ms, as board_link_get), for one
 * test; given back with board_link_put_extra. NULL with the reason in err,
 * also when the board is not reached over SSH (the reason says so).
 */
struct transport *board_link_get_ssh(struct board_link *bl, const struct link_ssh_algos *algos,
				     int64_t wait_ms, char *err, size_t errlen);
/* The algorithms t's SSH session agreed on, "cipher CIPHER, MAC MAC", into
 * buf. 0, or -1 if t is not a connected SSH transport. */
int board_link_ssh_algorithms(struct transport *t, char *buf, size_t len);

/* A thread that did not end in time (a background step stuck in its exec):
 * the link joins it at release and then calls done(arg), so no thread
 * outlives the run. */
void board_link_adopt(struct board_link *bl, pthread_t thread, void (*done)(void *arg),
		      void *arg);

/*
 * Runs that died holding the board (kill -9, a lost database lease) may
 * have left commands running on it: tokens (space-separated board tokens,
 * util/board_token.h) and from (who they were) are kept, and the next
 * connection first stops every process of the board user carrying one of
 * them (transport_reap: TERM, up to a second, KILL), then checks again
 * that none is left. Found and stopped: a warning naming them, kept in
 * orphans_note until board_link_take_orphans_note; not confirmed gone: the
 * board is down with that reason (its tests end as error, never beside
 * them). A serial console cannot be searched: a warning says so.
 */
void board_link_set_orphans(struct board_link *bl, const char *tokens, const char *from);
/* The note of stopped orphans (caller frees), or NULL; once. */
char *board_link_take_orphans_note(struct board_link *bl);

/* A plain connection to board through its configured transport, outside any
 * link: for `orch boards` (cmd level) only; caller frees. Its commands
 * carry the board's token (transport_set_mark). */
struct transport *board_link_connect_once(const struct board *board, char *err, size_t errlen);
/* The board's serial: section as a transport-level target (strings borrowed). */
void board_serial_target(const struct board *board, struct serial_target *t);

#endif
