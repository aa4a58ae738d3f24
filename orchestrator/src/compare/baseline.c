#include "compare/compare.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "YYYYMMDD-HHMMSS" or "YYYYMMDD-HHMMSS-N"; *suffix is N, 1 without one. */
static bool run_folder_name(const char *name, long *suffix)
{
	for (int i = 0; i < 15; i++) {
		if (i == 8 ? name[i] != '-' : !isdigit((unsigned char)name[i]))
			return false;
	}
	*suffix = 1;
	if (name[15] == '\0')
		return true;
	if (name[15] != '-' || !isdigit((unsigned char)name[16]))
		return false;
	char *end;
	*suffix = strtol(name + 16, &end, 10);
	return *end == '\0';
}

static bool has_results(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s/results.json", dir, name);
	struct stat st;
	bool ok = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	free(path);
	return ok;
}

static char *newest_run_folder(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char *best = NULL;
	long best_suffix = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		long suffix;
		if (!run_folder_name(de->d_name, &suffix) || !has_results(dir, de->d_name))
			continue;
		int c = best ? strncmp(de->d_name, best, 15) : 1;
		if (c > 0 || (c == 0 && suffix > best_suffix)) {
			free(best);
			best = xstrdup(de->d_name);
			best_suffix = suffix;
		}
	}
	closedir(d);
	return best;
}

char *compare_resolve_baseline(const char *runs_dir, const char *scenario, const char *spec)
{
	if (!spec)
		return NULL;
	if (strcmp(spec, "latest") != 0)
		return xstrdup(spec);

	char *safe = fs_safe_name(scenario && *scenario ? scenario : "run");
	char *dir = fs_path_join(runs_dir ? runs_dir : "runs", safe);
	char *link = fs_path_join(dir, "latest");
	char *ret = NULL;
	char target[PATH_MAX];
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		char *path = target[0] == '/' ? xstrdup(target) : fs_path_join(dir, target);
		char *results = fs_path_join(path, "results.json");
		struct stat st;
		if (stat(results, &st) == 0)
			ret = path;
		else
			free(path);
		free(results);
	}
	if (!ret) {
		char *name = newest_run_folder(dir);
		if (name)
			ret = fs_path_join(dir, name);
		free(name);
	}
	free(link);
	free(dir);
	free(safe);
	return ret;
}
