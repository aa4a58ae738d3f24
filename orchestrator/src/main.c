/*
 * orch: a test orchestrator for racks of small boards. main() only
 * dispatches to the subcommand table; each cmd_*.c parses its own options.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
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
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: orch COMMAND [ARGS]\n\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  orch %-8s %s\n           %s\n", commands[i].name,
			commands[i].synopsis, commands[i].description);
	fprintf(out, "\n'orch COMMAND --help' tells more; exit codes: 0 passed, 1 a test failed,\n"
		     "2 usage or invalid input, 3 infrastructure error, 130 interrupted\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("orch %s\n", ORCH_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "orch: '%s' is not a command; see 'orch --help'\n", name);
	return EXIT_USAGE;
}
