/* orch boot: time one board's boot from its serial console, live. */
#include "cli/cli.h"
#include "cli/common.h"
#include "coord/run_locks.h"
#include "execute/execute.h"
#include "util/deadline.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/log_dir.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: orch boot BOARD [-i INVENTORY] [--trigger power-cycle|reboot|none]\n"
	"                 [--timeout DURATION] [--phases-from SCENARIO] [-o DIR]\n"
	"\n"
	"Listens to BOARD's serial console, triggers a boot and shows every console\n"
	"line live with its arrival time, then the boot phases.\n"
	"  -i, --inventory FILE     boards file (default: $ORCH_INVENTORY, or the\n"
	"                           scenario's inventory with --phases-from)\n"
	"      --trigger T          power-cycle (the board's power: commands), reboot\n"
	"                           (over ssh or the serial login), none (just\n"
	"                           listen); default power-cycle when the board\n"
	"                           has power commands, else none\n"
	"      --timeout D          give up after D (default 3m)\n"
	"      --phases-from FILE   phases (and base, trigger, timeout) of the first boot:\n"
	"                           test of this scenario; default phases:\n"
	"                           kernel 'Run /.*init|Executing INIT', login 'login:'\n"
	"  -o, --output DIR         where boot.log and boot.raw go\n"
	"                           (default runs/boot/BOARD-YYYYMMDD-HHMMSS)\n"
	"Exit: 0 all phases reached in budget, 1 a phase missed or over budget,\n"
	"3 console or power failed, 2 bad usage, 130 interrupted.\n";

struct boot_job {
	struct exec_context ctx;
	struct test_result tr;
	bool done;
	pthread_mutex_t mu;
};

static void *boot_thread(void *arg)
{
	struct boot_job *job = arg;
	execute_boot(&job->ctx, &job->tr);
	pthread_mutex_lock(&job->mu);
	job->done = true;
	pthread_mutex_unlock(&job->mu);
	return NULL;
}

/* Prints what was appended to the log since *off, whole lines only unless final. */
static void tail_log(const char *path, long *off, struct strbuf *pending, bool final)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fseek(f, *off, SEEK_SET) == 0) {
		char buf[4096];
		size_t n;
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
			strbuf_append(pending, buf, n);
			*off += (long)n;
		}
	}
	fclose(f);
	const char *s = strbuf_str(pending);
	const char *last_nl = strrchr(s, '\n');
	if (final && pending->len) {
		fputs(s, stderr);
		if (s[pending->len - 1] != '\n')
			fputc('\n', stderr);
		strbuf_reset(pending);
	} else if (last_nl) {
		size_t upto = (size_t)(last_nl - s) + 1;
		fwrite(s, 1, upto, stderr);
		char *rest = xstrdup(s + upto);
		strbuf_reset(pending);
		strbuf_puts(pending, rest);
		free(rest);
	}
}

static void print_phases(const struct test_result *tr)
{
	if (tr->n_phases == 0)
		return;   /* it never got as far as listening */
	fprintf(stderr, "\n%-16s %10s %10s %10s  %s\n", "PHASE", "AT", "TOOK", "BUDGET", "LINE");
	for (size_t i = 0; i < tr->n_phases; i++) {
		const struct phase_result *p = &tr->phases[i];
		char budget[32] = "-";
		if (p->max_s > 0)
			snprintf(budget, sizeof(budget), "%.3fs", p->max_s);
		if (!p->reached) {
			fprintf(stderr, "%-16s %10s %10s %10s  (not reached)\n", p->name, "-", "-",
				budget);
			continue;
		}
		fprintf(stderr, "%-16s %9.3fs %9.3fs %10s  %.60s%s\n", p->name, p->offset_s,
			p->duration_s, budget, p->line ? p->line : "",
			p->over_budget ? "  OVER BUDGET" : "");
	}
}

static int default_phases(struct boot_spec *spec)
{
	static const char *const names[] = { "kernel", "login" };
	static const char *const res[] = { "Run /.*init|Executing INIT", "login:" };
	spec->n_phases = 2;
	spec->phases = xcalloc(2, sizeof(*spec->phases));
	for (size_t i = 0; i < 2; i++) {
		char err[128];
		spec->phases[i].name = xstrdup(names[i]);
		spec->phases[i].until_src = xstrdup(res[i]);
		if (orch_regex_compile(&spec->phases[i].until, res[i], err, sizeof(err)) < 0)
			return -1;
	}
	return 0;
}

static void free_default_phases(struct boot_spec *spec)
{
	for (size_t i = 0; i < spec->n_phases; i++) {
		free(spec->phases[i].name);
		free(spec->phases[i].until_src);
		orch_regex_free(&spec->phases[i].until);
	}
	free(spec->phases);
}

/* The board's lock (and, with $ORCH_DB, across controllers) before its
 * console is opened; no waiting. 0, or -1 after saying who holds it. */
static int lock_board(const char *board, struct coord_db **db, struct run_locks **locks)
{
	char err[512], msg[768];
	const char *url = getenv("ORCH_DB");
	if (url && *url && !(*db = coord_db_open(url, err, sizeof(err)))) {
		fprintf(stderr, "orch boot: %s\n", err);
		return -1;
	}
	char *note = xasprintf("orch boot %s", board);
	*locks = run_locks_new(note, 0, 0, *db, err, sizeof(err));
	free(note);
	if (!*locks) {
		fprintf(stderr, "orch boot: %s\n", err);
		return -1;
	}
	if (run_locks_acquire(*locks, &board, 1, false, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "orch boot: %s\n", msg);
		return -1;
	}
	return 0;
}

struct boot_options {
	const char *inv_path, *trigger, *timeout_text, *scenario_path, *out_dir;
	const char *board_name;
	int64_t timeout_ms;
	enum boot_trigger trig;
};

/* EXIT_OK with *o filled, or the exit code of the usage error said. */
static int parse_boot_options(int argc, char **argv, struct boot_options *o, bool *help)
{
	static const struct option opts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "trigger", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "phases-from", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*o = (struct boot_options){ .timeout_ms = 180000, .trig = BOOT_TRIGGER_NONE };
	*help = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': o->inv_path = optarg; break;
		case 't': o->trigger = optarg; break;
		case 'T': o->timeout_text = optarg; break;
		case 'p': o->scenario_path = optarg; break;
		case 'o': o->out_dir = optarg; break;
		case 'h':
			*help = true;
			return EXIT_OK;
		default:
			return cmd_option_error("boot", c, argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error("boot", "give exactly one BOARD");
	o->board_name = argv[optind];
	if (o->timeout_text && (units_parse_duration_ms(o->timeout_text, &o->timeout_ms) < 0 ||
				o->timeout_ms <= 0)) {
		return cmd_usage_error("boot", "invalid duration '%s' (e.g. 90s, 3m)",
				       o->timeout_text);
	}
	if (o->trigger) {
		if (!strcmp(o->trigger, "power-cycle"))
			o->trig = BOOT_TRIGGER_POWER_CYCLE;
		else if (!strcmp(o->trigger, "reboot"))
			o->trig = BOOT_TRIGGER_REBOOT;
		else if (strcmp(o->trigger, "none") != 0)
			return cmd_usage_error("boot", "unknown trigger '%s' (power-cycle, reboot, "
					       "none)", o->trigger);
	}
	return EXIT_OK;
}

/* The boot spec of test: the scenario's first boot: test, or the default
 * phases (*own_phases set: free them), with the options over it. EXIT_OK,
 * or EXIT_USAGE after saying why. */
static int boot_test_spec(const struct boot_options *o, const struct scenario *sc,
			  const struct board *board, struct test *test, bool *own_phases)
{
	const struct test *from = NULL;
	int64_t timeout_ms = o->timeout_ms;
	for (size_t i = 0; sc && i < sc->n_tests && !from; i++)
		if (sc->tests[i].kind == TEST_BOOT)
			from = &sc->tests[i];
	if (sc && !from) {
		fprintf(stderr, "orch boot: %s has no boot: test\n", o->scenario_path);
		return EXIT_USAGE;
	}
	if (from) {
		test->boot = from->boot;
		if (!o->timeout_text)
			timeout_ms = from->boot.timeout_ms > 0 ? from->boot.timeout_ms
							       : from->timeout_ms;
	} else {
		*own_phases = true;
		if (default_phases(&test->boot) < 0) {
			fprintf(stderr, "orch boot: internal error: default phase patterns\n");
			return EXIT_USAGE;
		}
		test->boot.trigger = board->power.cycle || board->power.on
					     ? BOOT_TRIGGER_POWER_CYCLE : BOOT_TRIGGER_NONE;
	}
	if (o->trigger)
		test->boot.trigger = o->trig;
	test->boot.timeout_ms = timeout_ms;
	test->timeout_ms = timeout_ms;
	return EXIT_OK;
}

/* -o DIR, or runs/boot/BOARD-YYYYMMDD-HHMMSS; the caller frees it. */
static char *boot_output_dir(const char *out_dir, const char *board_name)
{
	if (out_dir)
		return fs_resolve_path(out_dir, NULL);
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	char *safe = fs_safe_name(board_name);
	char *rel = xasprintf("runs/boot/%s-%s", safe, stamp);
	char *dir = fs_resolve_path(rel, NULL);
	free(safe);
	free(rel);
	return dir;
}

/* Runs the boot test on a thread while boot.log is shown live, then its
 * phases: the exit code. */
static int run_boot_live(struct plan_item *item, struct board_link *link, const char *dir)
{
	const struct board *board = item->board;
	struct boot_job job = {
		.ctx = { .item = item, .link = link, .test_dir = dir },
	};
	job.tr.board = xstrdup(board->name);
	job.tr.test = xstrdup("boot");
	pthread_mutex_init(&job.mu, NULL);
	static const char *const trig_names[] = { "power-cycle", "reboot", "none" };
	char dur[32];
	units_format_duration(item->test->timeout_ms, dur, sizeof(dur));
	fprintf(stderr, "orch: %s: listening on the serial console, trigger %s, timeout %s\n",
		board->name, trig_names[item->test->boot.trigger], dur);
	pthread_t th;
	if (pthread_create(&th, NULL, boot_thread, &job) != 0) {
		fprintf(stderr, "orch: error: cannot start a thread\n");
		pthread_mutex_destroy(&job.mu);
		test_result_release(&job.tr);
		return EXIT_INFRA;
	}
	char *log_path = fs_path_join(dir, LOG_DIR_BOOT_LOG);
	long off = 0;
	struct strbuf pending = STRBUF_INIT;
	for (;;) {
		pthread_mutex_lock(&job.mu);
		bool done = job.done;
		pthread_mutex_unlock(&job.mu);
		tail_log(log_path, &off, &pending, done);
		if (done)
			break;
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	pthread_join(th, NULL);
	strbuf_release(&pending);
	free(log_path);

	print_phases(&job.tr);
	if (job.tr.message)
		fprintf(stderr, "orch: %s: %s: %s\n", board->name,
			result_status_name(job.tr.status), job.tr.message);
	fprintf(stderr, "orch: console log in %s/%s\n", dir, LOG_DIR_BOOT_LOG);
	int ret;
	if (interrupt_requested())
		ret = EXIT_INTERRUPTED;
	else if (job.tr.status == STATUS_PASS)
		ret = EXIT_OK;
	else if (job.tr.status == STATUS_FAIL)
		ret = EXIT_TEST_FAILED;
	else
		ret = EXIT_INFRA;
	pthread_mutex_destroy(&job.mu);
	test_result_release(&job.tr);
	return ret;
}

int cmd_boot(int argc, char **argv)
{
	struct boot_options o;
	bool help;
	int ret = parse_boot_options(argc, argv, &o, &help);
	if (ret != EXIT_OK || help) {
		if (help)
			fputs(usage_text, stdout);
		return ret;
	}
	struct scenario *sc = NULL;
	struct inventory *inv = NULL;
	ret = o.scenario_path ? cmd_load_scenario(o.scenario_path, o.inv_path, NULL, 0, &sc, &inv)
			      : cmd_load_inventory(o.inv_path, &inv);
	if (ret != EXIT_OK)
		return ret;
	char test_name[] = "boot";
	struct test test = { .name = test_name, .kind = TEST_BOOT, .repeat = 1 };
	bool own_phases = false;
	const struct board *board = inventory_find(inv, o.board_name);
	char *dir = NULL;
	struct board_link link = { 0 };
	struct coord_db *db = NULL;
	struct run_locks *locks = NULL;
	if (!board) {
		fprintf(stderr, "orch boot: no board '%s' in %s\n", o.board_name, inv->path);
		ret = EXIT_USAGE;
		goto out;
	}
	board_link_init(&link, board, inv->dir);
	ret = boot_test_spec(&o, sc, board, &test, &own_phases);
	if (ret != EXIT_OK)
		goto out;
	dir = boot_output_dir(o.out_dir, board->name);
	char err[512];
	if (fs_mkdir_p(dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch: error: %s\n", err);
		ret = EXIT_INFRA;
		goto out;
	}
	interrupt_install();
	if (lock_board(board->name, &db, &locks) < 0) {
		ret = EXIT_INFRA;
		goto out;
	}
	struct plan_item item = { .board = board, .test = &test };
	ret = run_boot_live(&item, &link, dir);
out:
	if (board)
		board_link_release(&link);
	run_locks_free(locks);
	coord_db_close(db);
	if (own_phases)
		free_default_phases(&test.boot);
	free(dir);
	scenario_free(sc);
	inventory_free(inv);
	return ret;
}
