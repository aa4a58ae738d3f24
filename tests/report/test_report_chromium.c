/* report.html as a browser draws it: headless Chromium takes a screenshot
 * of the sample run's page, and the picture must hold far more than a
 * blank page does. Skips (with a message) when no Chromium is installed. */
#include "testsupport.h"
#include "report/report.h"
#include "sample_run.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SHOT_W 1200
#define SHOT_H 1600

static const char *find_chromium(void)
{
	static const char *const names[] = { "chromium", "chromium-browser", "google-chrome" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ts_run(NULL, "command -v %s", names[i]) == 0)
			return names[i];
	return NULL;
}

static long file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

static unsigned be32(const unsigned char *p)
{
	return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3];
}

/* Renders dir/page into dir/png; asserts a PNG of the window's size came out. */
static long screenshot(const char *chromium, const char *dir, const char *page, const char *png)
{
	char *out = NULL;
	int st = ts_run(&out,
			"cd '%s' && timeout 90 %s --headless --no-sandbox --disable-gpu --disable-quic "
			"--no-first-run --disable-background-networking --disable-component-update "
			"--disable-sync --user-data-dir='%s/profile' --screenshot='%s/%s' "
			"--window-size=%d,%d 'file://%s/%s'",
			dir, chromium, dir, dir, png, SHOT_W, SHOT_H, dir, page);
	char *path = xasprintf("%s/%s", dir, png);
	if (st != 0 || !ts_file_exists(path))
		fail_msg("%s exited %d without %s:\n%s", chromium, st, png, out ? out : "");
	free(out);
	char *data = ts_read_file(path);
	assert_non_null(data);
	const unsigned char *p = (const unsigned char *)data;
	assert_memory_equal(p, "\x89PNG\r\n\x1a\n", 8);
	assert_memory_equal(p + 12, "IHDR", 4);
	assert_int_equal(be32(p + 16), SHOT_W);
	assert_int_equal(be32(p + 20), SHOT_H);
	free(data);
	long size = file_size(path);
	free(path);
	return size;
}

static void test_render(void **state)
{
	(void)state;
	const char *chromium = find_chromium();
	if (!chromium) {
		fprintf(stderr, "SKIP: no chromium here (apt-get install chromium)\n");
		skip();
	}
	char *dir = ts_mkdtemp("report-chromium");
	struct run_result run = { 0 };
	sample_run_fill(&run);
	char err[512] = "";
	assert_int_equal(report_write_all(&run, dir, err, sizeof(err)), 0);
	free(ts_write_file(dir, "blank.html", "<!DOCTYPE html><html><body></body></html>\n"));

	long blank = screenshot(chromium, dir, "blank.html", "blank.png");
	long shot = screenshot(chromium, dir, "report.html", "report.png");
	fprintf(stderr, "screenshot %s/report.png: %ld bytes (blank page: %ld)\n", dir, shot, blank);
	if (shot < 30000 || shot < 5 * blank)
		fail_msg("the rendered page looks empty: %ld bytes vs %ld for a blank page", shot, blank);

	/* keep the last picture where people look for test output */
	const char *keep = getenv("ORCH_TEST_TMP");
	if (keep && *keep)
		ts_run(NULL, "cp '%s/report.png' '%s/report-chromium.png'", dir, keep);
	run_result_release(&run);
	ts_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
