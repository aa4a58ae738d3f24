/* orch who, orch lock, orch unlock: who holds which board, and a person's
 * reservations (lock/board_lock.h on this controller, coord/db.h across
 * controllers when --db or $ORCH_DB names a PostgreSQL database). */
#include "cli/cli.h"
#include "cli/common.h"
#include "coord/db.h"
#include "util/interrupt.h"
#include "health/health.h"
#include "lock/board_lock.h"
#include "util/deadline.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_RESERVATION_MS (60 * 60 * 1000)
/* How often lock --wait tries the held boards again. */
#define LOCK_WAIT_POLL_MS 200

static const char who_usage[] =
	"usage: orch who [--db URL] [--format text|json]\n"
	"\n"
	"Lists who holds boards: running orchs (user, host, pid, since when, what\n"
	"they run) and reservations made with orch lock (until when, note).\n"
	"Tab-separated when stdout is not a terminal.\n"
	"\n"
	"      --db URL   also the holders across controllers in this PostgreSQL\n"
	"                 database (default: $ORCH_DB)\n"
	"  -h, --help     this text\n";

static const char lock_usage[] =
	"usage: orch lock BOARD|SELECTOR... [--for DURATION] [--note TEXT] [--wait DURATION]\n"
	"                 [--db URL] [-i INVENTORY]\n"
	"\n"
	"Reserves boards for manual work: runs that need them wait (--wait) or end\n"
	"their tests as error naming you, until the reservation expires or orch\n"
	"unlock removes it. All or none: a board already held makes it fail (exit 3)\n"
	"and reserve nothing. Your own reservation is renewed.\n"
	"\n"
	"      --for DURATION  how long (default 1h; e.g. 30m, 8h)\n"
	"      --note TEXT     why, shown by orch who and in the runs' errors\n"
	"      --db URL        reserve across controllers (default: $ORCH_DB)\n"
	"      --wait DURATION a board someone holds: try again until this long has\n"
	"                      passed (default: do not wait)\n"
	"  -i, --inventory F   check the board names against this inventory and\n"
	"                      resolve selectors (tag:T, 'rb*', !NAME, lists, as -l)\n"
	"                      (default: $ORCH_INVENTORY when set)\n"
	"  -h, --help          this text\n";

static const char unlock_usage[] =
	"usage: orch unlock BOARD... [--db URL]\n"
	"\n"
	"Removes the reservations of these boards (made by orch lock).\n"
	"\n"
	"      --db URL   also in this PostgreSQL database (default: $ORCH_DB)\n"
	"  -h, --help     this text\n";

struct lock_options {
	const char *db_url;
	const char *note;
	const char *inventory;
	int64_t for_ms;
	int64_t wait_ms;          /* lock --wait: how long to wait for held boards */
	bool json;                /* who --format json */
};

/* Options of the three commands (each accepts only its own). Returns 0 and
 * argv[optind..] are the boards, 1 after --help, or EXIT_USAGE. */
static int parse(int argc, char **argv, const char *name, const char *usage, bool reserve,
		 struct lock_options *o)
{
	enum { OPT_DB = 256, OPT_FOR, OPT_NOTE, OPT_FORMAT, OPT_WAIT };
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "for", required_argument, NULL, OPT_FOR },
		{ "note", required_argument, NULL, OPT_NOTE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "inventory", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	o->db_url = getenv("ORCH_DB");
	o->for_ms = DEFAULT_RESERVATION_MS;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":i:h", longopts, NULL)) != -1) {
		if ((c == OPT_FOR || c == OPT_NOTE || c == OPT_WAIT || c == 'i') && !reserve)
			c = '?';
		switch (c) {
		case OPT_DB: o->db_url = optarg; break;
		case OPT_FORMAT:
			if (strcmp(name, "who") != 0)
				return cmd_option_error(name, '?', argv[optind - 1]);
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				return cmd_usage_error(name, "--format takes json or text, found '%s'",
						       optarg);
			o->json = strcmp(optarg, "json") == 0;
			break;
		case OPT_NOTE: o->note = optarg; break;
		case 'i': o->inventory = optarg; break;
		case OPT_WAIT:
			if (units_parse_duration_ms(optarg, &o->wait_ms) < 0 || o->wait_ms < 0)
				return cmd_usage_error(name, "--wait takes a duration such as 30s or "
							     "10m, found '%s'", optarg);
			break;
		case OPT_FOR:
			if (units_parse_duration_ms(optarg, &o->for_ms) < 0 || o->for_ms <= 0)
				return cmd_usage_error(name, "--for takes a duration such as 30m or "
							     "8h, found '%s'", optarg);
			break;
		case 'h': fputs(usage, stdout); return 1;
		default: return cmd_option_error(name, c, argv[optind - 1]);
		}
	}
	if (o->db_url && !*o->db_url)
		o->db_url = NULL;
	return 0;
}

static struct coord_db *open_db(const char *name, const char *url)
{
	if (!url)
		return NULL;
	char err[512];
	struct coord_db *db = coord_db_open(url, err, sizeof(err));
	if (!db)
		fprintf(stderr, "orch %s: %s\n", name, err);
	return db;
}

static void print_holders(const struct board_holder *h, size_t n, bool header)
{
	bool tty = isatty(STDOUT_FILENO);
	if (tty && header)
		printf("%-16s %-24s %-8s %-20s %-20s %-6s %s\n", "BOARD", "HOLDER", "PID", "SINCE",
		       "UNTIL", "WHERE", "NOTE");
	for (size_t i = 0; i < n; i++) {
		char since[40], until[40] = "-", who[200], pid[24] = "-";
		clock_format_iso8601(h[i].since_us, since, sizeof(since));
		if (h[i].expires_us)
			clock_format_iso8601(h[i].expires_us, until, sizeof(until));
		snprintf(who, sizeof(who), "%s@%s", h[i].user, h[i].host);
		if (!h[i].reservation)
			snprintf(pid, sizeof(pid), "%ld", h[i].pid);
		const char *note = h[i].note[0] ? h[i].note : "-";
		if (tty)
			printf("%-16s %-24s %-8s %-20s %-20s %-6s %s%s\n", h[i].board, who, pid, since,
			       until, h[i].where, h[i].reservation ? "reserved: " : "", note);
		else
			printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", h[i].board,
			       h[i].reservation ? "reservation" : "run", who, pid, since, until,
			       h[i].where, note);
	}
}

/* Offline boards (board health) as rows of the same table: "offline" for
 * the kind, who took it offline and since when, the reason as the note. */
static void print_offline(const struct board_offline_rec *r, size_t n, bool header,
			  const char *where)
{
	bool tty = isatty(STDOUT_FILENO);
	if (tty && header && n)
		printf("%-16s %-24s %-8s %-20s %-20s %-6s %s\n", "BOARD", "HOLDER", "PID", "SINCE",
		       "UNTIL", "WHERE", "NOTE");
	for (size_t i = 0; i < n; i++) {
		char since[40] = "-";
		if (r[i].since_us)
			clock_format_iso8601(r[i].since_us, since, sizeof(since));
		if (tty)
			printf("%-16s %-24s %-8s %-20s %-20s %-6s offline: %s\n", r[i].board, r[i].by,
			       "-", since, "-", where, r[i].reason);
		else
			printf("%s\toffline\t%s\t-\t%s\t-\t%s\t%s\n", r[i].board, r[i].by, since,
			       where, r[i].reason);
	}
}

/* orch who --format json: one object per holder. */
static void holders_json(json_t *out, const struct board_holder *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char since[40], until[40] = "";
		clock_format_iso8601(h[i].since_us, since, sizeof(since));
		if (h[i].expires_us)
			clock_format_iso8601(h[i].expires_us, until, sizeof(until));
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "board", h[i].board, "kind",
				      h[i].reservation ? "reservation" : "run", "user", h[i].user,
				      "host", h[i].host, "since", since, "where", h[i].where);
		json_object_set_new(o, "pid", h[i].reservation ? json_null() : json_integer(h[i].pid));
		json_object_set_new(o, "until", until[0] ? json_string(until) : json_null());
		json_object_set_new(o, "note", h[i].note[0] ? json_string(h[i].note) : json_null());
		json_array_append_new(out, o);
	}
}

/* Offline boards as entries of kind "offline" (user@host who took it
 * offline as user and host, the reason as the note). */
static void offline_json(json_t *out, const struct board_offline_rec *r, size_t n,
			 const char *where)
{
	for (size_t i = 0; i < n; i++) {
		char since[40] = "";
		if (r[i].since_us)
			clock_format_iso8601(r[i].since_us, since, sizeof(since));
		const char *at = strchr(r[i].by, '@');
		char user[192];
		snprintf(user, sizeof(user), "%.*s", at ? (int)(at - r[i].by) : (int)strlen(r[i].by),
			 r[i].by);
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "board", r[i].board, "kind",
				      "offline", "user", user, "host", at ? at + 1 : "", "since",
				      since, "where", where);
		json_object_set_new(o, "pid", json_null());
		json_object_set_new(o, "until", json_null());
		json_object_set_new(o, "note", json_string(r[i].reason));
		json_array_append_new(out, o);
	}
}

int cmd_who(int argc, char **argv)
{
	struct lock_options o = { 0 };
	int ret = parse(argc, argv, "who", who_usage, false, &o);
	if (ret)
		return ret == 1 ? EXIT_OK : ret;
	if (optind != argc)
		return cmd_usage_error("who", "takes no operands, found '%s'", argv[optind]);
	char err[512];
	char *dir = board_lock_dir(err, sizeof(err));
	struct board_holder *local = NULL, *remote = NULL;
	long n_local = dir ? board_lock_list(dir, &local, err, sizeof(err)) : -1;
	ret = EXIT_INFRA;
	if (n_local < 0) {
		fprintf(stderr, "orch who: %s\n", err);
		goto out;
	}
	long n_remote = 0;
	struct coord_db *db = NULL;
	if (o.db_url && !(db = open_db("who", o.db_url)))
		goto out;
	if (db && (n_remote = coord_db_list(db, &remote, err, sizeof(err))) < 0) {
		fprintf(stderr, "orch who: %s\n", err);
		coord_db_close(db);
		goto out;
	}
	coord_db_close(db);
	struct board_offline_rec *off = NULL;
	struct health_state hs;
	long n_off = health_state_open(&hs, o.db_url, err, sizeof(err)) < 0
			     ? -1 : health_list(&hs, &off, err, sizeof(err));
	health_state_close(&hs);
	if (n_off < 0) {
		fprintf(stderr, "orch who: health state: %s\n", err);
		n_off = 0;
	}
	if (o.json) {
		json_t *all = json_array();
		holders_json(all, local, (size_t)n_local);
		holders_json(all, remote, (size_t)n_remote);
		offline_json(all, off, (size_t)n_off, o.db_url ? "db" : "local");
		char *text = json_dumps(all, JSON_INDENT(2));
		printf("%s\n", text ? text : "[]");
		free(text);
		json_decref(all);
	} else {
		print_holders(local, (size_t)n_local, n_local + n_remote > 0);
		print_holders(remote, (size_t)n_remote, n_local == 0 && n_remote > 0);
	}
	if (!o.json && n_local + n_remote == 0 && isatty(STDOUT_FILENO))
		printf("(no board is held)\n");
	if (!o.json)
		print_offline(off, (size_t)n_off, false, o.db_url ? "db" : "local");
	free(off);
	ret = EXIT_OK;
out:
	free(local);
	free(remote);
	free(dir);
	return ret;
}

/* Reserves one board here and, with db, in the database; all or nothing. */
static int reserve_one(const char *dir, struct coord_db *db, const char *board,
		       const struct lock_options *o, int64_t expires, bool say)
{
	struct board_holder who;
	char err[512], desc[512];
	int ret = board_lock_reserve(dir, board, expires, o->note, &who, err, sizeof(err));
	if (ret == 0 && db) {
		ret = coord_db_reserve(db, board, expires, o->note, &who, err, sizeof(err));
		if (ret != 0) {
			bool had;
			board_lock_unreserve(dir, board, &had, err + 256, 256);
		}
	}
	if (ret == BOARD_LOCK_HELD) {
		board_holder_describe(&who, desc, sizeof(desc));
		if (say)
			fprintf(stderr, "orch lock: board %s is held by %s\n", board, desc);
	} else if (ret != 0) {
		fprintf(stderr, "orch lock: %s\n", err);
	}
	return ret;
}

static void unreserve_one(const char *dir, struct coord_db *db, const char *board, bool quiet)
{
	char err[512];
	bool had = false, had_db = false;
	if (board_lock_unreserve(dir, board, &had, err, sizeof(err)) < 0)
		fprintf(stderr, "orch unlock: %s\n", err);
	if (db && coord_db_unreserve(db, board, &had_db, err, sizeof(err)) < 0)
		fprintf(stderr, "orch unlock: %s\n", err);
	if (!quiet && !had && !had_db)
		fprintf(stderr, "orch unlock: %s was not reserved\n", board);
}

int cmd_lock(int argc, char **argv)
{
	struct lock_options o = { 0 };
	int ret = parse(argc, argv, "lock", lock_usage, true, &o);
	if (ret)
		return ret == 1 ? EXIT_OK : ret;
	if (optind >= argc)
		return cmd_usage_error("lock", "which boards? give BOARD...");
	const char **boards = NULL;
	size_t nb = 0;
	struct inventory *inv = NULL;
	char *dir = NULL;
	struct coord_db *db = NULL;
	if ((ret = cmd_select_boards("lock", o.inventory, false, argv + optind, argc - optind,
				     &boards, &nb, &inv)) != EXIT_OK)
		goto out;
	int n = (int)nb;
	char err[512];
	dir = board_lock_dir(err, sizeof(err));
	if (!dir) {
		fprintf(stderr, "orch lock: %s\n", err);
		ret = EXIT_INFRA;
		goto out;
	}
	ret = EXIT_INFRA;
	if (o.db_url && !(db = open_db("lock", o.db_url)))
		goto out;
	int64_t wait_until = clock_mono_us() + o.wait_ms * 1000;
	int64_t expires;
	bool waiting = false;
	for (;;) {
		expires = clock_wall_us() + o.for_ms * 1000;
		bool last = clock_mono_us() >= wait_until || interrupt_requested();
		int i = 0, rc = 0;
		for (; i < n; i++)
			if ((rc = reserve_one(dir, db, boards[i], &o, expires, last)) != 0)
				break;
		if (i == n)
			break;
		int held = i;
		while (i-- > 0)
			unreserve_one(dir, db, boards[i], true);
		if (rc != BOARD_LOCK_HELD || last)
			goto out;
		if (!waiting) {
			char d[32];
			units_format_duration(o.wait_ms, d, sizeof(d));
			fprintf(stderr, "orch lock: board %s is held; waiting up to %s (--wait)\n",
				boards[held], d);
			waiting = true;
		}
		struct timespec ts = { 0, LOCK_WAIT_POLL_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
	char until[40], dur[32];
	clock_format_iso8601(expires, until, sizeof(until));
	units_format_duration(o.for_ms, dur, sizeof(dur));
	fprintf(stderr, "reserved %d board%s for %s, until %s%s\n", n, n == 1 ? "" : "s", dur,
		until, db ? " (here and in the database)" : "");
	ret = EXIT_OK;
out:
	coord_db_close(db);
	free(dir);
	free(boards);
	inventory_free(inv);
	return ret;
}

int cmd_unlock(int argc, char **argv)
{
	struct lock_options o = { 0 };
	int ret = parse(argc, argv, "unlock", unlock_usage, false, &o);
	if (ret)
		return ret == 1 ? EXIT_OK : ret;
	if (optind >= argc)
		return cmd_usage_error("unlock", "which boards? give BOARD...");
	char err[512];
	char *dir = board_lock_dir(err, sizeof(err));
	if (!dir) {
		fprintf(stderr, "orch unlock: %s\n", err);
		return EXIT_INFRA;
	}
	struct coord_db *db = NULL;
	ret = EXIT_INFRA;
	if (o.db_url && !(db = open_db("unlock", o.db_url)))
		goto out;
	for (int i = optind; i < argc; i++)
		unreserve_one(dir, db, argv[i], false);
	ret = EXIT_OK;
out:
	coord_db_close(db);
	free(dir);
	return ret;
}
