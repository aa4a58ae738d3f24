/* A run's journal read back into the result model. */
#include "store/store.h"
#include "result/result_json.h"
#include "util/fsutil.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int journal_end_line(json_t *j, struct run_result *run)
{
	json_t *end = json_object_get(j, "end");
	json_t *code = json_object_get(j, "exit_code");
	if (!json_is_string(end) || !json_is_integer(code) ||
	    result_time_parse(json_string_value(end), &run->end_wall_us) < 0)
		return -1;
	run->exit_code = (int)json_integer_value(code);
	run->interrupted = json_is_true(json_object_get(j, "interrupted"));
	return 0;
}

int store_journal_load(const char *run_dir, struct run_result *run, size_t *n_bad, char *err,
		       size_t errlen)
{
	memset(run, 0, sizeof(*run));
	if (err && errlen)
		err[0] = '\0';
	size_t bad = 0;
	char *path = fs_path_join(run_dir, STORE_JOURNAL);
	FILE *f = fopen(path, "re");
	int ret = -1;
	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool have_header = false;
	for (size_t lineno = 1; (n = getline(&line, &cap, f)) >= 0; lineno++) {
		json_error_t jerr;
		json_t *j = n && line[n - 1] == '\n' ? json_loadb(line, (size_t)n, 0, &jerr) : NULL;
		if (!have_header) {
			char inner[256] = "not a journal header";
			if (!j || !json_object_get(j, "orch_journal") ||
			    run_result_from_json(j, run, inner, sizeof(inner)) < 0) {
				snprintf(err, errlen, "%s:%zu: %s", path, lineno,
					 j ? inner : "not an orch journal (no header line)");
				json_decref(j);
				break;
			}
			have_header = true;
		} else if (j && json_object_get(j, "orch_journal_end")) {
			bad += journal_end_line(j, run) < 0;
		} else {
			struct test_result tr;
			char inner[256];
			if (j && test_result_from_json(j, &tr, inner, sizeof(inner)) == 0)
				run_result_take(run, &tr);
			else
				bad++;
		}
		json_decref(j);
	}
	free(line);
	if (have_header && !ferror(f))
		ret = 0;
	else if (have_header)
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
	else if (!err[0] || ferror(f))
		snprintf(err, errlen, "%s: empty: not an orch journal", path);
	fclose(f);
out:
	free(path);
	if (ret < 0)
		run_result_release(run);
	if (n_bad)
		*n_bad = bad;
	return ret;
}
