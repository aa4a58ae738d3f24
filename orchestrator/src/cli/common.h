#ifndef ORCH_CLI_COMMON_H
#define ORCH_CLI_COMMON_H
/*
 * What several subcommands share: loading a scenario with its inventory
 * (printing every diagnostic), the inventory alone, and the usage-error
 * message with its pointer to --help.
 */
#include "config/config.h"

#include <stdbool.h>
#include <stdio.h>

/* Loads SCENARIO and its inventory (-i, else the scenario's inventory:,
 * else $ORCH_INVENTORY), puts the -e variables over its vars (cmd_extra_var)
 * and checks them against each other. Returns EXIT_OK, or
 * EXIT_USAGE after printing every problem found to stderr. */
int cmd_load_scenario(const char *scenario_path, const char *inventory_path,
		      struct scenario **sc, struct inventory **inv);
/* -e NAME=VALUE or -e @FILE.yaml of run and validate: kept for the next
 * cmd_load_scenario, which puts them over every vars: of the scenario
 * (highest precedence). EXIT_OK, or EXIT_USAGE after printing why. */
int cmd_extra_var(const char *arg);
/* --dry-run -v / validate -v: the resolved vars and every command as it
 * would be sent, board by board (cli/resolved.c). */
struct plan;
void cmd_print_resolved(const struct scenario *sc, const struct plan *plan, FILE *out);

/* The first problem the last failed load printed, "FILE:LINE:COL: MESSAGE"
 * (the order orch validate lists them in), or NULL. */
const char *cmd_first_error(void);
/* Loads an inventory: -i, else $ORCH_INVENTORY. EXIT_OK, or EXIT_USAGE
 * after printing what is wrong. */
int cmd_load_inventory(const char *inventory_path, struct inventory **inv);

/*
 * The boards the BOARD operands ARGS name, for `orch NAME`: plain names and
 * selectors (tag:T, globs, !NAME, lists, as -l) resolved against the
 * inventory (-i INV_PATH, else $ORCH_INVENTORY); a name the inventory does
 * not know is refused (with the closest name). Without an inventory, when
 * need_inventory is false, plain names go unchecked with a warning. *out
 * (the caller frees the array; names borrowed from ARGS or *inv, which the
 * caller frees). EXIT_OK, or EXIT_USAGE after saying why.
 */
int cmd_select_boards(const char *name, const char *inv_path, bool need_inventory, char **args,
		      int n, const char ***out, size_t *n_out, struct inventory **inv);
/*
 * The boards `orch NAME` works on by hand (power, console): cmd_select_boards
 * with the inventory needed, as the inventory's boards. EXIT_OK with *boards
 * (the caller frees the array; the boards live in *inv, which the caller
 * frees with inventory_free), or EXIT_USAGE after saying why.
 */
int cmd_manual_select(const char *name, const char *inv_path, char **args, int n,
		      const struct board ***boards, size_t *nb, struct inventory **inv);
/*
 * A board taken for a person's manual work: its lock (lock/board_lock.h),
 * NOTE saying what (orch who shows it), then its board link. A board held by
 * a run or by another person's reservation is refused naming the holder
 * (EXIT_INFRA), unless force: then a warning names the holder and no lock is
 * taken. EXIT_OK with *m filled (cmd_manual_release), or EXIT_INFRA after
 * saying why.
 */
struct board_link;
struct manual_board {
	struct board_link *link;
	int lock_fd;               /* -1: no lock held (forced past a holder) */
};
int cmd_manual_take(const char *name, const struct inventory *inv, const struct board *b,
		    const char *note, bool force, struct manual_board *m);
/* Closes the link, then releases the lock. */
void cmd_manual_release(struct manual_board *m);

/* The value of a bounded integer option OPT of `orch NAME`: a whole decimal
 * number from LO to HI. EXIT_OK with *out set, else EXIT_USAGE after "OPT
 * takes a number from LO to HI, found 'ARG'" ("from LO" alone when HI is
 * INT_MAX), *out untouched. */
int cmd_int_option(const char *name, const char *opt, const char *arg, int lo, int hi, int *out);
/* The value of a percentage option (--threshold): a finite number >= 0,
 * optionally with a trailing '%'. EXIT_OK with *pct set, else EXIT_USAGE
 * after "OPT takes a percentage, found 'ARG'", *pct untouched. */
int cmd_percent_option(const char *name, const char *opt, const char *arg, double *pct);
/* As cmd_percent_option, without a message: 0, or -1 when S is not one. */
int cmd_parse_percent(const char *s, double *pct);
/* Appends ARG (borrowed: an argv string) to the list *V of *N entries,
 * for repeatable options such as -l and -t; the caller frees *V. */
void cmd_add_arg(const char ***v, size_t *n, const char *arg);

/* The remote-bench folder (BENCH/ARCH/remote-bench-NAME) when --bench-dir
 * is not given: $ORCH_BENCH_DIR; else remote-bench/bin beside the orch
 * binary (a build tree); else ../lib/orch/remote-bench from the binary's
 * folder (an install, wherever its prefix). Caller frees. */
char *cmd_default_bench_dir(void);

/* Prints "orch NAME: MESSAGE" and "try 'orch NAME --help'" on stderr.
 * Returns EXIT_USAGE. */
int cmd_usage_error(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The usage error for what getopt_long returned OPT (':' or '?') on ARG:
 * "option 'ARG' needs a value" or "unknown option 'ARG'". Returns
 * EXIT_USAGE. */
int cmd_option_error(const char *name, int opt, const char *arg);
/* Option parsing for a command whose only option is -h/--help: prints
 * USAGE on stdout for it, a usage error for any other option. Returns -1
 * when the caller goes on with its operands at argv[optind], else the
 * exit code to return. */
int cmd_parse_help_only(int argc, char **argv, const char *name, void (*usage)(FILE *out));

/* What orch validate and --dry-run also check, for the boards and tests
 * the plan runs: identity files exist, bench: programs exist in the bench
 * folder (bench_dir, or the default). Prints every problem with its line;
 * returns 0 or -1. */
struct plan;
int cmd_check_before_run(const struct scenario *sc, const struct plan *plan,
			 const char *bench_dir);

#endif
