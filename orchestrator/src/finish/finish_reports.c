/* The run folder's reports: rendered by report/, written by store/. */
#include "finish/finish.h"

#include "report/report.h"
#include "store/store.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int finish_write_reports(struct store *st, const struct run_result *run, char *err,
			 size_t errlen)
{
	struct {
		const char *name;
		char *text;
	} files[] = {
		{ "summary.txt", report_summary_in(run, store_path(st), false) },
		{ "junit.xml", report_junit_in(run, store_path(st)) },
	};
	int ret = 0;
	char err2[512];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		/* one that cannot be written does not stop the others */
		if (store_write_file(st, files[i].name, files[i].text, strlen(files[i].text), err2,
				     sizeof(err2)) < 0 && ret++ == 0)
			snprintf(err, errlen, "%s", err2);
		free(files[i].text);
	}
	/* report.html, megabytes for a rack, a section at a time */
	struct store_file *f = store_file_open(st, "report.html", err2, sizeof(err2));
	if (f) {
		report_html_render(run, store_path(st), store_file_put, f);
		if (store_file_commit(f, err2, sizeof(err2)) < 0)
			f = NULL;
	}
	if (!f && ret++ == 0)
		snprintf(err, errlen, "%s", err2);
	return ret ? -1 : 0;
}
