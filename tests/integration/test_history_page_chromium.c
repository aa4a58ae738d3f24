/*
 * orch history --format html as a browser draws it: four nights of 8
 * local boards x 10 metrics through the binary, the page rendered by
 * headless Chromium in a 1280 x 800 frame, where a script of the test
 * measures it into the DOM it dumps: a row per metric with the boards
 * folded, the page no wider than the screen with a board's charts opened
 * (it scrolls down only) and its scroll box ending inside it, the header
 * row in view when scrolled (sticky), a chart per row and per board each
 * with a y axis in the metric's unit, and every point a link to its run's
 * report.html.
 * A screenshot is kept beside the test's build folder to look at.
 */
#include "testsupport.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOARDS 8
#define METRICS 10
#define NIGHTS 4

/* The scenario: 8 local boards, one test printing 10 metrics in MiB/s. */
static void write_lab(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_puts(&sb, "boards:\n");
	for (int b = 1; b <= BOARDS; b++)
		strbuf_printf(&sb, "  rack-board-%02d: { local: true }\n", b);
	free(ts_write_file(dir, "rack.yaml", strbuf_str(&sb)));
	strbuf_release(&sb);
	strbuf_puts(&sb, "name: page\ninventory: rack.yaml\nboards:\n");
	for (int b = 1; b <= BOARDS; b++)
		strbuf_printf(&sb, "  - rack-board-%02d\n", b);
	strbuf_printf(&sb, "tests:\n"
		      "  - name: bench\n    repeat: 2\n    parse: remote-bench\n    run: |\n"
		      "      for m in 1 2 3 4 5 6 7 8 9 10; do\n"
		      "        echo \"{\\\"metric\\\":\\\"throughput.$m\\\",\\\"value\\\":"
		      "$(( 100 * m + $(cat '%s/night') )),\\\"unit\\\":\\\"MiB/s\\\","
		      "\\\"better\\\":\\\"higher\\\"}\"\n      done\n", dir);
	free(ts_write_file(dir, "page.yaml", strbuf_str(&sb)));
	strbuf_release(&sb);
}

static const char measure_html[] =
	"<!DOCTYPE html><html><body style=\"margin:0\"><iframe id=f src=\"page.html\" "
	"style=\"width:1280px;height:800px;border:0\"></iframe><script>\n"
	"document.getElementById('f').onload = function () {\n"
	"  var d = this.contentDocument, w = d.querySelector('.wrap');\n"
	"  var th = d.querySelector('thead th:nth-child(3)');\n"
	"  d.querySelector('details').open = true;\n"
	"  var wr = w.getBoundingClientRect();\n"
	"  w.scrollTop = 400; w.scrollLeft = 500;\n"
	"  var t = th.getBoundingClientRect(), rows = d.querySelectorAll('tr.row').length;\n"
	"  var svgs = d.querySelectorAll('svg.trend'), unit = 0;\n"
	"  for (var i = 0; i < svgs.length; i++) if (svgs[i].textContent.indexOf('MiB/s') >= 0) unit++;\n"
	"  var links = d.querySelectorAll('svg.trend a'), rep = 0;\n"
	"  for (var i = 0; i < links.length; i++) {\n"
	"    var h = links[i].getAttribute('href') || links[i].getAttribute('xlink:href') || '';\n"
	"    if (/\\/report\\.html$/.test(h)) rep++;\n"
	"  }\n"
	"  document.body.setAttribute('data-measure', 'width=' + d.documentElement.scrollWidth +\n"
	"    ' wrapbottom=' + Math.ceil(wr.bottom) + ' scrolled=' + w.scrollTop + ',' + w.scrollLeft +\n"
	"    ' headtop=' + Math.round(t.top - wr.top) + ' rows=' + rows +\n"
	"    ' charts=' + svgs.length + ' withunit=' + unit + ' links=' + rep);\n"
	"};\n</script></body></html>\n";

static void test_page_fits_and_scrolls(void **state)
{
	const char *chromium = ts_find_chromium();
	if (!chromium)
		ts_skip_file("needs chromium (apt-get install chromium)");
	char *dir = ts_mkdtemp("history-page");
	write_lab(dir);
	for (int k = 1; k <= NIGHTS; k++) {
		char text[16];
		snprintf(text, sizeof(text), "%d\n", k);
		free(ts_write_file(dir, "night", text));
		char *out = NULL;
		int code = ts_run(&out, "cd '%s' && %s run page.yaml -q -o runs --label v1.%d 2>&1", dir,
				  ORCH_BIN, k);
		if (code != 0)
			fail_msg("night %d: exit %d\n%s", k, code, out);
		free(out);
	}
	assert_int_equal(ts_run(NULL, "cd '%s' && %s history page -o runs --format html > page.html",
				dir, ORCH_BIN), 0);
	free(ts_write_file(dir, "measure.html", measure_html));
	char *out = NULL;
	const char *flags = "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
			    "--disable-background-networking --disable-component-update --disable-sync";
	int st = ts_run(&out, "cd '%s' && timeout 90 %s %s --user-data-dir='%s/profile' "
			"--allow-file-access-from-files --virtual-time-budget=5000 "
			"--window-size=1300,820 --dump-dom 'file://%s/measure.html' 2>/dev/null",
			dir, chromium, flags, dir, dir);
	char *m = out ? strstr(out, "data-measure=\"") : NULL;
	if (st != 0 || !m)
		fail_msg("no measure from %s (exit %d):\n%s", chromium, st, out ? out : "");
	int width = 0, bottom = 0, top = 0, rows = 0, sy = 0, sx = 0, charts = 0, unit = 0, links = 0;
	assert_int_equal(sscanf(m, "data-measure=\"width=%d wrapbottom=%d scrolled=%d,%d headtop=%d "
				"rows=%d charts=%d withunit=%d links=%d", &width, &bottom, &sy, &sx,
				&top, &rows, &charts, &unit, &links), 9);
	fprintf(stderr, "history page: width %d px, grid box ends at %d px, scrolled %d,%d: header "
		"at %d px; %d rows, %d charts, %d with the unit, %d links\n", width, bottom, sy, sx,
		top, rows, charts, unit, links);
	free(out);
	assert_true(width <= 1280);
	assert_true(bottom <= 800);
	assert_true(sy > 0);                /* taller than the screen: it scrolls down */
	assert_int_equal(sx, 0);            /* and never sideways */
	assert_int_equal(top, 0);           /* the header row stays at the top */
	assert_int_equal(rows, METRICS);    /* a row per metric, the boards folded */
	assert_int_equal(charts, (1 + BOARDS) * METRICS);
	assert_int_equal(unit, (1 + BOARDS) * METRICS);
	assert_int_equal(links, (1 + BOARDS) * METRICS * NIGHTS);
	/* a screenshot to look at */
	st = ts_run(&out, "cd '%s' && timeout 90 %s %s --user-data-dir='%s/profile' "
		    "--screenshot='%s/page.png' --window-size=1280,800 'file://%s/page.html' 2>&1",
		    dir, chromium, flags, dir, dir, dir);
	free(out);
	char *png = xasprintf("%s/page.png", dir);
	assert_true(st == 0 && ts_file_exists(png));
	free(png);
	const char *keep = getenv("ORCH_TEST_TMP");
	if (keep)
		ts_run(NULL, "cp '%s/page.png' '%s/history-page-chromium.png'", dir, keep);
	ts_rmrf_free(&dir);
}

TS_MAIN(NULL, NULL, test_page_fits_and_scrolls)
