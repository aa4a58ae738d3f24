/*
 * orch: a test orchestrator for racks of small boards. main() only
 * dispatches to the subcommand table; each cli/VERB.c parses its own options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config/settings.h"
#include "util/fsutil.h"
#include "util/log.h"
#include "util/strbuf.h"
#include "util/secret.h"
#include "version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *synopsis;
	const char *description;
};

static const struct command commands[] = {
	{ "run", cmd_run, "SCENARIO.yaml [-i INV] [-l SEL]... [-j N] [-o DIR] [...]",
	  "run a scenario on the selected boards, store a run folder" },
	{ "validate", cmd_validate, "SCENARIO.yaml [-i INV]",
	  "check a scenario and its inventory; nothing is contacted" },
	{ "boards", cmd_boards, "[-i INV] [--check]", "list boards; --check probes ssh and serial" },
	{ "boot", cmd_boot, "BOARD [-i INV]", "time a boot from the serial console, live" },
	{ "compare", cmd_compare, "RUN_A RUN_B [--threshold PCT]", "per-metric change table" },
	{ "report", cmd_report, "RUN_DIR", "re-render summary, junit and html from results.json" },
	{ "ports", cmd_ports, "", "list serial ports (USB VID:PID, serial number)" },
	{ "merge", cmd_merge, "OUT RUN_DIR...", "join shard run folders into one" },
	{ "history", cmd_history, "SCENARIO [-l BOARD] [--metric M] [--last N] | import RUNS_DIR",
	  "the last nights per board and metric, from the history database" },
	{ "who", cmd_who, "[--db URL]", "who holds which board (runs and reservations)" },
	{ "lock", cmd_lock, "BOARD... [--for DURATION] [--note TEXT] [--db URL]",
	  "reserve boards for manual work" },
	{ "unlock", cmd_unlock, "BOARD... [--db URL]", "remove reservations made by orch lock" },
	{ "power", cmd_power, "BOARD... on|off|cycle [-i INV] [--force]",
	  "run the boards' power commands, under their locks" },
	{ "console", cmd_console, "BOARD [-i INV] [--listen] [--escape KEY]",
	  "the board's serial console, interactive (Ctrl-] q quits)" },
	{ "exec", cmd_exec, "[-i INV] [-l SEL]... [-j N] [--timeout D] [--json|--no-fold] -- COMMAND...",
	  "run a command on the selected boards, the output folded like clush -b" },
	{ "copy", cmd_copy, "[-i INV] [-l SEL]... [-r] SRC DEST",
	  "send a file (a folder with -r) to the selected boards" },
	{ "fetch", cmd_fetch, "[-i INV] [-l SEL]... [--max-size SIZE] SRC DIR",
	  "bring a file back from the selected boards into DIR/BOARD/" },
	{ "help", NULL, "[COMMAND]", "this list, or the help of one command" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: orch [--color=WHEN] [-v] COMMAND [ARGS]\n\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  orch %-8s %s\n           %s\n", commands[i].name,
			commands[i].synopsis, commands[i].description);
	fprintf(out, "\nglobal options (before or after COMMAND):\n"
		     "  --color=WHEN   auto (default), always or never; NO_COLOR and TERM=dumb\n"
		     "                 turn colour off in auto mode (default: $ORCH_COLOR)\n"
		     "  -v, --verbose  show connection steps and the commands sent to boards\n"
		     "\nsettings: /etc/orch/config.yaml, ~/.config/orch/config.yaml, .orch.yaml\n"
		     "(man orch, FILES).\n"
		     "\n'orch help COMMAND' or 'orch COMMAND --help' tells more; man orch.\n"
		     "exit codes: 0 passed, 1 a test failed, 2 usage or invalid input,\n"
		     "3 infrastructure error, 130 interrupted\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i].fn && !strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Takes the global options out of argv wherever they stand, so that every
 * command accepts them without knowing them. Returns the new argc, or -1
 * after a usage error. */
static bool color_given;

static int take_global_options(int argc, char **argv)
{
	int out = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			while (i < argc)
				argv[out++] = argv[i++];
			break;
		}
		if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			log_set_verbose(true);
		} else if (!strcmp(a, "--color")) {
			log_set_color_mode(LOG_COLOR_ALWAYS);
			color_given = true;
		} else if (!strncmp(a, "--color=", 8)) {
			int mode = log_parse_color_mode(a + 8);
			if (mode < 0) {
				fprintf(stderr, "orch: invalid --color '%s' (use auto, always or never)\n",
					a + 8);
				return -1;
			}
			log_set_color_mode(mode);
			color_given = true;
		} else {
			argv[out++] = argv[i];
		}
	}
	argv[out] = NULL;
	return out;
}

/* The configuration files (config/settings.h, orch(1) FILES), each over the
 * one before; a setting becomes its ORCH_ variable where the environment
 * has none, so the environment and the command line come over them. A
 * database URL's password, wherever it came from, is a secret no message
 * shows. */
static int load_settings(void)
{
	struct settings st = { 0 };
	struct diag_list errors = DIAG_LIST_INIT, warnings = DIAG_LIST_INIT;
	int bad = settings_load(&st, &errors, &warnings);
	if (!bad)
		settings_export(&st);
	settings_release(&st);
	secret_known_url(getenv("ORCH_DB"));
	secret_known(getenv("PGPASSWORD"));
	const char *color = getenv("ORCH_COLOR");
	if (!bad && !color_given && color && *color) {
		int mode = log_parse_color_mode(color);
		if (mode < 0) {
			fprintf(stderr, "orch: invalid ORCH_COLOR '%s' (use auto, always or never)\n",
				color);
			bad = -1;
		} else {
			log_set_color_mode(mode);
		}
	}
	diag_print_warnings(&warnings, stderr);
	diag_sort(&errors);
	diag_print_source(&errors, stderr);
	diag_list_release(&errors);
	diag_list_release(&warnings);
	return bad ? EXIT_USAGE : EXIT_OK;
}

/* orch help [COMMAND]: the command's own --help text. */
static int help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return EXIT_OK;
	}
	const struct command *c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "orch: '%s' is not a command; see 'orch help'\n", argv[1]);
		return EXIT_USAGE;
	}
	char name[32], opt[] = "--help";
	snprintf(name, sizeof(name), "%s", c->name);
	char *args[] = { name, opt, NULL };
	return c->fn(2, args);
}

int main(int argc, char **argv)
{
	secret_protect_process();
	argc = take_global_options(argc, argv);
	if (argc < 0)
		return EXIT_USAGE;
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(name, "help"))
		return help(argc - 1, argv + 1);
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("orch %s\n", ORCH_VERSION);
		return EXIT_OK;
	}
	const struct command *c = find_command(name);
	if (c) {
		if (load_settings() != EXIT_OK)
			return EXIT_USAGE;
		int ret = c->fn(argc - 1, argv + 1);
		secret_wipe_all();
		return ret;
	}
	fprintf(stderr, "orch: '%s' is not a command; see 'orch --help'\n", name);
	return EXIT_USAGE;
}
