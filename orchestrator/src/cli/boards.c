/* orch boards: list the inventory's boards; --check probes each one. */
#include "cli/cli.h"
#include "cli/common.h"
#include "config/cfg_read.h"
#include "config/selector.h"
#include "execute/execute.h"
#include "health/health.h"
#include "result/result_json.h"
#include "link/board_link.h"
#include "util/nodeset.h"
#include "util/strbuf.h"

#include <getopt.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: orch boards [-i INVENTORY] [-l SELECTOR]... [--check] [--format json]\n"
	"       orch boards --offline BOARD [--note TEXT]\n"
	"       orch boards --online BOARD\n"
	"\n"
	"Lists the boards of the inventory: name, arch, tags, how orch reaches them,\n"
	"and their health: online, or offline since when and why.\n"
	"  -i, --inventory FILE   boards file (default: $ORCH_INVENTORY)\n"
	"  -l, --limit SELECTOR   only these boards (NAME, tag:TAG, !NAME ...)\n"
	"      --check            connect to each board's ssh (and run 'true') and open its\n"
	"                         serial console; prints ok or why not\n"
	"      --format json      machine-readable, on stdout\n"
	"      --offline BOARD    take the board offline by hand: runs skip its tests\n"
	"      --note TEXT        with --offline: why (shown by orch boards, runs, orch who)\n"
	"      --online BOARD     back online (after a failed health check, too)\n"
	"      --db URL           the health state in this database, shared by every\n"
	"                         controller (default: $ORCH_DB; else the lock folder)\n"
	"Exit: 0, or with --check 3 when a board could not be reached; 2 bad input.\n";

struct board_check {
	const struct board *board;
	char ssh[512];                 /* "ok", "-" (none), or the error */
	char serial[512];
	bool ok;
};

static void check_ssh(struct board_check *bc)
{
	const struct board *b = bc->board;
	if (b->transport != TRANSPORT_KIND_SSH && b->transport != TRANSPORT_KIND_LOCAL) {
		snprintf(bc->ssh, sizeof(bc->ssh), "-");
		return;
	}
	char err[512];
	struct board_link bl;
	struct transport *t;
	board_link_init(&bl, b, NULL);
	if (board_link_get(&bl, 0, &t, err, sizeof(err)) < 0) {
		snprintf(bc->ssh, sizeof(bc->ssh), "%s", err);
		bc->ok = false;
		board_link_release(&bl);
		return;
	}
	char *out = NULL;
	int code = -1;
	if (transport_capture(t, "true", 15000, 64, &out, &code, err, sizeof(err)) < 0) {
		snprintf(bc->ssh, sizeof(bc->ssh), "%s", err);
		bc->ok = false;
	} else if (code != 0) {
		snprintf(bc->ssh, sizeof(bc->ssh), "connected, but 'true' exited %d", code);
		bc->ok = false;
	} else {
		snprintf(bc->ssh, sizeof(bc->ssh), "ok");
	}
	free(out);
	board_link_release(&bl);
}

static void check_serial(struct board_check *bc)
{
	if (!bc->board->serial.present) {
		snprintf(bc->serial, sizeof(bc->serial), "-");
		return;
	}
	/* opened (and locked) through the board link, like a run does */
	struct board_link bl;
	struct serial_port *port;
	char err[512];
	board_link_init(&bl, bc->board, NULL);
	int r = board_link_console(&bl, &port, err, sizeof(err));
	board_link_release(&bl);
	if (r < 0) {
		snprintf(bc->serial, sizeof(bc->serial), "%s", err);
		bc->ok = false;
	} else {
		snprintf(bc->serial, sizeof(bc->serial), "ok");
	}
}

static void *check_board(void *arg)
{
	struct board_check *bc = arg;
	bc->ok = true;
	check_ssh(bc);
	check_serial(bc);
	return NULL;
}

static char *describe_ssh(const struct board *b)
{
	if (b->local)
		return xstrdup("local");
	if (!b->ssh.present)
		return xstrdup("-");
	struct strbuf sb = STRBUF_INIT;
	if (b->ssh.user)
		strbuf_printf(&sb, "%s@", b->ssh.user);
	strbuf_puts(&sb, b->ssh.host ? b->ssh.host : b->name);
	if (b->ssh.port)
		strbuf_printf(&sb, ":%d", b->ssh.port);
	return strbuf_detach(&sb);
}

static char *describe_serial(const struct board *b)
{
	if (!b->serial.present)
		return xstrdup("-");
	const struct board_serial *s = &b->serial;
	if (s->url)
		return xstrdup(s->url);
	if (s->usb)
		return xasprintf("usb:%s %d", s->usb, s->baud);
	return xasprintf("%s %d", s->port ? s->port : "?", s->baud);
}

static char *join_tags(const struct board *b)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < b->n_tags; i++)
		strbuf_printf(&sb, "%s%s", i ? "," : "", b->tags[i]);
	if (!b->n_tags)
		strbuf_puts(&sb, "-");
	return strbuf_detach(&sb);
}

/* The shared health state of the boards (lock/board_offline.h). */
struct health_view {
	struct health_state hs;
	struct board_offline_rec *recs;
	long n;
};

static const struct board_offline_rec *offline_of(const struct health_view *hv, const char *name)
{
	for (long i = 0; i < hv->n; i++)
		if (!strcmp(hv->recs[i].board, name))
			return &hv->recs[i];
	return NULL;
}

static char *describe_health(const struct board_offline_rec *r)
{
	if (!r)
		return xstrdup("online");
	char *since = r->since_us ? result_time_iso(r->since_us) : xstrdup("?");
	char *s = xasprintf("offline since %s by %s: %s", since, r->by, r->reason);
	free(since);
	return s;
}

static json_t *board_json(const struct board *b, const struct board_check *chk,
			  const struct board_offline_rec *off)
{
	json_t *j = json_object();
	char *ssh = describe_ssh(b), *serial = describe_serial(b);
	json_object_set_new(j, "name", json_string(b->name));
	json_object_set_new(j, "arch", b->arch ? json_string(b->arch) : json_null());
	json_t *tags = json_array();
	for (size_t i = 0; i < b->n_tags; i++)
		json_array_append_new(tags, json_string(b->tags[i]));
	json_object_set_new(j, "tags", tags);
	json_t *groups = json_array();
	for (size_t i = 0; i < b->n_groups; i++)
		json_array_append_new(groups, json_string(b->groups[i]));
	json_object_set_new(j, "groups", groups);
	json_object_set_new(j, "ssh", json_string(ssh));
	json_object_set_new(j, "serial", json_string(serial));
	json_object_set_new(j, "power", json_boolean(b->power.cycle || b->power.on));
	json_object_set_new(j, "health", json_string(off ? "offline" : "online"));
	if (off) {
		char *since = off->since_us ? result_time_iso(off->since_us) : NULL;
		json_object_set_new(j, "offline_since", since ? json_string(since) : json_null());
		json_object_set_new(j, "offline_by", json_string(off->by));
		json_object_set_new(j, "offline_reason", json_string(off->reason));
		json_object_set_new(j, "offline_manual", json_boolean(off->manual));
		free(since);
	}
	if (chk) {
		json_object_set_new(j, "ssh_check", json_string(chk->ssh));
		json_object_set_new(j, "serial_check", json_string(chk->serial));
		json_object_set_new(j, "ok", json_boolean(chk->ok));
	}
	free(ssh);
	free(serial);
	return j;
}

static int order_cmp(const void *pa, const void *pb)
{
	const struct board *a = *(const struct board *const *)pa;
	const struct board *b = *(const struct board *const *)pb;
	int c = nodeset_cmp(a->name, b->name);
	return c ? c : (a > b) - (a < b);
}

/* The inventory's boards in natural order of their names (b2 before b10):
 * indexes into inv->boards, inv->n_boards of them. Caller frees. */
static size_t *board_order(const struct inventory *inv)
{
	const struct board **v = xcalloc(inv->n_boards + 1, sizeof(*v));
	size_t *ix = xcalloc(inv->n_boards + 1, sizeof(*ix));
	for (size_t i = 0; i < inv->n_boards; i++)
		v[i] = &inv->boards[i];
	qsort(v, inv->n_boards, sizeof(*v), order_cmp);
	for (size_t i = 0; i < inv->n_boards; i++)
		ix[i] = (size_t)(v[i] - inv->boards);
	free(v);
	return ix;
}

/* Aligned columns for people, tab-separated for scripts. */
static void print_row(bool tty, const char *name, const char *arch, const char *tags,
		      const char *ssh, const char *serial, const char *extra, const char *health)
{
	if (tty)
		printf("%-14s %-8s %-20s %-28s %-24s %-6s %s\n", name, arch, tags, ssh, serial, extra,
		       health);
	else
		printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, arch, tags, ssh, serial, extra,
		       health);
}

static void print_table(const struct inventory *inv, const bool *selected,
			const struct board_check *checks, const struct health_view *hv, bool tty)
{
	if (tty)
		print_row(tty, "BOARD", "ARCH", "TAGS", "SSH", "SERIAL", checks ? "CHECK" : "POWER",
			  "HEALTH");
	size_t *order = board_order(inv);
	for (size_t k = 0; k < inv->n_boards; k++) {
		size_t i = order[k];
		if (!selected[i])
			continue;
		const struct board *b = &inv->boards[i];
		char *tags = join_tags(b), *ssh = describe_ssh(b), *serial = describe_serial(b);
		char *extra;
		if (checks)
			extra = xasprintf("ssh: %s; serial: %s", checks[i].ssh, checks[i].serial);
		else
			extra = xstrdup(b->power.cycle || b->power.on ? "yes" : "-");
		char *health = describe_health(offline_of(hv, b->name));
		print_row(tty, b->name, b->arch ? b->arch : "?", tags, ssh, serial, extra, health);
		free(health);
		free(tags);
		free(ssh);
		free(serial);
		free(extra);
	}
	free(order);
}

static void print_json(const struct inventory *inv, const bool *selected,
		       const struct board_check *checks, const struct health_view *hv)
{
	json_t *arr = json_array();
	size_t *order = board_order(inv);
	for (size_t k = 0; k < inv->n_boards; k++) {
		size_t i = order[k];
		if (selected[i])
			json_array_append_new(arr, board_json(&inv->boards[i],
							      checks ? &checks[i] : NULL,
							      offline_of(hv, inv->boards[i].name)));
	}
	free(order);
	json_dumpf(arr, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
	json_decref(arr);
}

/* Every selected board checked at once, a thread each; *ret becomes
 * EXIT_INFRA when one could not be reached. Caller frees. */
static struct board_check *check_boards(const struct inventory *inv, const bool *selected,
					int *ret)
{
	struct board_check *checks = xcalloc(inv->n_boards + 1, sizeof(*checks));
	pthread_t *threads = xcalloc(inv->n_boards + 1, sizeof(*threads));
	bool *started = xcalloc(inv->n_boards + 1, sizeof(bool));
	for (size_t i = 0; i < inv->n_boards; i++) {
		checks[i].board = &inv->boards[i];
		if (selected[i])
			started[i] = pthread_create(&threads[i], NULL, check_board, &checks[i]) == 0;
		if (selected[i] && !started[i])
			check_board(&checks[i]);
	}
	for (size_t i = 0; i < inv->n_boards; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
		if (selected[i] && !checks[i].ok)
			*ret = EXIT_INFRA;
	}
	free(threads);
	free(started);
	return checks;
}

/* The offline boards of the health state (a warning when it cannot be read). */
static void health_view_load(struct health_view *hv, const char *db_url)
{
	char err[512];
	if (health_state_open(&hv->hs, db_url, err, sizeof(err)) < 0)
		hv->n = -1;
	else
		hv->n = health_list(&hv->hs, &hv->recs, err, sizeof(err));
	if (hv->n < 0) {
		fprintf(stderr, "orch boards: health state: %s\n", err);
		hv->n = 0;
	}
}

/* --offline BOARD [--note TEXT] / --online BOARD. */
static int set_health(const char *offline, const char *online, const char *note,
		      const char *db_url)
{
	const char *board = offline ? offline : online;
	char err[512];
	if (!cfg_safe_name(board)) {
		fprintf(stderr, "orch boards: invalid board name '%s'\n", board);
		return EXIT_USAGE;
	}
	struct health_state hs;
	if (health_state_open(&hs, db_url, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch boards: %s\n", err);
		health_state_close(&hs);
		return EXIT_INFRA;
	}
	int ret = EXIT_OK;
	bool had = false;
	if (offline && health_set(&hs, board, note ? note : "set offline by hand", true, err,
				  sizeof(err)) < 0)
		ret = EXIT_INFRA;
	else if (online && health_clear(&hs, board, &had, err, sizeof(err)) < 0)
		ret = EXIT_INFRA;
	if (ret != EXIT_OK)
		fprintf(stderr, "orch boards: %s\n", err);
	else if (offline)
		fprintf(stderr, "%s: offline (%s); runs skip its tests until orch boards --online %s\n",
			board, note ? note : "set offline by hand", board);
	else
		fprintf(stderr, "%s: online%s\n", board, had ? "" : " (it was not offline)");
	health_state_close(&hs);
	return ret;
}

struct boards_options {
	const char *inventory;
	const char **limits;
	size_t n_limits;
	bool check, json;
	const char *offline, *online, *note, *db_url;
};

static int parse_format(const char *arg, bool *json)
{
	if (strcmp(arg, "json") && strcmp(arg, "text")) {
		fprintf(stderr, "orch boards: --format takes json or text, found '%s'\n", arg);
		return EXIT_USAGE;
	}
	*json = !strcmp(arg, "json");
	return -1;
}

/* The operands and the options that do not go together. */
static int check_options(int argc, char **argv, const struct boards_options *o)
{
	if (optind != argc) {
		fprintf(stderr, "orch boards: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (o->offline && o->online) {
		fprintf(stderr, "orch boards: --offline and --online do not go together\n");
		return EXIT_USAGE;
	}
	if (o->note && !o->offline) {
		fprintf(stderr, "orch boards: --note goes with --offline BOARD\n");
		return EXIT_USAGE;
	}
	return -1;
}

/* The options into *o. -1 to go on, else the exit code to return
 * (EXIT_OK after --help). */
static int parse(int argc, char **argv, struct boards_options *o)
{
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "limit", required_argument, NULL, 'l' },
		{ "check", no_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "offline", required_argument, NULL, 'F' },
		{ "online", required_argument, NULL, 'O' },
		{ "note", required_argument, NULL, 'n' },
		{ "db", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret = -1;
	o->db_url = getenv("ORCH_DB");
	optind = 1;
	opterr = 0;
	while (ret < 0 && (c = getopt_long(argc, argv, ":i:l:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->inventory = optarg; break;
		case 'l': cmd_add_arg(&o->limits, &o->n_limits, optarg); break;
		case 'c': o->check = true; break;
		case 'F': o->offline = optarg; break;
		case 'O': o->online = optarg; break;
		case 'n': o->note = optarg; break;
		case 'D': o->db_url = optarg; break;
		case 'f': ret = parse_format(optarg, &o->json); break;
		case 'h': fputs(usage_text, stdout); ret = EXIT_OK; break;
		default: ret = cmd_option_error("boards", c, argv[optind - 1]); break;
		}
	}
	return ret < 0 ? check_options(argc, argv, o) : ret;
}

/* The selected boards listed, each checked first with --check. */
static int list_boards(const struct boards_options *o)
{
	struct health_view hv = { 0 };
	struct inventory *inv = NULL;
	bool *selected = NULL;
	int ret = cmd_load_inventory(o->inventory, &inv);
	if (ret != EXIT_OK)
		goto out;
	health_view_load(&hv, o->db_url);
	selected = xcalloc(inv->n_boards + 1, sizeof(bool));
	const char *all = "all";
	char err[512];
	if (selector_resolve(inv, &all, 1, o->limits, o->n_limits, selected, err,
			     sizeof(err)) < 0) {
		fprintf(stderr, "orch boards: %s\n", err);
		ret = EXIT_USAGE;
		goto out;
	}
	struct board_check *checks = o->check ? check_boards(inv, selected, &ret) : NULL;
	if (o->json)
		print_json(inv, selected, checks, &hv);
	else
		print_table(inv, selected, checks, &hv, isatty(STDOUT_FILENO));
	free(checks);
out:
	free(hv.recs);
	health_state_close(&hv.hs);
	free(selected);
	inventory_free(inv);
	return ret;
}

int cmd_boards(int argc, char **argv)
{
	struct boards_options o = { 0 };
	int ret = parse(argc, argv, &o);
	if (ret < 0 && (o.offline || o.online))
		ret = set_health(o.offline, o.online, o.note, o.db_url);
	else if (ret < 0)
		ret = list_boards(&o);
	free(o.limits);
	return ret;
}
