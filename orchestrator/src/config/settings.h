#ifndef ORCH_CONFIG_SETTINGS_H
#define ORCH_CONFIG_SETTINGS_H
/*
 * orch's configuration files (orch(1) FILES): the settings every scenario
 * of a lab shares, each a key of a YAML mapping: inventory, lock_dir, db,
 * runs_dir, bench_dir, color. Files are read in order, each over the ones
 * before (system, user, project); each setting stands for an environment
 * variable (settings_env), which the caller sets where the environment
 * has not, so the environment and then the command line come over the
 * files. Relative paths are relative to the file that holds them.
 */
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
};

/* The key of s in a file ("lock_dir") and the variable it stands for
 * ("ORCH_LOCK_DIR"). */
const char *settings_key(enum setting s);
const char *settings_env(enum setting s);

/* Reads the file at path over what s holds. A file that does not exist
 * is no error (0). Returns 0, or -1 with every problem in diags
 * (FILE:LINE:COL, unknown keys with a did-you-mean). */
int settings_read(const char *path, struct settings *s, struct diag_list *diags);
void settings_release(struct settings *s);

/* The project file: .orch.yaml in dir or in its nearest parent that has
 * one; NULL when none has. Caller frees. */
char *settings_find_project(const char *dir);

#endif
