#ifndef ORCH_CONFIG_SETTINGS_H
#define ORCH_CONFIG_SETTINGS_H
/*
 * orch's configuration files (orch(1) FILES): the settings every scenario
 * of a lab shares, each a key of a YAML mapping: inventory, lock_dir, db,
 * runs_dir, bench_dir, color, and trust (paths trusted on purpose; system
 * and user files only). Files are read in order, each over the ones before
 * (system, user, project); each setting stands for an environment variable
 * (settings_env), which settings_export sets where the environment has
 * not, so the environment and then the command line come over the files.
 * Relative paths are relative to the file that holds them.
 *
 * A file is read only when trusted (config/trust.h): owned by the invoking
 * user or root and writable by no one else; so is every path a file names
 * (the inventory, and the lock, runs and bench folders).
 */
#include "config/trust.h"
#include "util/diag.h"

enum setting {
	SETTING_INVENTORY = 0,
	SETTING_LOCK_DIR,
	SETTING_DB,
	SETTING_RUNS_DIR,
	SETTING_BENCH_DIR,
	SETTING_COLOR,
	SETTING_COUNT,
};

struct settings {
	char *value[SETTING_COUNT];   /* NULL: no file sets it */
	struct trust trust;           /* ORCH_TRUST and the system and user trust: */
};

/* The key of s in a file ("lock_dir") and the variable it stands for
 * ("ORCH_LOCK_DIR"). */
const char *settings_key(enum setting s);
const char *settings_env(enum setting s);

/* Which file is read: the system and user files may trust paths. */
enum settings_level { SETTINGS_SYSTEM, SETTINGS_USER, SETTINGS_PROJECT };

/* Reads the file at path over what s holds, from the descriptor that
 * trust_open judged. A file that does not exist is no error (0); one that
 * is not trusted is refused (-1: its owner and mode and how to trust it,
 * in errors); one that is there but cannot be read (no permission, a
 * link to nothing) is an error naming the reason. Returns 0, or -1 with
 * every problem in errors (FILE:LINE:COL, unknown keys with a
 * did-you-mean, a named path that is not trusted). */
int settings_read(const char *path, enum settings_level level, struct settings *s,
		  struct diag_list *errors);

/*
 * The three files in order: system ($ORCH_CONFIG_SYSTEM, else
 * /etc/orch/config.yaml), user ($XDG_CONFIG_HOME/orch/config.yaml, else
 * ~/.config/orch/config.yaml), project (settings_find_project from the
 * current folder). Returns 0, or -1 with errors filled; warnings get the
 * project files the search passed over.
 */
int settings_load(struct settings *s, struct diag_list *errors, struct diag_list *warnings);
/* Sets each setting's ORCH_ variable where the environment has none. */
void settings_export(const struct settings *s);
void settings_release(struct settings *s);

/* The project file: .orch.yaml in dir or in its nearest parent that has
 * one, not looking in or above a folder that is someone else's or
 * writable by others, nor past a file system boundary (a passed-over
 * .orch.yaml in such a folder is a warning); NULL when none. Caller frees. */
char *settings_find_project(const char *dir, const struct trust *t, struct diag_list *warnings);

/* The remote-bench folder (BENCH/ARCH/remote-bench-NAME): given (--bench-dir)
 * when not NULL; else $ORCH_BENCH_DIR; else remote-bench/bin beside the orch
 * binary (a build tree); else ../lib/orch/remote-bench from the binary's
 * folder (an install, wherever its prefix). Caller frees. */
char *settings_bench_dir(const char *given);

#endif
