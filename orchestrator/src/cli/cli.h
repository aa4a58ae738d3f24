#ifndef ORCH_CLI_H
#define ORCH_CLI_H
/*
 * The subcommands. Each takes the arguments after its name (argv[0] is the
 * subcommand name), prints its own usage and errors, and returns the
 * process exit code (result/exit_code.h). Only main.c and cli/ exit
 * or print usage.
 */
#include "result/exit_code.h"

int cmd_run(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_boards(int argc, char **argv);
int cmd_boot(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_ports(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_who(int argc, char **argv);
int cmd_lock(int argc, char **argv);
int cmd_unlock(int argc, char **argv);
int cmd_power(int argc, char **argv);
int cmd_console(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_copy(int argc, char **argv);
int cmd_fetch(int argc, char **argv);

#endif
