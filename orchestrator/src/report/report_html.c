#include "report/report.h"
#include "result/exit_code.h"
#include "report/report_text.h"
#include "compare/range.h"
#include "result/result_json.h"
#include "util/fsutil.h"
#include "util/strbuf.h"
#include "util/valfmt.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "version.h"

/*
 * One self-contained page: inline CSS and inline SVG, no script, no URL
 * outside the run folder (it is opened from CI artifacts, often offline).
 * SVG is written without xmlns, which HTML does not need.
 */

static const char *const css =
	":root{--pass:#1a7f37;--fail:#cf222e;--error:#bc4c00;--skip:#6e7781;--ink:#1f2328;"
	"--muted:#59636e;--line:#d8dee4;--bg:#f6f8fa;--accent:#0969da}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Noto Sans\","
	"\"DejaVu Sans\",Arial,sans-serif;color:var(--ink);background:#fff}\n"
	"main{max-width:1240px;margin:0 auto;padding:12px 20px 40px}\n"
	"header{border-bottom:1px solid var(--line);padding-bottom:8px}\n"
	".brand{font-size:12px;font-weight:700;letter-spacing:.12em;text-transform:uppercase;"
	"color:var(--muted)}\n"
	".title{display:flex;align-items:center;gap:14px;flex-wrap:wrap}\n"
	"h1{font-size:22px;margin:0}\n"
	"h2{font-size:17px;margin:24px 0 8px}\n"
	"h2.first{margin-top:10px}\n"
	"h2 small{font-weight:400;color:var(--muted);font-size:13px;margin-left:8px}\n"
	".exit{font-weight:700;border-radius:6px;padding:3px 10px;color:#fff;font-size:13px}\n"
	".exit.ok{background:var(--pass)}.exit.bad{background:var(--fail)}"
	".exit.infra{background:var(--error)}.exit.other{background:var(--skip)}\n"
	".meta{display:flex;flex-wrap:wrap;gap:2px 18px;margin:6px 0 8px;font-size:12px}\n"
	".meta div{display:flex;gap:5px}\n"
	".meta dt{color:var(--muted)}\n"
	".meta dd{margin:0;font-weight:600;overflow-wrap:anywhere}\n"
	".chips{display:flex;gap:8px;flex-wrap:wrap}\n"
	".chip{padding:3px 12px;border-radius:999px;font-weight:600;font-size:13px;"
	"background:var(--bg);color:var(--muted);border:1px solid var(--line)}\n"
	".chip.pass{background:#dafbe1;color:var(--pass);border-color:#aceebb}\n"
	".chip.fail{background:#ffebe9;color:var(--fail);border-color:#ffcecb}\n"
	".chip.error{background:#fff1e5;color:var(--error);border-color:#ffd8b5}\n"
	".note{margin:12px 0;padding:8px 12px;border-radius:6px;background:#fff8c5;"
	"border:1px solid #eed888}\n"
	"table{border-collapse:collapse;width:100%;font-size:13px}\n"
	"th,td{padding:6px 9px;border-bottom:1px solid var(--line);text-align:left;"
	"vertical-align:top}\n"
	"th{background:var(--bg);font-size:11px;text-transform:uppercase;letter-spacing:.05em;"
	"color:var(--muted);white-space:nowrap}\n"
	"tbody tr:hover{background:#f6f8fa}\n"
	"tr.fail td:first-child,tr.regressed td:first-child{box-shadow:inset 3px 0 var(--fail)}\n"
	"tr.error td:first-child{box-shadow:inset 3px 0 var(--error)}\n"
	"td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}\n"
	"td.board{font-weight:600;white-space:nowrap}\n"
	".st{display:inline-block;min-width:52px;text-align:center;border-radius:4px;"
	"padding:1px 6px;font-weight:700;font-size:12px;color:#fff}\n"
	".st.pass{background:var(--pass)}.st.fail,.st.regressed{background:var(--fail)}"
	".st.error{background:var(--error)}.st.skip{background:var(--skip)}\n"
	".metrics div{white-space:nowrap;font-variant-numeric:tabular-nums}\n"
	".metrics span{color:var(--muted)}\n"
	".msg{white-space:pre-line;overflow-wrap:anywhere;max-width:300px}\n"
	".cmp{max-width:220px}.cmp.bad,.repeat.bad{color:var(--fail);font-weight:600}\n"
	".repeat{color:var(--muted,#57606a);font-size:90%}\n"
	".logs{font-size:12px}.logs a{display:inline-block;margin-right:8px;color:var(--accent);white-space:nowrap}\n"
	"figure{margin:0 0 22px}\n"
	"figcaption{margin-bottom:2px}\n"
	"figcaption b{font-size:14px}\n"
	"figcaption span{color:var(--muted);margin-left:8px;font-size:12px}\n"
	"svg{display:block;width:100%;height:auto}\n"
	"svg text{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,\"Noto Sans\","
	"\"DejaVu Sans\",Arial,sans-serif;font-size:12px;fill:#1f2328}\n"
	"svg .axis text{fill:#59636e;font-size:11px}\n"
	"svg .grid{stroke:#e6eaef;stroke-width:1}\n"
	"svg .seg text{fill:#fff;font-size:11px;font-weight:600}\n"
	".legend{display:flex;gap:14px;flex-wrap:wrap;font-size:12px;color:var(--muted);"
	"margin:4px 0 0 160px}\n"
	".legend i{display:inline-block;width:11px;height:11px;border-radius:2px;"
	"margin-right:5px;vertical-align:-1px}\n"
	".grid2{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:4px 28px}\n"
	"ul.reg li{margin:3px 0}\n"
	"footer{margin-top:36px;color:var(--muted);font-size:12px;border-top:1px solid var(--line);"
	"padding-top:10px}\n";

/* the board x test grid and the change colours */
static const char *const css_grid =
	"table.grid{width:auto;font-size:11px;table-layout:fixed}\n"
	"table.grid th,table.grid td{padding:0 2px;border:0;height:17px;line-height:17px}\n"
	"table.grid th{background:none;text-transform:none;letter-spacing:0;font-size:11px;"
	"max-width:104px;overflow:hidden;text-overflow:ellipsis}\n"
	"table.grid th.b{max-width:140px;text-align:right;padding-right:6px;color:var(--ink);"
	"font-weight:600}\n"
	"table.grid td a{display:block;width:100px;text-align:center;border-radius:2px;"
	"color:#fff;text-decoration:none;font-weight:600}\n"
	"table.grid td a.pass{background:var(--pass)}table.grid td a.fail,"
	"table.grid td a.regressed{background:var(--fail)}table.grid td a.error{background:var(--error)}"
	"table.grid td a.skip{background:#d0d7de;color:var(--ink)}\n"
	".chg.better{color:var(--pass)}.chg.worse{color:var(--fail)}.chg.noise{color:var(--muted)}\n";

static const char *const phase_colors[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#bab0ac",
};
#define N_PHASE_COLORS (sizeof(phase_colors) / sizeof(phase_colors[0]))

/* SVG geometry, in viewBox units (the SVG scales to the page width) */
#define SVG_W 1120.0
#define SVG_LABEL_W 160.0
#define SVG_ROW_H 28.0
#define SVG_BAR_H 18.0
#define SVG_AXIS_H 24.0
#define SVG_TOP 6.0

static void esc(struct strbuf *sb, const char *s)
{
	report_escape(sb, s ? s : "", ESC_ATTR);
}

/* A relative href: path bytes percent-encoded, then escaped for the attribute. */
static void href(struct strbuf *sb, const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file);
	struct strbuf enc = STRBUF_INIT;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			strbuf_putc(&enc, (char)*p);
		else
			strbuf_printf(&enc, "%%%02X", *p);
	}
	/* never let a stored log_dir turn the link into a scheme or an absolute path */
	const char *s = strbuf_str(&enc);
	while (*s == '/')
		s++;
	esc(sb, s);
	strbuf_release(&enc);
	free(path);
}

static void fmt_time_utc(char *buf, size_t len, int64_t wall_us)
{
	if (!wall_us) {
		snprintf(buf, len, "-");
		return;
	}
	char *iso = result_time_iso(wall_us);
	snprintf(buf, len, "%.10s %.8s UTC", iso, iso + 11);
	free(iso);
}

static const char *status_class(const struct test_result *tr)
{
	if (tr->regressed && tr->status == STATUS_PASS)
		return "regressed";
	return result_status_name(tr->status);
}

/* A "nice" axis step: the smallest 1, 2 or 5 x 10^k giving at most `ticks` intervals. */
static double nice_step(double range, int ticks)
{
	if (!(range > 0))
		return 1;
	double rough = range / ticks, p = 1;
	while (p * 10 <= rough)
		p *= 10;
	while (p > rough)
		p /= 10;
	if (p >= rough)
		return p;
	if (2 * p >= rough)
		return 2 * p;
	if (5 * p >= rough)
		return 5 * p;
	return 10 * p;
}

struct axis {
	double lo, hi, step;
	double x0, w;          /* pixel origin and width */
};

static void axis_init(struct axis *ax, double lo, double hi, double x0, double w, int ticks)
{
	if (!(hi > lo))
		hi = lo + 1;
	ax->step = nice_step(hi - lo, ticks);
	ax->lo = ax->step * (double)(long long)(lo / ax->step);
	if (ax->lo > lo)
		ax->lo -= ax->step;
	double top = ax->lo;
	while (top < hi - 1e-12 * fabs(hi))
		top += ax->step;
	ax->hi = top;
	ax->x0 = x0;
	ax->w = w;
}

static double axis_x(const struct axis *ax, double v)
{
	if (!isfinite(v))
		v = ax->lo;
	return ax->x0 + (v - ax->lo) / (ax->hi - ax->lo) * ax->w;
}

static void axis_draw(struct strbuf *sb, const struct axis *ax, double y_top, double y_bottom,
		      const char *suffix)
{
	strbuf_puts(sb, "<g class=\"axis\">");
	for (double v = ax->lo; v <= ax->hi + ax->step * 1e-6; v += ax->step) {
		double x = axis_x(ax, v);
		char num[VALFMT_NUM_LEN];
		valfmt_number_buf(num, sizeof(num), fabs(v) < ax->step * 1e-9 ? 0 : v);
		strbuf_printf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			      x, y_top, x, y_bottom);
		strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s",
			      x, y_bottom + 15, num);
		report_escape(sb, suffix, ESC_TEXT);
		strbuf_puts(sb, "</text>");
	}
	strbuf_puts(sb, "</g>\n");
}

static void label_text(struct strbuf *sb, double x, double y, const char *anchor, const char *s,
		       size_t max_chars)
{
	strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" dominant-baseline=\"middle\">",
		      x, y, anchor);
	if (report_width(s) > max_chars) {
		struct strbuf cut = STRBUF_INIT;
		size_t w = 0;
		for (const char *p = s; *p; p++) {
			if (((unsigned char)*p & 0xC0) != 0x80 && ++w > max_chars - 1)
				break;
			strbuf_putc(&cut, *p);
		}
		strbuf_puts(&cut, "\u2026");
		report_escape(sb, strbuf_str(&cut), ESC_TEXT);
		strbuf_release(&cut);
	} else {
		report_escape(sb, s, ESC_TEXT);
	}
	strbuf_puts(sb, "</text>");
}

/* ---- header and table -------------------------------------------------- */

static void html_header(struct strbuf *sb, const struct run_result *run,
			const struct report_totals *t)
{
	const char *exit_class = run->exit_code == EXIT_OK ? "ok" :
				 run->exit_code == EXIT_TEST_FAILED ? "bad" :
				 run->exit_code == EXIT_INFRA ? "infra" : "other";
	const char *exit_what = run->exit_code == EXIT_OK ? "all passed" :
				run->exit_code == EXIT_TEST_FAILED ? "failures" :
				run->exit_code == EXIT_USAGE ? "usage error" :
				run->exit_code == EXIT_INFRA ? "infrastructure error" :
				run->exit_code == EXIT_NOTHING_RAN ? "nothing ran" :
				run->exit_code == EXIT_INTERRUPTED ? "interrupted" : "";
	strbuf_puts(sb, "<header>\n<div class=\"brand\">orch run report</div>\n<div class=\"title\"><h1>");
	esc(sb, run->scenario ? run->scenario : "(unnamed scenario)");
	strbuf_printf(sb, "</h1><span class=\"exit %s\">exit %d", exit_class, run->exit_code);
	if (*exit_what)
		strbuf_printf(sb, " \u00b7 %s", exit_what);
	strbuf_puts(sb, "</span></div>\n<dl class=\"meta\">\n");

	char start[64], dur[32];
	fmt_time_utc(start, sizeof(start), run->start_wall_us);
	if (run->start_wall_us && run->end_wall_us >= run->start_wall_us)
		report_fmt_duration(dur, sizeof(dur),
				    (double)(run->end_wall_us - run->start_wall_us) / 1e6);
	else
		snprintf(dur, sizeof(dur), "-");
	const char *keys[] = { "label", "run id", "host", "start", "duration", "orch" };
	const char *vals[] = { run->label, run->run_id, run->host, start, dur, run->orch_version };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (i == 0 && !run->label)
			continue;
		strbuf_printf(sb, "<div><dt>%s</dt><dd>", keys[i]);
		esc(sb, vals[i] && *vals[i] ? vals[i] : "-");
		strbuf_puts(sb, "</dd></div>\n");
	}
	if (run->baseline) {
		strbuf_puts(sb, "<div><dt>baseline</dt><dd>");
		esc(sb, run->baseline);
		strbuf_puts(sb, "</dd></div>\n");
	}
	if (run->rerun_of) {
		/* the rerun folder sits beside the one it reran: RUNS/SCENARIO/ID */
		const char *base = strrchr(run->rerun_of, '/');
		base = base ? base + 1 : run->rerun_of;
		strbuf_puts(sb, "<div><dt>rerun of</dt><dd><a href=\"../");
		report_escape(sb, base, ESC_ATTR);
		strbuf_puts(sb, "/report.html\">");
		esc(sb, run->rerun_of);
		strbuf_puts(sb, "</a> (only ");
		esc(sb, run->rerun_only ? run->rerun_only : "both");
		strbuf_puts(sb, ")</dd></div>\n");
	}
	strbuf_puts(sb, "</dl>\n<div class=\"chips\">");
	strbuf_printf(sb, "<span class=\"chip\">%zu test%s</span>", t->tests, t->tests == 1 ? "" : "s");
	strbuf_printf(sb, "<span class=\"chip%s\">%zu passed</span>", t->passed ? " pass" : "", t->passed);
	strbuf_printf(sb, "<span class=\"chip%s\">%zu failed</span>", t->failed ? " fail" : "", t->failed);
	strbuf_printf(sb, "<span class=\"chip%s\">%zu error%s</span>", t->errors ? " error" : "",
		      t->errors, t->errors == 1 ? "" : "s");
	if (t->flaky)
		strbuf_printf(sb, "<span class=\"chip error\">%zu flaky</span>", t->flaky);
	strbuf_printf(sb, "<span class=\"chip\">%zu skipped</span>", t->skipped);
	if (t->regressed)
		strbuf_printf(sb, "<span class=\"chip fail\">%zu regressed</span>", t->regressed);
	strbuf_puts(sb, "</div>\n");
	if (run->interrupted)
		strbuf_puts(sb, "<p class=\"note\">The run was interrupted: these results are partial.</p>\n");
	for (size_t i = 0; i < run->n_offline; i++) {
		strbuf_puts(sb, "<p class=\"note\">Board offline: ");
		report_escape(sb, run->offline[i].board, ESC_TEXT);
		strbuf_puts(sb, ": ");
		report_escape(sb, run->offline[i].reason ? run->offline[i].reason : "?", ESC_TEXT);
		strbuf_puts(sb, "</p>\n");
	}
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		for (size_t k = 0; k < tr->n_leftovers; k++) {
			strbuf_puts(sb, "<p class=\"note\">Warning: ");
			report_escape(sb, tr->board, ESC_TEXT);
			strbuf_putc(sb, ' ');
			report_escape(sb, tr->test, ESC_TEXT);
			strbuf_puts(sb, " left processes running after it ended; orch stopped them: ");
			report_escape(sb, tr->leftovers[k], ESC_TEXT);
			strbuf_puts(sb, "</p>\n");
		}
		for (size_t k = 0; k < tr->n_missing_metrics; k++) {
			const struct missing_metric *mm = &tr->missing_metrics[k];
			strbuf_puts(sb, "<p class=\"note\">Missing metric: ");
			report_escape(sb, tr->board, ESC_TEXT);
			strbuf_putc(sb, ' ');
			report_escape(sb, tr->test, ESC_TEXT);
			strbuf_puts(sb, ": ");
			report_escape(sb, mm->name, ESC_TEXT);
			strbuf_puts(sb, " (");
			report_escape(sb, mm->reason ? mm->reason : "absent", ESC_TEXT);
			strbuf_puts(sb, mm->optional ? ", optional)</p>\n" : ")</p>\n");
		}
	}
	strbuf_puts(sb, "</header>\n");
}

/* ---- board x test grid -------------------------------------------------- */

/* Names in order of first appearance; *n set. Borrowed from the results. */
static const char **distinct(const struct run_result *run, bool boards, size_t *n)
{
	const char **names = NULL;
	*n = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		const char *name = boards ? run->results[i].board : run->results[i].test;
		name = name ? name : "";
		bool seen = false;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = strcmp(names[k], name) == 0;
		if (!seen) {
			names = xrealloc(names, (*n + 1) * sizeof(*names));
			names[(*n)++] = name;
		}
	}
	return names;
}

/* How bad a result is, for ordering: failures first, then errors. */
static int badness(const struct test_result *tr)
{
	if (tr->status == STATUS_FAIL || tr->regressed)
		return 2;
	return tr->status == STATUS_ERROR;
}

static size_t name_index(const char *const *names, size_t n, const char *name)
{
	size_t i = 0;
	while (i < n && strcmp(names[i], name ? name : ""))
		i++;
	return i;
}

/* The first result of each board x test, cells[board * nt + test]: one pass
 * over the results, not one per cell (caller frees). */
static const struct test_result **grid_cells(const struct run_result *run, const char **boards,
					     size_t nb, const char **tests, size_t nt)
{
	const struct test_result **cells = xcalloc(nb * nt + 1, sizeof(*cells));
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		size_t b = name_index(boards, nb, tr->board), t = name_index(tests, nt, tr->test);
		if (b < nb && t < nt && !cells[b * nt + t])
			cells[b * nt + t] = tr;
	}
	return cells;
}

struct ranked {
	const char *name;
	int bad;
	size_t order;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->bad != y->bad)
		return y->bad - x->bad;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Rows (boards) with failures first, then errors, else in run order; each
 * cell one test's status, linked to its row in the details table. */
static void html_grid(struct strbuf *sb, const struct run_result *run)
{
	size_t nb, nt;
	const char **boards = distinct(run, true, &nb);
	const char **tests = distinct(run, false, &nt);
	struct ranked *rows = xcalloc(nb + 1, sizeof(*rows));
	for (size_t b = 0; b < nb; b++)
		rows[b] = (struct ranked){ boards[b], 0, b };
	for (size_t i = 0; i < run->n_results; i++) {
		size_t b = name_index(boards, nb, run->results[i].board);
		if (b < nb && badness(&run->results[i]) > rows[b].bad)
			rows[b].bad = badness(&run->results[i]);
	}
	const struct test_result **cells = grid_cells(run, boards, nb, tests, nt);
	qsort(rows, nb, sizeof(*rows), cmp_ranked);
	if (nb) {
		strbuf_puts(sb, "<h2 class=\"first\" id=\"grid\">Boards \u00d7 tests<small>failures "
			    "first; a cell links to its details</small></h2>\n<table class=\"grid\">\n"
			    "<thead><tr><th class=\"b\"></th>");
		for (size_t t = 0; t < nt; t++) {
			strbuf_puts(sb, "<th title=\"");
			report_escape(sb, tests[t], ESC_ATTR);
			strbuf_puts(sb, "\">");
			esc(sb, tests[t]);
			strbuf_puts(sb, "</th>");
		}
		strbuf_puts(sb, "</tr></thead>\n<tbody>\n");
	}
	for (size_t b = 0; b < nb; b++) {
		strbuf_puts(sb, "<tr><th class=\"b\">");
		esc(sb, rows[b].name);
		strbuf_puts(sb, "</th>");
		for (size_t t = 0; t < nt; t++) {
			const struct test_result *tr = cells[rows[b].order * nt + t];
			if (!tr) {
				strbuf_puts(sb, "<td></td>");
				continue;
			}
			const char *cls = status_class(tr);
			strbuf_printf(sb, "<td><a class=\"%s\" href=\"#r%zu\" title=\"", cls,
				      (size_t)(tr - run->results));
			report_escape(sb, tr->board, ESC_ATTR);
			strbuf_puts(sb, " / ");
			report_escape(sb, tr->test, ESC_ATTR);
			strbuf_printf(sb, ": %s", cls);
			if (tr->message) {
				strbuf_puts(sb, " \u2014 ");
				report_escape(sb, tr->message, ESC_ATTR);
			}
			strbuf_printf(sb, "\">%s</a></td>", cls);
		}
		strbuf_puts(sb, "</tr>\n");
	}
	if (nb)
		strbuf_puts(sb, "</tbody>\n</table>\n");
	free(cells);
	free(rows);
	free(boards);
	free(tests);
}

/* ---- details table -------------------------------------------------- */

/* The logs people open first, then the rest by name, result.json last. */
static int log_rank(const char *name)
{
	static const char *const order[] = { "stdout.log", "stderr.log", "boot.log" };
	for (int i = 0; i < 3; i++)
		if (strcmp(name, order[i]) == 0)
			return i;
	return strcmp(name, "result.json") == 0 ? 4 : 3;
}

static int cmp_log(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int rx = log_rank(x), ry = log_rank(y);
	return rx != ry ? rx - ry : strcmp(x, y);
}

/* Files in RUN_DIR/DIR (sorted), or the usual names when the folder cannot be read. */
static char **log_files(const struct test_result *tr, const char *run_dir, const char *dir,
			size_t *n)
{
	char **names = NULL;
	*n = 0;
	if (run_dir) {
		char *path = fs_path_join(run_dir, dir);
		DIR *d = opendir(path);
		free(path);
		if (d) {
			struct dirent *de;
			while ((de = readdir(d))) {
				if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp."))
					continue;
				names = xrealloc(names, (*n + 1) * sizeof(*names));
				names[(*n)++] = xstrdup(de->d_name);
			}
			closedir(d);
			/* fetched files in folders of their own (fetch: dest: a/b) */
			for (size_t a = 0; a < tr->n_artifacts; a++) {
				if (!strchr(tr->artifacts[a], '/'))
					continue;
				names = xrealloc(names, (*n + 1) * sizeof(*names));
				names[(*n)++] = xstrdup(tr->artifacts[a]);
			}
			qsort(names, *n, sizeof(*names), cmp_log);
			return names;
		}
	}
	const char *usual[] = { "stdout.log", "stderr.log", "boot.log", "result.json" };
	for (size_t i = 0; i < 4; i++) {
		if (i == 2 && !tr->n_phases && !tr->last_line)
			continue;
		if (i < 2 && tr->status == STATUS_SKIP)
			continue;
		names = xrealloc(names, (*n + 1) * sizeof(*names));
		names[(*n)++] = xstrdup(usual[i]);
	}
	return names;
}

/* Where a long section may hand what it has written so far (report.html
 * written to a file a piece at a time); flush NULL keeps it all in sb. */
struct html_sink {
	void (*flush)(void *ctx, struct strbuf *sb);
	void *ctx;
};

/* Hands sb over once it holds a good piece (or whatever, with all). */
static void html_flush(const struct html_sink *k, struct strbuf *sb, bool all)
{
	if (k->flush && (all || sb->len >= 256 * 1024))
		k->flush(k->ctx, sb);
}

static void html_table(struct strbuf *sb, const struct run_result *run, const char *run_dir,
		       const struct html_sink *sink)
{
	bool any_cmp = false;
	for (size_t i = 0; i < run->n_results; i++)
		any_cmp |= run->results[i].comparison || run->results[i].regressed;

	strbuf_puts(sb, "<h2 id=\"results\">Details</h2>\n<table class=\"results\">\n<thead><tr>"
		    "<th>Board</th><th>Test</th><th>Status</th><th>Duration</th><th>Metrics</th>");
	if (any_cmp)
		strbuf_puts(sb, "<th>vs baseline</th>");
	strbuf_puts(sb, "<th>Message</th><th>Logs</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < run->n_results; i++) {
		html_flush(sink, sb, false);
		const struct test_result *tr = &run->results[i];
		const char *cls = status_class(tr);
		char dur[32];
		report_fmt_duration(dur, sizeof(dur), tr->duration_s);
		strbuf_printf(sb, "<tr class=\"%s\" id=\"r%zu\"><td class=\"board\">", cls, i);
		esc(sb, tr->board);
		strbuf_puts(sb, "</td><td>");
		esc(sb, tr->test);
		strbuf_printf(sb, "</td><td><span class=\"st %s\">%s</span></td><td class=\"num\">%s</td>",
			      cls, cls, tr->status == STATUS_SKIP && !tr->duration_s ? "-" : dur);
		strbuf_puts(sb, "<td class=\"metrics\">");
		for (size_t m = 0; m < tr->n_metrics; m++) {
			const struct metric_result *mr = &tr->metrics[m];
			struct strbuf v = STRBUF_INIT;
			report_fmt_metric(&v, mr);
			strbuf_puts(sb, "<div><span>");
			esc(sb, mr->name);
			strbuf_puts(sb, "</span> ");
			esc(sb, strbuf_str(&v));
			if (mr->change != METRIC_CHANGE_NONE) {
				strbuf_reset(&v);
				range_metric_change(&v, mr, NAN);
				strbuf_printf(sb, " <span class=\"chg %s\">", range_change_class(mr->change));
				esc(sb, strbuf_str(&v));
				strbuf_puts(sb, "</span>");
				strbuf_reset(&v);
				range_metric_evidence(&v, mr);
				if (v.len) {
					strbuf_puts(sb, "<small>");
					esc(sb, strbuf_str(&v));
					strbuf_puts(sb, "</small>");
				}
			}
			strbuf_puts(sb, "</div>");
			strbuf_release(&v);
		}
		for (size_t p = 0; p < tr->n_phases; p++) {
			const struct phase_result *ph = &tr->phases[p];
			char at[32];
			report_fmt_duration(at, sizeof(at), ph->offset_s);
			strbuf_puts(sb, "<div><span>");
			esc(sb, ph->name);
			strbuf_puts(sb, "</span> ");
			strbuf_puts(sb, ph->reached ? at : "not reached");
			if (ph->over_budget)
				strbuf_puts(sb, " (over budget)");
			strbuf_puts(sb, "</div>");
		}
		for (size_t k = 0; k < tr->n_pushes; k++) {
			char *push = report_push_text(&tr->pushes[k]);
			strbuf_puts(sb, "<div class=\"repeat\">");
			esc(sb, push);
			strbuf_puts(sb, "</div>");
			free(push);
		}
		char *rep = repeat_outcome_describe(tr);
		if (rep) {
			strbuf_printf(sb, "<div class=\"repeat%s\">", tr->repeat.converged ? "" : " bad");
			esc(sb, rep);
			strbuf_puts(sb, "</div>");
			free(rep);
		}
		strbuf_puts(sb, "</td>");
		if (any_cmp) {
			strbuf_printf(sb, "<td class=\"cmp%s\">", tr->regressed ? " bad" : "");
			esc(sb, tr->comparison ? tr->comparison : tr->regressed ? "regressed" : "");
			strbuf_puts(sb, "</td>");
		}
		strbuf_puts(sb, "<td class=\"msg\">");
		report_escape(sb, tr->message, ESC_TEXT);
		char *tries = report_attempts_text(tr);
		if (tries) {
			strbuf_puts(sb, tr->message ? "\n" : "");
			report_escape(sb, tries, ESC_TEXT);
			free(tries);
		}
		if (tr->last_line && tr->status != STATUS_PASS) {
			strbuf_puts(sb, tr->message ? "\nlast line: " : "last line: ");
			report_escape(sb, tr->last_line, ESC_TEXT);
		}
		strbuf_puts(sb, "</td><td class=\"logs\">");
		char *dir = report_log_dir(tr);
		size_t n;
		char **files = log_files(tr, run_dir, dir, &n);
		for (size_t f = 0; f < n; f++) {
			strbuf_puts(sb, "<a href=\"");
			href(sb, dir, files[f]);
			strbuf_puts(sb, "\">");
			esc(sb, files[f]);
			strbuf_puts(sb, "</a>");
			free(files[f]);
		}
		free(files);
		free(dir);
		strbuf_puts(sb, "</td></tr>\n");
	}
	strbuf_puts(sb, "</tbody>\n</table>\n");
}

/* ---- boot timeline ------------------------------------------------------ */

static size_t phase_color_index(char ***names, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return i;
	*names = xrealloc(*names, (*n + 1) * sizeof(**names));
	(*names)[*n] = xstrdup(name);
	return (*n)++;
}

static void html_timeline(struct strbuf *sb, const struct run_result *run)
{
	size_t rows = 0;
	double t_max = 0;
	bool several_tests = false;
	const char *first_test = NULL;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (!tr->n_phases)
			continue;
		rows++;
		if (first_test && strcmp(first_test, tr->test) != 0)
			several_tests = true;
		first_test = first_test ? first_test : tr->test;
		for (size_t p = 0; p < tr->n_phases; p++)
			if (tr->phases[p].reached && tr->phases[p].offset_s > t_max)
				t_max = tr->phases[p].offset_s;
	}
	if (!rows)
		return;

	struct axis ax;
	double chart_w = SVG_W - SVG_LABEL_W - 190;
	axis_init(&ax, 0, t_max, SVG_LABEL_W, chart_w, 8);
	double h = SVG_TOP + (double)rows * SVG_ROW_H + SVG_AXIS_H;
	char **names = NULL;
	size_t n_names = 0;

	strbuf_puts(sb, "<h2 id=\"boot\">Boot timeline<small>phases from the serial console, "
		    "seconds from power-on</small></h2>\n<figure>\n");
	strbuf_printf(sb, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"boot timeline\">\n",
		      SVG_W, h);
	axis_draw(sb, &ax, SVG_TOP, SVG_TOP + (double)rows * SVG_ROW_H, "s");

	size_t row = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (!tr->n_phases)
			continue;
		double y = SVG_TOP + (double)row * SVG_ROW_H + (SVG_ROW_H - SVG_BAR_H) / 2;
		double cy = y + SVG_BAR_H / 2;
		char *label = several_tests ? xasprintf("%s / %s", tr->board, tr->test) : xstrdup(tr->board);
		label_text(sb, SVG_LABEL_W - 10, cy, "end", label, 22);
		free(label);

		double end_x = SVG_LABEL_W;
		const char *missing = NULL;
		for (size_t p = 0; p < tr->n_phases; p++) {
			const struct phase_result *ph = &tr->phases[p];
			size_t ci = phase_color_index(&names, &n_names, ph->name);
			if (!ph->reached) {
				missing = missing ? missing : ph->name;
				continue;
			}
			double start = ph->offset_s - ph->duration_s;
			double x = axis_x(&ax, start < 0 ? 0 : start);
			double x2 = axis_x(&ax, ph->offset_s);
			double w = x2 - x < 1 ? 1 : x2 - x;
			char d[32];
			report_fmt_duration(d, sizeof(d), ph->duration_s);
			strbuf_printf(sb, "<g class=\"seg\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				      "height=\"%.1f\" rx=\"2\" fill=\"%s\"%s><title>",
				      x, y, w, SVG_BAR_H, phase_colors[ci % N_PHASE_COLORS],
				      ph->over_budget ? " stroke=\"#cf222e\" stroke-width=\"2.5\"" : "");
			strbuf_puts(sb, "");
			report_escape(sb, ph->name, ESC_TEXT);
			strbuf_printf(sb, ": %s, reached at %.2fs", d, ph->offset_s);
			if (ph->max_s > 0)
				strbuf_printf(sb, " (budget %.1fs%s)", ph->max_s,
					      ph->over_budget ? ", over" : "");
			if (ph->line) {
				strbuf_puts(sb, "\n");
				report_escape(sb, ph->line, ESC_TEXT);
			}
			strbuf_puts(sb, "</title></rect>");
			/* the name inside the segment when it fits (about 6.5 units a character) */
			char *txt = xasprintf("%s %s", ph->name, d);
			if ((double)report_width(txt) * 6.5 + 8 < w)
				label_text(sb, x + w / 2, cy + 0.5, "middle", txt, 40);
			else if ((double)report_width(d) * 6.5 + 6 < w)
				label_text(sb, x + w / 2, cy + 0.5, "middle", d, 12);
			free(txt);
			strbuf_puts(sb, "</g>");
			if (x2 > end_x)
				end_x = x2;
		}
		char total[32];
		double last = 0;
		for (size_t p = 0; p < tr->n_phases; p++)
			if (tr->phases[p].reached && tr->phases[p].offset_s > last)
				last = tr->phases[p].offset_s;
		report_fmt_duration(total, sizeof(total), last);
		struct strbuf note = STRBUF_INIT;
		strbuf_puts(&note, total);
		if (missing)
			strbuf_printf(&note, " \u2014 %s not reached", missing);
		strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" dominant-baseline=\"middle\" "
			      "font-weight=\"600\"%s>", end_x + 6, cy,
			      missing || tr->status == STATUS_FAIL ? " style=\"fill:#cf222e\"" : "");
		report_escape(sb, strbuf_str(&note), ESC_TEXT);
		strbuf_puts(sb, "</text>\n");
		strbuf_release(&note);
		row++;
	}
	strbuf_puts(sb, "</svg>\n<div class=\"legend\">");
	for (size_t i = 0; i < n_names; i++) {
		strbuf_printf(sb, "<span><i style=\"background:%s\"></i>",
			      phase_colors[i % N_PHASE_COLORS]);
		esc(sb, names[i]);
		strbuf_puts(sb, "</span>");
		free(names[i]);
	}
	free(names);
	strbuf_puts(sb, "<span><i style=\"background:#fff;border:2px solid #cf222e\"></i>over budget</span>"
		    "</div>\n</figure>\n");
}

/* ---- metric charts ------------------------------------------------------ */

/* A bar's colour says how its metric changed against the baseline (better,
 * worse, within noise), never the test's status; neutral without one. */
static const char *bar_fill(const struct test_result *tr, const struct metric_result *mr)
{
	(void)tr;
	switch (mr->change) {
	case METRIC_CHANGE_BETTER: return "#1a7f37";
	case METRIC_CHANGE_REGRESSION: return "#cf222e";
	case METRIC_CHANGE_WORSE: return "#e8868b";
	case METRIC_CHANGE_SAME:
	case METRIC_CHANGE_NOISE: return "#afb8c1";
	case METRIC_CHANGE_NOT_JUDGED: return "#d4a72c";
	case METRIC_CHANGE_NONE: break;
	}
	return "#4e79a7";
}

/* One bar of a metric chart: a board's result of the metric. */
struct chart_bar {
	const struct test_result *tr;
	const struct metric_result *mr;
};

/* The results of metric in test, in run order (caller frees); *n their
 * count, [*lo, *hi] their range with 0 in it (min and max where sampled). */
static struct chart_bar *chart_bars(const struct run_result *run, const char *test,
				    const char *metric, size_t *n, double *lo, double *hi)
{
	struct chart_bar *bars = NULL;
	*n = 0;
	*lo = *hi = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (strcmp(tr->test, test) != 0)
			continue;
		for (size_t m = 0; m < tr->n_metrics; m++) {
			const struct metric_result *mr = &tr->metrics[m];
			if (strcmp(mr->name, metric) != 0)
				continue;
			bars = xrealloc(bars, (*n + 1) * sizeof(*bars));
			bars[(*n)++] = (struct chart_bar){ tr, mr };
			double a = mr->n_samples ? mr->min : mr->median;
			double b = mr->n_samples ? mr->max : mr->median;
			if (isfinite(a) && a < *lo)
				*lo = a;
			if (isfinite(b) && b > *hi)
				*hi = b;
		}
	}
	return bars;
}

/* The chart's caption: metric, unit, which way is better, test. */
static void chart_caption(struct strbuf *sb, const char *test, const char *metric,
			  const struct metric_result *first)
{
	strbuf_puts(sb, "<figure>\n<figcaption><b>");
	esc(sb, metric);
	strbuf_puts(sb, "</b><span>");
	if (first->unit && *first->unit) {
		esc(sb, first->unit);
		strbuf_puts(sb, " \u00b7 ");
	}
	/* the direction compare and --baseline judge by (docs/compare.md), sizes
	 * included: a report must not call "for information" what fails a run */
	strbuf_printf(sb, "%s is better \u00b7 test ", first->higher_is_better ? "higher" : "lower");
	esc(sb, test);
	strbuf_puts(sb, "</span></figcaption>\n");
}

#define CHART_W 540.0
#define CHART_LABEL_W 110.0
#define CHART_VALUE_W 130.0
#define CHART_ROW_H 24.0
#define CHART_BAR_H 14.0

/* One bar at row: its board, the median (its own scale in the label and
 * the tooltip), and the min-max whisker where sampled. */
static void chart_bar_draw(struct strbuf *sb, const struct axis *ax,
			   const struct valfmt_scale *sc, size_t row, const struct chart_bar *bar)
{
	const struct test_result *tr = bar->tr;
	const struct metric_result *mr = bar->mr;
	double y = SVG_TOP + (double)row * CHART_ROW_H + (CHART_ROW_H - CHART_BAR_H) / 2;
	double cy = y + CHART_BAR_H / 2;
	label_text(sb, CHART_LABEL_W - 8, cy, "end", tr->board, 16);
	double x0 = axis_x(ax, 0), x1 = axis_x(ax, mr->median * sc->factor);
	double bx = x1 < x0 ? x1 : x0, bw = fabs(x1 - x0);
	/* the axis has the chart's scale, each label its own (25.7 MiB/s
	 * beside 2.4 GiB/s, not 0.0 GiB/s) */
	struct strbuf v = STRBUF_INIT;
	valfmt_value(&v, mr->median, mr->unit);
	strbuf_printf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		      "rx=\"2\" fill=\"%s\" fill-opacity=\"0.85\"><title>", bx, y,
		      bw < 1 ? 1 : bw, CHART_BAR_H, bar_fill(tr, mr));
	esc(sb, tr->board);
	strbuf_puts(sb, ": ");
	esc(sb, strbuf_str(&v));
	if (mr->n_samples > 1) {
		struct strbuf mm = STRBUF_INIT;
		strbuf_puts(&mm, " (min ");
		valfmt_value(&mm, mr->min, mr->unit);
		strbuf_puts(&mm, ", max ");
		valfmt_value(&mm, mr->max, mr->unit);
		strbuf_printf(&mm, ", %zu samples)", mr->n_samples);
		esc(sb, strbuf_str(&mm));
		strbuf_release(&mm);
	}
	strbuf_puts(sb, "</title></rect>");
	double value_x = x1;
	if (mr->n_samples > 1) {
		double wx0 = axis_x(ax, mr->min * sc->factor);
		double wx1 = axis_x(ax, mr->max * sc->factor);
		strbuf_printf(sb, "<g stroke=\"#1f2328\" stroke-width=\"1.3\">"
			      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/></g>",
			      wx0, cy, wx1, cy, wx0, cy - 5, wx0, cy + 5, wx1, cy - 5, wx1, cy + 5);
		if (wx1 > value_x)
			value_x = wx1;
	}
	label_text(sb, (value_x > x0 ? value_x : x0) + 7, cy, "start", strbuf_str(&v), 24);
	strbuf_puts(sb, "\n");
	strbuf_release(&v);
}

static void html_metric_chart(struct strbuf *sb, const struct run_result *run,
			      const char *test, const char *metric)
{
	size_t rows;
	double lo, hi;
	struct chart_bar *bars = chart_bars(run, test, metric, &rows, &lo, &hi);
	if (!rows)
		return;
	const struct metric_result *first = bars[0].mr;
	chart_caption(sb, test, metric, first);
	struct valfmt_scale sc;
	valfmt_scale_for(fabs(hi) > fabs(lo) ? hi : lo, first->unit, &sc);
	struct axis ax;
	axis_init(&ax, lo * sc.factor, hi * sc.factor, CHART_LABEL_W,
		  CHART_W - CHART_LABEL_W - CHART_VALUE_W, 4);
	double h = SVG_TOP + (double)rows * CHART_ROW_H + SVG_AXIS_H;
	strbuf_printf(sb, "<svg viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n", CHART_W, h);
	axis_draw(sb, &ax, SVG_TOP, SVG_TOP + (double)rows * CHART_ROW_H, "");
	for (size_t row = 0; row < rows; row++)
		chart_bar_draw(sb, &ax, &sc, row, &bars[row]);
	strbuf_puts(sb, "</svg>\n</figure>\n");
	free(bars);
}

/* The charts of one kind of metric: the boards' figures (ORCH_OWN false) or
 * orch's own measurements of the link (ssh.push ...). */
static void html_metric_group(struct strbuf *sb, const struct run_result *run, bool orch_own)
{
	/* (test, metric) pairs in order of first appearance */
	const char **tests = NULL, **metrics = NULL;
	size_t n = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		for (size_t m = 0; m < tr->n_metrics; m++) {
			if (metric_is_orch_own(tr->metrics[m].name) != orch_own)
				continue;
			bool seen = false;
			for (size_t k = 0; k < n && !seen; k++)
				seen = strcmp(tests[k], tr->test) == 0 &&
				       strcmp(metrics[k], tr->metrics[m].name) == 0;
			if (seen)
				continue;
			tests = xrealloc(tests, (n + 1) * sizeof(*tests));
			metrics = xrealloc(metrics, (n + 1) * sizeof(*metrics));
			tests[n] = tr->test;
			metrics[n] = tr->metrics[m].name;
			n++;
		}
	}
	if (n) {
		if (orch_own)
			strbuf_puts(sb, "<h2 id=\"orch-figures\">orch's own figures<small>how the "
				    "controller reached the boards, not the boards' performance"
				    "</small></h2>\n<div class=\"grid2\">\n");
		else
			strbuf_puts(sb, "<h2 id=\"metrics\">Metrics<small>median per board, whiskers "
				    "from min to max; against the baseline green is better, red worse, "
				    "grey within noise</small></h2>\n<div class=\"grid2\">\n");
		for (size_t k = 0; k < n; k++)
			html_metric_chart(sb, run, tests[k], metrics[k]);
		strbuf_puts(sb, "</div>\n");
	}
	free(tests);
	free(metrics);
}

static void html_metrics(struct strbuf *sb, const struct run_result *run)
{
	html_metric_group(sb, run, false);
	html_metric_group(sb, run, true);
}

/* The boards' facts: one row per board, one column per fact any board has. */
static void html_boards(struct strbuf *sb, const struct run_result *run)
{
	const char **names = NULL;
	size_t n = 0;
	for (size_t b = 0; b < run->n_facts; b++) {
		for (size_t k = 0; k < run->facts[b].n; k++) {
			const char *name = run->facts[b].items[k].name;
			bool seen = false;
			for (size_t j = 0; j < n && !seen; j++)
				seen = strcmp(names[j], name) == 0;
			if (!seen) {
				names = xrealloc(names, (n + 1) * sizeof(*names));
				names[n++] = name;
			}
		}
	}
	if (n) {
		strbuf_puts(sb, "<h2 id=\"boards\">Boards</h2>\n<table class=\"results boards\">\n"
			    "<thead><tr><th>Board</th>");
		for (size_t j = 0; j < n; j++) {
			strbuf_puts(sb, "<th>");
			esc(sb, names[j]);
			strbuf_puts(sb, "</th>");
		}
		strbuf_puts(sb, "</tr></thead>\n<tbody>\n");
		for (size_t b = 0; b < run->n_facts; b++) {
			strbuf_puts(sb, "<tr><td class=\"board\">");
			esc(sb, run->facts[b].board);
			strbuf_puts(sb, "</td>");
			for (size_t j = 0; j < n; j++) {
				const char *v = board_facts_get(&run->facts[b], names[j]);
				strbuf_puts(sb, "<td>");
				esc(sb, v ? v : "-");
				strbuf_puts(sb, "</td>");
			}
			strbuf_puts(sb, "</tr>\n");
		}
		strbuf_puts(sb, "</tbody>\n</table>\n");
	}
	free(names);
}

/* The unit of a trend's metric, from this run's result of it ("" when the
 * run has none). */
static const char *trend_unit(const struct run_result *run, const struct metric_trend *t)
{
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (!tr->board || !tr->test || strcmp(tr->board, t->board) != 0 ||
		    strcmp(tr->test, t->test) != 0)
			continue;
		for (size_t m = 0; m < tr->n_metrics; m++)
			if (tr->metrics[m].name && strcmp(tr->metrics[m].name, t->metric) == 0)
				return tr->metrics[m].unit ? tr->metrics[m].unit : "";
	}
	return "";
}

/* The x of each point of a trend of n points, as text: the same for every
 * trend of n points (a night's 2560 trends have 10 each). */
struct trend_xs {
	size_t n;
	char (*x)[24];
};

static const char *trend_x(struct trend_xs *xs, size_t n, size_t k, double w, double pad)
{
	if (xs->n != n) {
		free(xs->x);
		xs->x = xmalloc(n * sizeof(*xs->x));
		xs->n = n;
		for (size_t i = 0; i < n; i++)
			snprintf(xs->x[i], sizeof(xs->x[i]), "%.1f",
				 n > 1 ? pad + (w - 2 * pad) * (double)i / (double)(n - 1) : w / 2);
	}
	return xs->x[k];
}

/* One small trend line: the last runs of a board x test x metric from the
 * history, oldest left, the current run a filled dot. Each number is
 * formatted once (x from xs, y per point) and put together with plain
 * appends. */
static void html_trend(struct strbuf *sb, const struct metric_trend *t, const char *unit,
		       struct trend_xs *xs)
{
	const double w = 160, h = 36, pad = 4;
	double lo = t->points[0].value, hi = lo;
	for (size_t k = 1; k < t->n; k++) {
		lo = t->points[k].value < lo ? t->points[k].value : lo;
		hi = t->points[k].value > hi ? t->points[k].value : hi;
	}
	double span = hi > lo ? hi - lo : 1;
	char (*y)[24] = xmalloc(t->n * sizeof(*y));
	for (size_t k = 0; k < t->n; k++)
		snprintf(y[k], sizeof(y[k]), "%.1f", h - pad - (h - 2 * pad) * (t->points[k].value - lo) / span);
	strbuf_puts(sb, "<div class=\"trendbox\"><div class=\"trendname\">");
	esc(sb, t->board);
	strbuf_puts(sb, " \u00b7 ");
	esc(sb, t->test);
	strbuf_puts(sb, " \u00b7 ");
	esc(sb, t->metric);
	strbuf_printf(sb, "</div><svg class=\"trend\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">"
		      "<polyline fill=\"none\" stroke=\"#3b6ea5\" stroke-width=\"1.5\" points=\"", w, h, w, h);
	for (size_t k = 0; k < t->n; k++) {
		if (k)
			strbuf_putc(sb, ' ');
		strbuf_puts(sb, trend_x(xs, t->n, k, w, pad));
		strbuf_putc(sb, ',');
		strbuf_puts(sb, y[k]);
	}
	strbuf_puts(sb, "\"/>");
	for (size_t k = 0; k < t->n; k++) {
		const struct trend_point *p = &t->points[k];
		struct strbuf value = STRBUF_INIT;
		valfmt_value(&value, p->value, unit);
		strbuf_puts(sb, "<circle cx=\"");
		strbuf_puts(sb, trend_x(xs, t->n, k, w, pad));
		strbuf_puts(sb, "\" cy=\"");
		strbuf_puts(sb, y[k]);
		strbuf_puts(sb, p->current ? "\" r=\"3.5\" fill=\"#c0392b\" class=\"current\"><title>"
					   : "\" r=\"2\" fill=\"#3b6ea5\"><title>");
		esc(sb, p->label && *p->label ? p->label : p->run_id);
		strbuf_puts(sb, p->current ? " (this run): " : " : ");
		esc(sb, strbuf_str(&value));
		strbuf_release(&value);
		strbuf_puts(sb, "</title></circle>");
	}
	strbuf_puts(sb, "</svg></div>\n");
	free(y);
}

static void html_trends(struct strbuf *sb, const struct run_result *run, const struct html_sink *k)
{
	if (!run->n_trends)
		return;
	struct trend_xs xs = { 0, NULL };
	strbuf_puts(sb, "<h2 id=\"trends\">Trends<small>the last runs from the history, this run in "
		    "red</small></h2>\n<div class=\"trends\" style=\"display:flex;flex-wrap:wrap;gap:12px\">\n");
	for (size_t i = 0; i < run->n_trends; i++) {
		html_flush(k, sb, false);
		if (run->trends[i].n)
			html_trend(sb, &run->trends[i], trend_unit(run, &run->trends[i]), &xs);
	}
	strbuf_puts(sb, "</div>\n");
	free(xs.x);
}

/* One <li> per metric that changed beyond noise in direction WANT. */
static size_t html_changes(struct strbuf *sb, const struct run_result *run,
			   enum metric_change want)
{
	size_t n = 0;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		for (size_t m = 0; m < tr->n_metrics; m++) {
			const struct metric_result *mr = &tr->metrics[m];
			bool match = mr->change == want ||
				     (want == METRIC_CHANGE_WORSE && mr->change == METRIC_CHANGE_REGRESSION);
			if (!match || metric_is_orch_own(mr->name))
				continue;
			struct strbuf v = STRBUF_INIT, c = STRBUF_INIT;
			report_fmt_metric(&v, mr);
			range_metric_change(&c, mr, NAN);
			strbuf_printf(sb, "<li><b>");
			esc(sb, tr->board);
			strbuf_puts(sb, " / ");
			esc(sb, tr->test);
			strbuf_puts(sb, "</b>: ");
			esc(sb, mr->name);
			strbuf_printf(sb, " <span class=\"chg %s\">", range_change_class(mr->change));
			esc(sb, strbuf_str(&c));
			strbuf_puts(sb, "</span> (");
			esc(sb, strbuf_str(&v));
			strbuf_puts(sb, ")</li>\n");
			strbuf_release(&v);
			strbuf_release(&c);
			n++;
		}
	}
	return n;
}

/* Regressions (tests marked against the baseline, with orch's words), then
 * every metric that moved beyond noise: worse first, then better. */
static void html_regressions(struct strbuf *sb, const struct run_result *run)
{
	struct strbuf body = STRBUF_INIT;
	for (size_t i = 0; i < run->n_results; i++) {
		const struct test_result *tr = &run->results[i];
		if (!tr->regressed)
			continue;
		strbuf_puts(&body, "<li><b>");
		esc(&body, tr->board);
		strbuf_puts(&body, " / ");
		esc(&body, tr->test);
		strbuf_puts(&body, "</b>: ");
		esc(&body, tr->comparison ? tr->comparison : "regressed");
		strbuf_puts(&body, "</li>\n");
	}
	struct strbuf worse = STRBUF_INIT, better = STRBUF_INIT, ranges = STRBUF_INIT;
	size_t n_worse = html_changes(&worse, run, METRIC_CHANGE_WORSE);
	size_t n_better = html_changes(&better, run, METRIC_CHANGE_BETTER);
	struct range_lines rl;
	range_lines_of_run(run, &rl);
	for (size_t i = 0; i < rl.n; i++) {
		strbuf_puts(&ranges, "<li>");
		esc(&ranges, rl.lines[i].text);
		strbuf_puts(&ranges, "</li>\n");
	}
	if (body.len || n_worse || n_better || rl.n) {
		strbuf_puts(sb, "<h2 id=\"regressions\">Against ");
		esc(sb, range_baseline_name(run));
		strbuf_puts(sb, "<small>each metric across the boards; below, what regressed and "
			    "what moved beyond noise</small></h2>\n");
		if (rl.n)
			strbuf_printf(sb, "<ul class=\"ranges\">\n%s</ul>\n", strbuf_str(&ranges));
		if (body.len)
			strbuf_printf(sb, "<ul class=\"reg\">\n%s</ul>\n", strbuf_str(&body));
		if (n_worse)
			strbuf_printf(sb, "<p>Worse:</p><ul class=\"reg\">\n%s</ul>\n",
				      strbuf_str(&worse));
		if (n_better)
			strbuf_printf(sb, "<p>Better:</p><ul class=\"reg\">\n%s</ul>\n",
				      strbuf_str(&better));
	}
	strbuf_release(&body);
	strbuf_release(&worse);
	strbuf_release(&better);
	strbuf_release(&ranges);
	range_lines_release(&rl);
}

/* The page, section by section; after each, flush (when not NULL) takes
 * what sb holds, so that a file is written without the whole page in memory
 * (a 2560-test report.html is megabytes). */
static void html_build(struct strbuf *sb, const struct run_result *run, const char *run_dir,
		       const struct html_sink *k)
{
	struct report_totals t;
	report_count(run, &t);
	strbuf_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>");
	esc(sb, run->scenario ? run->scenario : "orch");
	strbuf_puts(sb, " \u00b7 ");
	esc(sb, run_result_name(run));
	strbuf_puts(sb, " \u00b7 orch</title>\n<style>\n");
	strbuf_puts(sb, css);
	strbuf_puts(sb, css_grid);
	strbuf_puts(sb, "</style>\n</head>\n<body>\n<main>\n");
	html_header(sb, run, &t);
	void (*const sections[])(struct strbuf *, const struct run_result *) = {
		html_grid, html_boards, html_regressions, html_timeline, html_metrics,
	};
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		html_flush(k, sb, true);
		sections[i](sb, run);
	}
	html_trends(sb, run, k);
	html_table(sb, run, run_dir, k);
	strbuf_puts(sb, "<footer>Written by orch ");
	esc(sb, run->orch_version ? run->orch_version : ORCH_VERSION);
	strbuf_puts(sb, ". Every link is relative to the run folder.</footer>\n</main>\n</body>\n</html>\n");
	html_flush(k, sb, true);
}

char *report_html_in(const struct run_result *run, const char *run_dir)
{
	struct strbuf sb = STRBUF_INIT;
	static const struct html_sink keep = { NULL, NULL };
	html_build(&sb, run, run_dir, &keep);
	return strbuf_detach(&sb);
}

static void flush_to_file(void *ctx, struct strbuf *sb)
{
	fs_atomic_write(ctx, strbuf_str(sb), sb->len);
	strbuf_release(sb);   /* the next section starts from a small buffer */
}

int report_html_write(const struct run_result *run, const char *run_dir, char *err, size_t errlen)
{
	char *path = fs_path_join(run_dir, "report.html");
	struct fs_atomic a;
	int ret = fs_atomic_open(&a, path, err, errlen);
	free(path);
	if (ret < 0)
		return ret;
	struct strbuf sb = STRBUF_INIT;
	const struct html_sink file = { flush_to_file, &a };
	html_build(&sb, run, run_dir, &file);
	strbuf_release(&sb);
	return fs_atomic_commit(&a, err, errlen);
}

char *report_html(const struct run_result *run)
{
	return report_html_in(run, NULL);
}
