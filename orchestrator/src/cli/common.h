#ifndef ORCH_CLI_COMMON_H
#define ORCH_CLI_COMMON_H
/*
 * What several verbs share that is argv or printing: loading (config/load.h)
 * with its diagnostics printed, the pre-flight check printed, board
 * operands resolved, boards taken for manual work, option values, and the
 * usage-error message with its pointer to --help.
 */
#include "config/load.h"

#include <stdbool.h>
#include <stdio.h>

/* Loads what rq names (config/load.h) and prints its warnings and errors
 * on stderr (each error with its line and a caret). EXIT_OK with *sc (when
 * sc is not NULL) and *inv, which the caller frees, or EXIT_USAGE;
 * first_error (may be NULL) gets the first error, "FILE:LINE:COL: MESSAGE". */
int cmd_load(const struct load_request *rq, struct scenario **sc, struct inventory **inv,
	     char *first_error, size_t len);
/* cmd_load of SCENARIO with its inventory (-i, else the scenario's, else
 * $ORCH_INVENTORY) and the -e arguments EXTRA. */
int cmd_load_scenario(const char *scenario, const char *inventory, const char *const *extra,
		      size_t n_extra, struct scenario **sc, struct inventory **inv);
/* cmd_load of an inventory alone: -i, else $ORCH_INVENTORY. */
int cmd_load_inventory(const char *inventory_path, struct inventory **inv);
/* --dry-run -v / validate -v: the resolved vars and every command as it
 * would be sent, board by board (cli/resolved.c). */
struct plan;
void cmd_print_resolved(const struct scenario *sc, const struct plan *plan, FILE *out);

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

/* plan_preflight (plan/preflight.h) with the bench folder in use
 * (bench_dir, else settings_bench_dir's default), every problem printed
 * with its line; 0 or -1. */
int cmd_check_before_run(const struct scenario *sc, const struct plan *plan,
			 const char *bench_dir);

#endif
