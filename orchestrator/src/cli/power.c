/* orch power BOARD... on|off|cycle: a board's power commands, run by
 * hand through its board link, under the board's lock. */
#include "cli/cli.h"
#include "cli/common.h"
#include "link/board_link.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: orch power BOARD|SELECTOR... on|off|cycle [-i INVENTORY] [--timeout DURATION]\n"
	"                  [--force]\n"
	"\n"
	"Runs the boards' power: commands (orch-inventory(5)), one board after the\n"
	"other, each under the board's lock: a board a run holds, or another person\n"
	"reserved with orch lock, is refused naming the holder. cycle runs the cycle\n"
	"command, else off then on. One line per board; exit 0 when every board was\n"
	"powered, 3 when a power command failed or a board is held, 2 when a board\n"
	"has no command for the action (nothing is run then).\n"
	"\n"
	"  -i, --inventory FILE  boards file (default: $ORCH_INVENTORY); BOARD may be a\n"
	"                        selector (tag:T, 'rb*', !NAME, lists, as -l)\n"
	"      --timeout D       each power command's bound (default and at most 60s)\n"
	"      --force           power a board even when someone holds it (the holder\n"
	"                        is named in a warning)\n"
	"  -h, --help            this text\n";

struct power_options {
	const char *inventory;
	int64_t timeout_ms;
	bool force;
};

static int parse(int argc, char **argv, struct power_options *o)
{
	enum { OPT_TIMEOUT = 256, OPT_FORCE };
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->inventory = optarg; break;
		case OPT_FORCE: o->force = true; break;
		case OPT_TIMEOUT:
			if (units_parse_duration_ms(optarg, &o->timeout_ms) < 0 || o->timeout_ms <= 0)
				return cmd_usage_error("power", "--timeout takes a duration such as "
							      "30s, found '%s'", optarg);
			break;
		case 'h': fputs(usage_text, stdout); return 1;
		default: return cmd_option_error("power", c, argv[optind - 1]);
		}
	}
	return 0;
}

static int parse_action(const char *s, enum power_action *a)
{
	if (!strcmp(s, "on"))
		*a = POWER_ON;
	else if (!strcmp(s, "off"))
		*a = POWER_OFF;
	else if (!strcmp(s, "cycle"))
		*a = POWER_CYCLE;
	else
		return -1;
	return 0;
}

/* Whether board has the commands action needs; if not, says so. */
static bool can_power(const struct board *b, enum power_action a, const char *inv_path)
{
	const struct board_power *p = &b->power;
	const char *missing = NULL;
	if (a == POWER_OFF && !p->off)
		missing = "an off command";
	else if (a == POWER_ON && !p->on)
		missing = "an on command";
	else if (a == POWER_CYCLE && !p->cycle && !(p->off && p->on))
		missing = "a cycle command, or off and on";
	if (missing)
		fprintf(stderr, "orch power: %s: board %s has no power: %s\n", inv_path, b->name,
			missing);
	return !missing;
}

/* One board: its lock, its power command through its link, one line. */
static int power_one(const struct inventory *inv, const struct board *b, enum power_action a,
		     const char *word, const struct power_options *o)
{
	char *note = xasprintf("orch power %s %s", b->name, word);
	struct manual_board m;
	int ret = cmd_manual_take("power", inv, b, note, o->force, &m);
	free(note);
	if (ret != EXIT_OK)
		return ret;
	char err[1024];
	int64_t t0 = clock_mono_ms();
	int rc = board_link_power(m.link, a, o->timeout_ms, err, sizeof(err));
	cmd_manual_release(&m);
	if (rc < 0) {
		fprintf(stderr, "orch power: %s: %s\n", b->name, err);
		return interrupt_requested() ? EXIT_INTERRUPTED : EXIT_INFRA;
	}
	char took[32];
	units_format_duration(clock_mono_ms() - t0, took, sizeof(took));
	printf("%s: power %s done (%s)\n", b->name, word, took);
	fflush(stdout);
	return EXIT_OK;
}

int cmd_power(int argc, char **argv)
{
	struct power_options o = { 0 };
	int ret = parse(argc, argv, &o);
	if (ret)
		return ret == 1 ? EXIT_OK : ret;
	enum power_action action;
	if (argc - optind < 2 || parse_action(argv[argc - 1], &action) < 0) {
		return cmd_usage_error("power", "give BOARD... then on, off or cycle%s%s%s",
				       argc > optind ? ", found '" : "",
				       argc > optind ? argv[argc - 1] : "",
				       argc > optind ? "' last" : "");
	}
	const char *word = argv[argc - 1];
	const struct board **boards = NULL;
	size_t nb = 0;
	struct inventory *inv = NULL;
	ret = cmd_manual_select("power", o.inventory, argv + optind, argc - optind - 1, &boards,
				&nb, &inv);
	bool all_can = true;
	for (size_t i = 0; ret == EXIT_OK && i < nb; i++)
		all_can &= can_power(boards[i], action, inv->path);
	if (ret == EXIT_OK && !all_can)
		ret = EXIT_USAGE;
	if (ret != EXIT_OK)
		goto out;
	interrupt_install();
	for (size_t i = 0; i < nb && !interrupt_requested(); i++) {
		int rc = power_one(inv, boards[i], action, word, &o);
		if (rc != EXIT_OK && ret != EXIT_INTERRUPTED)
			ret = rc;
	}
	if (interrupt_requested())
		ret = EXIT_INTERRUPTED;
out:
	free(boards);
	inventory_free(inv);
	return ret;
}
