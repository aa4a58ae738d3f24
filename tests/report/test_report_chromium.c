/* report.html as a browser draws it: headless Chromium takes a screenshot
 * of the sample run's page, and the picture must hold far more than a
 * blank page does. Skips (with a message) when no Chromium is installed. */
#include "testsupport.h"
#include "ts_run_folder.h"
#include "finish/finish.h"
#include "report/report.h"
#include "store/store.h"
#include "sample_run.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SHOT_W 1200
#define SHOT_H 1600

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
	const char *chromium = ts_find_chromium();
	if (!chromium) {
		ts_skip("needs chromium (apt-get install chromium)");
	}
	char *dir = ts_mkdtemp("report-chromium");
	struct run_result run = { 0 };
	sample_run_fill(&run);
	char err[512] = "";
	assert_int_equal(ts_run_folder_reports(&run, dir, err, sizeof(err)), 0);
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

/* A rack's night: 32 boards x 10 tests, a few failing. */
static void fill_rack(struct run_result *run)
{
	run->scenario = xstrdup("rack-night");
	run->run_id = xstrdup("20261203-020000");
	run->exit_code = 1;
	for (int b = 1; b <= 32; b++) {
		for (int t = 1; t <= 10; t++) {
			char board[16], test[32];
			snprintf(board, sizeof(board), "board%02d", b);
			snprintf(test, sizeof(test), "benchmark-test-%02d", t);
			struct test_result *tr = run_result_add(run, board, test);
			tr->status = (b * 7 + t) % 29 == 0 ? STATUS_FAIL :
				     (b + t) % 31 == 0 ? STATUS_ERROR : STATUS_PASS;
			tr->duration_s = 1;
			test_result_add_sample(tr, "mem.total", "KiB", true, 24683568.0 + b);
		}
	}
}

/* The grid is the first thing people see: at 1280 px wide its 32 boards x
 * 10 tests fit the window without scrolling, either way. Chromium loads
 * the report in a 1280 x 800 frame and a script of the test writes where
 * the grid ends into the DOM it dumps. */
static void test_grid_fits_the_window(void **state)
{
	const char *chromium = ts_find_chromium();
	if (!chromium) {
		ts_skip("needs chromium (apt-get install chromium)");
	}
	char *dir = ts_mkdtemp("report-grid");
	struct run_result run = { 0 };
	fill_rack(&run);
	char err[512] = "";
	assert_int_equal(ts_run_folder_reports(&run, dir, err, sizeof(err)), 0);
	free(ts_write_file(dir, "measure.html",
			   "<!DOCTYPE html><html><body><iframe id=f src=\"report.html\" "
			   "style=\"width:1280px;height:800px;border:0\"></iframe><script>\n"
			   "document.getElementById('f').onload = function () {\n"
			   "  var d = this.contentDocument, g = d.querySelector('table.grid');\n"
			   "  var r = g.getBoundingClientRect();\n"
			   "  document.body.setAttribute('data-measure', 'bottom=' + Math.ceil(r.bottom) +\n"
			   "    ' right=' + Math.ceil(r.right) + ' rows=' + g.rows.length + ' width=' +\n"
			   "    d.documentElement.scrollWidth + ' first=' + g.rows[1].cells[0].textContent);\n"
			   "};\n</script></body></html>\n"));
	char *out = NULL;
	int st = ts_run(&out,
			"cd '%s' && timeout 90 %s --headless --no-sandbox --disable-gpu --disable-quic "
			"--no-first-run --disable-background-networking --disable-component-update "
			"--disable-sync --user-data-dir='%s/profile' --allow-file-access-from-files "
			"--virtual-time-budget=5000 --window-size=1300,820 --dump-dom "
			"'file://%s/measure.html' 2>/dev/null",
			dir, chromium, dir, dir);
	char *m = out ? strstr(out, "data-measure=\"") : NULL;
	if (st != 0 || !m)
		fail_msg("no measure from %s (exit %d):\n%s", chromium, st, out ? out : "");
	int bottom = 0, right = 0, rows = 0, width = 0;
	char first[32] = "";
	assert_int_equal(sscanf(m, "data-measure=\"bottom=%d right=%d rows=%d width=%d first=%31[a-z0-9]",
				&bottom, &right, &rows, &width, first), 5);
	fprintf(stderr, "grid: bottom %d px, right %d px, %d rows, page width %d px, first row %s\n",
		bottom, right, rows, width, first);
	assert_int_equal(rows, 33);              /* the header and 32 boards */
	assert_true(bottom <= 800);
	assert_true(right <= 1280);
	assert_true(width <= 1280);
	/* failures first: board03 (3*7+8 = 29) fails, and is the first row */
	assert_string_equal(first, "board03");
	free(out);
	run_result_release(&run);
	ts_rmrf(dir);
	free(dir);
}

/* A whole rack: NB boards b1..bNB x 40 tests with long names, t07 failing
 * on b10-b13 and t31 erroring on b2; every test measures two metrics; the
 * boards' facts gathered in a shuffled order. */
static void fill_big_rack(struct run_result *run, int nb)
{
	run->scenario = xstrdup("rack-at-a-glance");
	run->run_id = xstrdup("20261207-020000");
	run->exit_code = 1;
	for (int k = 0; k < nb; k++) {
		int b = (k * 37) % nb + 1;   /* 37 is prime to 64 and 256: each board once */
		struct board_facts bf = { 0 };
		char board[16];
		snprintf(board, sizeof(board), "b%d", b);
		bf.board = xstrdup(board);
		board_facts_set(&bf, "kernel", "6.1.0-rack");
		board_facts_set(&bf, "cpu", b % 2 ? "armv7l" : "aarch64");
		run_result_put_facts(run, &bf);
	}
	for (int b = 1; b <= nb; b++) {
		for (int t = 1; t <= 40; t++) {
			char board[16], test[48];
			snprintf(board, sizeof(board), "b%d", b);
			snprintf(test, sizeof(test), "t%02d-network-throughput-check", t);
			struct test_result *tr = run_result_add(run, board, test);
			tr->status = t == 7 && b >= 10 && b <= 13 ? STATUS_FAIL :
				     t == 31 && b == 2 ? STATUS_ERROR : STATUS_PASS;
			if (tr->status != STATUS_PASS)
				tr->message = xstrdup("exit status 1: checksum mismatch");
			tr->duration_s = 0.2 + t / 100.0;
			test_result_add_sample(tr, "throughput", "MB/s", true, 900.0 + (b * 13 + t) % 99);
			test_result_add_sample(tr, "latency", "ms", false, 1.5 + (b % 7) / 10.0);
		}
	}
}

/* What the page measures of itself in a 1280 x 900 frame, once loaded and
 * laid out: the document's widths, the grid's cells and how many link to a
 * details row with logs, the time from navigation to layout done, the first
 * grid row, the second row of the Boards table, the metric charts and how
 * many of them have an axis with a unit. */
static const char rack_measure_html[] =
	"<!DOCTYPE html><html><body style=\"margin:0\"><iframe id=f src=\"report.html\" "
	"style=\"width:1280px;height:900px;border:0\"></iframe><script>\n"
	"document.getElementById('f').onload = function () {\n"
	"  var w = this.contentWindow, d = this.contentDocument, e = d.documentElement;\n"
	"  var sw = e.scrollWidth, cw = e.clientWidth;\n"
	"  var ms = Math.round(w.performance.now());\n"
	"  var cells = d.querySelectorAll('table.grid tbody td'), linked = 0, inside = 0;\n"
	"  for (var i = 0; i < cells.length; i++) {\n"
	"    var a = cells[i].querySelector('a[href^=\"#r\"]');\n"
	"    var row = a && d.getElementById(a.getAttribute('href').slice(1));\n"
	"    if (row && row.querySelector('td.logs a[href]')) linked++;\n"
	"    if (a && a.getBoundingClientRect().right <= cw) inside++;\n"
	"  }\n"
	"  var figs = d.querySelectorAll('#metrics ~ .grid2 figure, #metrics + .grid2 figure');\n"
	"  var axes = 0;\n"
	"  for (var i = 0; i < figs.length; i++)\n"
	"    if (figs[i].querySelector('svg .axis text') && figs[i].querySelector('.axisunit') &&\n"
	"        figs[i].querySelector('.axisunit').textContent.length) axes++;\n"
	"  var g = d.querySelector('table.grid'), bt = d.querySelector('table.boards');\n"
	"  document.body.setAttribute('data-measure', 'sw=' + sw + ' cw=' + cw + ' cells=' +\n"
	"    cells.length + ' linked=' + linked + ' inside=' + inside + ' ms=' + ms + ' figs=' +\n"
	"    figs.length + ' axes=' + axes + ' first=' + g.rows[1].cells[0].textContent +\n"
	"    ' board2=' + bt.rows[2].cells[0].textContent + ' end');\n"
	"};\n</script></body></html>\n";

struct rack_measure {
	int sw, cw, cells, linked, inside, ms, figs, axes;
	char first[32], board2[32];
};

/* One load of dir/measure.html in headless Chromium: what the page measured. */
static void rack_load(const char *chromium, const char *dir, struct rack_measure *m)
{
	char *out = NULL;
	int st = ts_run(&out,
			"cd '%s' && timeout 90 %s --headless --no-sandbox --disable-gpu --disable-quic "
			"--no-first-run --disable-background-networking --disable-component-update "
			"--disable-sync --user-data-dir='%s/profile' --allow-file-access-from-files "
			"--window-size=1300,920 --dump-dom 'file://%s/measure.html' 2>/dev/null",
			dir, chromium, dir, dir);
	char *p = out ? strstr(out, "data-measure=\"") : NULL;
	if (st != 0 || !p)
		fail_msg("no measure from %s (exit %d):\n%.2000s", chromium, st, out ? out : "");
	memset(m, 0, sizeof(*m));
	assert_int_equal(sscanf(p, "data-measure=\"sw=%d cw=%d cells=%d linked=%d inside=%d ms=%d "
				"figs=%d axes=%d first=%31s board2=%31s",
				&m->sw, &m->cw, &m->cells, &m->linked, &m->inside, &m->ms, &m->figs,
				&m->axes, m->first, m->board2), 10);
	free(out);
}

static void measure_rack(const char *chromium, int nb, struct rack_measure *m)
{
	char *dir = ts_mkdtemp("report-rack");
	struct run_result run = { 0 };
	fill_big_rack(&run, nb);
	char err[512] = "";
	assert_int_equal(ts_run_folder_reports(&run, dir, err, sizeof(err)), 0);
	free(ts_write_file(dir, "measure.html", rack_measure_html));
	/* the machine is shared (other builds and labs load its CPUs): the
	 * fastest of three loads is the page's own time */
	for (int attempt = 0; attempt < 3; attempt++) {
		struct rack_measure one;
		rack_load(chromium, dir, &one);
		if (attempt == 0 || one.ms < m->ms)
			*m = one;
		if (m->ms < 2000)
			break;
	}
	fprintf(stderr, "%d boards x 40 tests: page %d px wide in a %d px window, %d cells, %d "
		"linked to their logs, %d inside the window; loaded and laid out in %d ms; %d "
		"charts, %d with an axis and unit; first row %s, Boards table's second %s\n",
		nb, m->sw, m->cw, m->cells, m->linked, m->inside, m->ms, m->figs, m->axes, m->first,
		m->board2);
	run_result_release(&run);
	if (!getenv("ORCH_TEST_KEEP"))
		ts_rmrf(dir);
	free(dir);
}

/* A rack's grid fits the width: no horizontal scrolling, every cell a link
 * to its details and logs, in under 2 s of loading and layout; the failing
 * board first, boards in natural order; a chart per test x metric. */
static void check_rack(int nb)
{
	const char *chromium = ts_find_chromium();
	if (!chromium) {
		ts_skip("needs chromium (apt-get install chromium)");
	}
	struct rack_measure m;
	measure_rack(chromium, nb, &m);
	assert_true(m.sw <= m.cw);
	assert_int_equal(m.cells, nb * 40);
	assert_int_equal(m.linked, nb * 40);
	assert_int_equal(m.inside, nb * 40);
	assert_true(m.ms < 2000);
	assert_int_equal(m.figs, 80);
	assert_int_equal(m.axes, 80);
	assert_string_equal(m.first, "b10");    /* failures first, then natural order */
	assert_string_equal(m.board2, "b2");    /* b1, b2, ... not b1, b10 */
}

static void test_rack_64_fits_1280(void **state)
{
	check_rack(64);
}

static void test_rack_256_fits_1280(void **state)
{
	check_rack(256);
}

TS_MAIN(NULL, NULL, test_render, test_grid_fits_the_window, test_rack_64_fits_1280,
	test_rack_256_fits_1280)
