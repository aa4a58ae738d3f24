/* A run folder's reports, all of them. */
#include "report/report.h"
#include "report/report_text.h"
#include "util/fsutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int report_write_all(const struct run_result *run, const char *run_dir, char *err, size_t errlen)
{
	struct {
		const char *name;
		char *text;
	} files[] = {
		{ "summary.txt", report_summary(run, false) },
		{ "junit.xml", report_junit_in(run, run_dir) },
	};
	int ret = 0;
	char err2[512];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = fs_path_join(run_dir, files[i].name);
		/* one that cannot be written does not stop the others */
		if (fs_replace_file(path, files[i].text, strlen(files[i].text), err2,
				    sizeof(err2)) < 0 && ret++ == 0)
			snprintf(err, errlen, "%s", err2);
		free(path);
		free(files[i].text);
	}
	/* report.html, megabytes for a rack, a section at a time */
	if (report_html_write(run, run_dir, err2, sizeof(err2)) < 0 && ret++ == 0)
		snprintf(err, errlen, "%s", err2);
	return ret ? -1 : 0;
}
