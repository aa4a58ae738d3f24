#include "ts_run_folder.h"
#include "testsupport.h"

#include "finish/finish.h"
#include "result/result_json.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

void ts_run_folder_init(struct run_result *run, const char *scenario, const char *run_id,
			const char *version, const char *host, int64_t start_us, int64_t end_us)
{
	memset(run, 0, sizeof(*run));
	run->scenario = xstrdup(scenario);
	run->run_id = xstrdup(run_id);
	run->orch_version = xstrdup(version);
	run->host = xstrdup(host);
	run->start_wall_us = start_us;
	run->end_wall_us = end_us;
}

void ts_run_folder_log(const char *dir, const char *log_dir, const char *name,
		       const char *text)
{
	char *tdir = xasprintf("%s/%s", dir, log_dir);
	assert_int_equal(fs_mkdir_p(tdir, NULL, 0), 0);
	free(ts_write_file(tdir, name, text));
	free(tdir);
}

void ts_run_folder_write(const char *dir, struct run_result *run, const char *run_json)
{
	assert_int_equal(fs_mkdir_p(dir, NULL, 0), 0);
	run->exit_code = finish_exit_code(run, NULL);
	json_t *j = run_result_to_json(run);
	char *text = result_json_dump(j);
	free(ts_write_file(dir, "results.json", text));
	free(text);
	json_decref(j);
	free(ts_write_file(dir, "run.json", run_json));
	run_result_release(run);
}

int ts_run_folder_reports(const struct run_result *run, const char *dir, char *err,
			  size_t errlen)
{
	struct store *st = store_open(dir, err, errlen);
	if (!st)
		return -1;
	int ret = finish_write_reports(st, run, err, errlen);
	store_close(st);
	return ret;
}
