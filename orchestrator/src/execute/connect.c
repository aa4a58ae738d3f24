/*
 * From an inventory board to a transport, and the per-board connection the
 * worker keeps for all of the board's tests.
 */
#include "execute/execute.h"
#include "execute/facts.h"
#include "util/log.h"
#include "transport/transport_local.h"
#include "transport/transport_ssh.h"
#include "util/secret.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum ssh_host_key_check host_key_check(enum host_key_policy p)
{
	switch (p) {
	case HOST_KEY_ACCEPT_NEW: return SSH_HOSTKEY_ACCEPT_NEW;
	case HOST_KEY_OFF: return SSH_HOSTKEY_OFF;
	case HOST_KEY_STRICT: break;
	}
	return SSH_HOSTKEY_STRICT;
}

static struct transport *connect_ssh(const struct board *b, char *err, size_t errlen)
{
	const char *password = NULL;
	if (b->ssh.password_env) {
		password = secret_get(b->ssh.password_env);
		if (!password) {
			snprintf(err, errlen, "%s: password variable %s is not set",
				 b->name, b->ssh.password_env);
			return NULL;
		}
	}
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
	};
	transport_ssh_global_init();
	return transport_ssh_new(&target, err, errlen);
}

struct transport *board_connect(const struct board *b, char *err, size_t errlen)
{
	switch (b->transport) {
	case TRANSPORT_KIND_SSH:
		return connect_ssh(b, err, errlen);
	case TRANSPORT_KIND_LOCAL:
		return transport_local_new();
	case TRANSPORT_KIND_SERIAL:
		return board_connect_serial(b, err, errlen);
	case TRANSPORT_KIND_NONE:
		break;
	}
	snprintf(err, errlen, "%s has no way to run commands (no ssh, serial or local)", b->name);
	return NULL;
}

void board_conn_init(struct board_conn *bc, const struct board *board)
{
	memset(bc, 0, sizeof(*bc));
	bc->board = board;
	bc->arch = xstrdup(board->arch);
}

/* The board's facts, once, over the connection its first test uses. A
 * failure costs the facts only; a lost connection is reopened by the test. */
static void board_conn_gather_facts(struct board_conn *bc)
{
	char err[512];
	bc->facts_done = true;
	if (!bc->facts.board)
		bc->facts.board = xstrdup(bc->board->name);
	if (facts_gather(bc->transport, bc->fact_specs, bc->n_fact_specs, &bc->facts, err,
			 sizeof(err)) < 0) {
		log_warn("%s: facts not gathered: %s", bc->board->name, err);
		board_conn_reset(bc);
	}
}

int board_conn_get(struct board_conn *bc, struct transport **out, char *err, size_t errlen)
{
	for (int attempt = 0; attempt < 2 && !bc->transport && !bc->connect_error; attempt++) {
		bc->transport = board_connect(bc->board, err, errlen);
		if (!bc->transport)
			bc->connect_error = xstrdup(err);
		else if (bc->want_facts && !bc->facts_done)
			board_conn_gather_facts(bc);
	}
	if (!bc->transport)
		snprintf(err, errlen, "%s", bc->connect_error);
	*out = bc->transport;
	return bc->transport ? 0 : -1;
}

void board_conn_reset(struct board_conn *bc)
{
	transport_free(bc->transport);
	bc->transport = NULL;
	bc->bench_dir_ready = false;
}

void board_conn_release(struct board_conn *bc)
{
	board_conn_reset(bc);
	free(bc->arch);
	free(bc->connect_error);
	board_facts_release(&bc->facts);
	bc->arch = NULL;
	bc->connect_error = NULL;
}
