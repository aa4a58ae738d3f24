/*
 * The board link (board_link.h): connecting, the board's state, the shared
 * serial console, and the background connections and threads it owns.
 * Power and reboot are in link_power.c.
 */
#include "link/board_link.h"
#include "link/link_internal.h"
#include "transport/transport_local.h"
#include "transport/transport_serial.h"
#include "transport/transport_ssh.h"
#include "util/board_token.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/secret.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RETRY_PAUSE_MS 1000

struct board_link_thread {
	pthread_t thread;
	void (*done)(void *arg);
	void *arg;
	struct board_link_thread *next;
};

const char *board_state_name(enum board_state s)
{
	static const char *const names[] = { "unknown", "up", "booting", "down" };
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

void board_serial_target(const struct board *b, struct serial_target *t)
{
	const struct board_serial *s = &b->serial;
	memset(t, 0, sizeof(*t));
	t->port = s->port;
	t->usb = s->usb;
	t->url = s->url;
	t->baud = s->baud;
	t->data_bits = s->data_bits;
	t->parity = s->parity == PARITY_ODD ? SERIAL_PARITY_ODD
		  : s->parity == PARITY_EVEN ? SERIAL_PARITY_EVEN : SERIAL_PARITY_NONE;
	t->stop_bits = s->stop_bits;
	t->flow = s->flow == FLOW_RTSCTS ? SERIAL_FLOW_RTSCTS
		: s->flow == FLOW_XONXOFF ? SERIAL_FLOW_XONXOFF : SERIAL_FLOW_NONE;
	t->login_user = s->login_user;
	t->char_delay_us = s->char_delay_us;
}

static enum ssh_host_key_check host_key_check(enum host_key_policy p)
{
	switch (p) {
	case HOST_KEY_ACCEPT_NEW: return SSH_HOSTKEY_ACCEPT_NEW;
	case HOST_KEY_OFF: return SSH_HOSTKEY_OFF;
	case HOST_KEY_STRICT: break;
	}
	return SSH_HOSTKEY_STRICT;
}

static int password_of(const struct board *b, const char *var, const char **out, char *err,
		       size_t errlen)
{
	*out = NULL;
	if (!var)
		return 0;
	*out = secret_get(var);
	if (*out)
		return 0;
	snprintf(err, errlen, "%s: password variable %s is not set", b->name, var);
	return -1;
}

/* An inventory arch whose CPUs have no AES instructions (i386..i686,
 * 32-bit ARM, MIPS): ChaCha20 is faster there in software. */
static bool arch_without_aes(const char *arch)
{
	static const char *const prefixes[] = { "i386", "i486", "i586", "i686", "x86", "arm",
						"mips", NULL };
	if (!arch || strncmp(arch, "arm64", 5) == 0 || strncmp(arch, "aarch64", 7) == 0 ||
	    strcmp(arch, "x86_64") == 0)
		return false;
	for (size_t i = 0; prefixes[i]; i++)
		if (strncmp(arch, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* algos: this connection's own ciphers and MACs, or NULL: the board's. */
static struct transport *connect_ssh(const struct board *b, const struct link_ssh_algos *algos,
				     char *err, size_t errlen)
{
	const char *password;
	if (password_of(b, b->ssh.password_env, &password, err, errlen) < 0)
		return NULL;
	struct ssh_target target = {
		.name = b->name,
		.host = b->ssh.host ? b->ssh.host : b->name,
		.port = b->ssh.port,
		.user = b->ssh.user,
		.identity = b->ssh.identity,
		.password = password,
		.host_key = host_key_check(b->ssh.host_key),
		.known_hosts = b->ssh.known_hosts,
		.ssh_config = getenv("ORCH_SSH_CONFIG"),
		.connect_timeout_ms = b->ssh.connect_timeout_ms,
		.ciphers = algos && algos->ciphers ? algos->ciphers
			 : b->ssh.ciphers ? b->ssh.ciphers
			 : arch_without_aes(b->arch) ? SSH_CIPHERS_CHACHA_FIRST : NULL,
		.macs = algos ? algos->macs : NULL,
		.send_window = b->ssh.send_window,
		.no_runner = b->ssh.no_runner,
	};
	transport_ssh_global_init();
	return transport_ssh_new(&target, err, errlen);
}

/* A serial shell on port (borrowed), or on a port of its own when NULL. */
static struct transport *connect_serial(const struct board *b, struct serial_port *port,
					char *err, size_t errlen)
{
	const char *password;
	if (password_of(b, b->serial.password_env, &password, err, errlen) < 0)
		return NULL;
	struct serial_target t;
	board_serial_target(b, &t);
	if (port)
		return transport_serial_attach(port, &t, password, b->name, err, errlen);
	return transport_serial_new(&t, password, b->name, err, errlen);
}

static struct transport *connect_once(const struct board *b, char *err, size_t errlen)
{
	switch (b->transport) {
	case TRANSPORT_KIND_SSH:
		log_debug("%s: ssh: connecting to %s (port %d, 0: from ~/.ssh/config or 22)%s%s, "
			  "timeout %lld ms", b->name, b->ssh.host ? b->ssh.host : b->name,
			  b->ssh.port, b->ssh.user ? " as " : "", b->ssh.user ? b->ssh.user : "",
			  (long long)b->ssh.connect_timeout_ms);
		return connect_ssh(b, NULL, err, errlen);
	case TRANSPORT_KIND_LOCAL:
		log_debug("%s: local board: commands run on this machine", b->name);
		return transport_local_new();
	case TRANSPORT_KIND_SERIAL:
		log_debug("%s: serial: logging in on the console", b->name);
		return connect_serial(b, NULL, err, errlen);
	case TRANSPORT_KIND_NONE:
		break;
	}
	snprintf(err, errlen, "%s has no way to run commands (no ssh, serial or local)", b->name);
	return NULL;
}

struct transport *board_link_connect_once(const struct board *b, char *err, size_t errlen)
{
	struct transport *t = connect_once(b, err, errlen);
	char token[BOARD_TOKEN_LEN + 1];
	board_token(b->name, token, sizeof(token));
	transport_set_mark(t, token);
	if (t)
		log_debug("%s: connected: %s", b->name, transport_describe(t));
	else
		log_debug("%s: not connected: %s", b->name, err);
	return t;
}

void board_link_init(struct board_link *bl, const struct board *board, const char *power_dir)
{
	memset(bl, 0, sizeof(*bl));
	bl->board = board;
	bl->power_dir = power_dir;
	bl->arch = board->arch ? xstrdup(board->arch) : NULL;
	bl->last_reconnect_s = -1;
}

/* One attempt at the command transport. */
static struct transport *link_connect(struct board_link *bl, char *err, size_t errlen)
{
	if (bl->board->transport != TRANSPORT_KIND_SERIAL)
		return board_link_connect_once(bl->board, err, errlen);
	struct serial_port *port;
	if (board_link_console(bl, &port, err, errlen) < 0)
		return NULL;
	return connect_serial(bl->board, port, err, errlen);
}

static void link_set_down(struct board_link *bl, const char *why)
{
	free(bl->down_reason);
	bl->down_reason = xstrdup(why);
	bl->state = BOARD_DOWN;
}

static void pause_ms(int64_t ms, int64_t dl)
{
	int64_t until = deadline_in_ms(ms);
	while (!deadline_expired(until) && !deadline_expired(dl) && !interrupt_requested()) {
		struct timespec ts = { 0, (long)deadline_poll_ms(until) * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* Tries a booting board until it answers or wait_ms passes. */
static struct transport *link_await(struct board_link *bl, int64_t wait_ms, char *err,
				    size_t errlen)
{
	int64_t dl = deadline_in_ms(wait_ms);
	int64_t t0 = clock_mono_ms();
	int tries = 0;
	for (;;) {
		struct transport *t = link_connect(bl, err, errlen);
		tries++;
		if (t) {
			bl->last_reconnect_s = (double)(clock_mono_ms() - t0) / 1000.0;
			log_info("%s: answering again after %.1f s (%d tries)", bl->board->name,
				 bl->last_reconnect_s, tries);
			return t;
		}
		if (wait_ms <= 0 || deadline_expired(dl) || interrupt_requested())
			break;
		/* a reflashed board with a new host key does not come back by waiting */
		if (strstr(err, TRANSPORT_SSH_HOSTKEY_MISMATCH))
			return NULL;
		pause_ms(RETRY_PAUSE_MS, dl);
	}
	size_t n = strlen(err);
	snprintf(err + n, errlen - n, " (waited %.0f s for it to come back after %s)",
		 (double)(clock_mono_ms() - t0) / 1000.0,
		 bl->booting_since_ms ? "a power action or reboot" : "a boot");
	return NULL;
}

int board_link_get(struct board_link *bl, int64_t wait_ms, struct transport **out,
		   char *err, size_t errlen)
{
	*out = NULL;
	if (bl->transport && !bl->lent) {
		*out = bl->transport;
		return 0;
	}
	if (bl->lent) {
		snprintf(err, errlen, "%s: its serial shell is busy with a background step",
			 bl->board->name);
		return -1;
	}
	if (bl->state == BOARD_DOWN) {
		snprintf(err, errlen, "%s", bl->down_reason);
		return -1;
	}
	struct transport *t = bl->state == BOARD_BOOTING ? link_await(bl, wait_ms, err, errlen)
							  : link_connect(bl, err, errlen);
	if (!t || link_stop_orphans(bl, t, err, errlen) < 0) {
		transport_free(t);
		link_set_down(bl, err);
		return -1;
	}
	transport_set_halt(t, &bl->halt);
	bl->transport = t;
	bl->state = BOARD_UP;
	free(bl->connected_host);
	const char *h = transport_ssh_connected_host(t);
	bl->connected_host = h ? xstrdup(h) : NULL;
	*out = t;
	return 0;
}

void board_link_halt(struct board_link *bl)
{
	atomic_store(&bl->halt, 1);
}

bool board_link_halted(struct board_link *bl)
{
	return atomic_load(&bl->halt) != 0;
}

void board_link_reset(struct board_link *bl)
{
	link_drop_transport(bl);
	if (bl->state == BOARD_UP)
		bl->state = BOARD_UNKNOWN;
}

void board_link_try_again(struct board_link *bl)
{
	link_drop_transport(bl);
	if (bl->state != BOARD_BOOTING)
		bl->state = BOARD_UNKNOWN;
}

void link_drop_transport(struct board_link *bl)
{
	if (bl->lent)
		return;   /* the background step's thread still has it: put_extra frees */
	transport_free(bl->transport);
	bl->transport = NULL;
	bl->bench_dir_ready = false;
}

const char *board_link_host(const struct board_link *bl)
{
	if (bl->connected_host)
		return bl->connected_host;
	return bl->board->transport == TRANSPORT_KIND_LOCAL ? "localhost" : NULL;
}

int board_link_console(struct board_link *bl, struct serial_port **out, char *err,
		       size_t errlen)
{
	*out = NULL;
	if (!bl->board->serial.present) {
		snprintf(err, errlen, "%s has no serial console", bl->board->name);
		return -1;
	}
	if (!bl->console) {
		struct serial_target t;
		board_serial_target(bl->board, &t);
		bl->console = serial_port_open(&t, err, errlen);
		if (!bl->console)
			return -1;
	}
	*out = bl->console;
	return 0;
}

struct transport *board_link_get_extra(struct board_link *bl, int64_t wait_ms, char *err,
					size_t errlen)
{
	struct transport *t;
	/* the board must answer first (a booting one is waited for) */
	if (board_link_get(bl, wait_ms, &t, err, errlen) < 0)
		return NULL;
	if (bl->board->transport != TRANSPORT_KIND_SERIAL) {
		struct transport *x = board_link_connect_once(bl->board, err, errlen);
		transport_set_halt(x, &bl->halt);
		return x;
	}
	bl->lent = true;
	return t;
}

struct transport *board_link_get_ssh(struct board_link *bl, const struct link_ssh_algos *algos,
				     int64_t wait_ms, char *err, size_t errlen)
{
	struct transport *t;
	if (bl->board->transport != TRANSPORT_KIND_SSH) {
		snprintf(err, errlen, "%s: ciphers and MACs need an SSH board (its commands run "
			 "over %s)", bl->board->name,
			 bl->board->transport == TRANSPORT_KIND_LOCAL ? "no SSH: it is local"
			 : bl->board->transport == TRANSPORT_KIND_SERIAL ? "its serial console"
			 : "nothing");
		return NULL;
	}
	if (board_link_get(bl, wait_ms, &t, err, errlen) < 0)
		return NULL;
	log_debug("%s: ssh: a connection of its own (ciphers %s, MACs %s)", bl->board->name,
		  algos->ciphers ? algos->ciphers : "the board's",
		  algos->macs ? algos->macs : "libssh's");
	return connect_ssh(bl->board, algos, err, errlen);
}

void board_link_put_extra(struct board_link *bl, struct transport *t)
{
	if (bl->lent && t == bl->transport) {
		bl->lent = false;
		return;
	}
	transport_free(t);
}

void board_link_adopt(struct board_link *bl, pthread_t thread, void (*done)(void *arg),
		      void *arg)
{
	struct board_link_thread *th = xcalloc(1, sizeof(*th));
	th->thread = thread;
	th->done = done;
	th->arg = arg;
	th->next = bl->threads;
	bl->threads = th;
}

void board_link_release(struct board_link *bl)
{
	while (bl->threads) {
		struct board_link_thread *th = bl->threads;
		bl->threads = th->next;
		pthread_join(th->thread, NULL);
		if (th->done)
			th->done(th->arg);
		free(th);
	}
	bl->lent = false;
	link_drop_transport(bl);
	serial_port_close(bl->console);
	bl->console = NULL;
	free(bl->arch);
	free(bl->down_reason);
	free(bl->connected_host);
	bl->arch = bl->down_reason = bl->connected_host = NULL;
	free(bl->orphans);
	free(bl->orphans_from);
	free(bl->orphans_note);
	bl->orphans = bl->orphans_from = bl->orphans_note = NULL;
}

int board_link_ssh_algorithms(struct transport *t, char *buf, size_t len)
{
	return transport_ssh_algorithms(t, buf, len);
}
