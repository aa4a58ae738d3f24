#include "report/report.h"
#include "result/exit_code.h"
#include "report/report_html_int.h"
#include "report/report_text.h"
#include "compare/range.h"
#include "result/result_json.h"
#include "util/fsutil.h"
#include "util/log_dir.h"
#include "util/nodeset.h"
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
	"figure{margin:0 0 22px}\nfigure.chart{content-visibility:auto}\n"
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
	"table.grid{width:auto;font-size:11px;border-collapse:separate;border-spacing:0}\n"
	".gridwrap{max-width:100%;overflow-x:auto}\n"
	"table.grid th,table.grid td{padding:0 1px;border:0;height:var(--rh,17px);"
	"line-height:var(--rh,17px)}\n"
	"table.grid th{background:none;text-transform:none;letter-spacing:0;font-size:11px;"
	"max-width:104px;overflow:hidden;text-overflow:ellipsis}\n"
	"table.grid th.b{width:var(--bw,140px);max-width:var(--bw,140px);text-align:right;"
	"padding-right:5px;color:var(--ink);font-weight:600}\n"
	"table.grid th.t.bad{color:var(--fail)}\n"
	"table.grid.compact th.t{vertical-align:bottom;padding-bottom:3px;max-width:none}\n"
	"table.grid.compact th.t div{writing-mode:vertical-rl;transform:rotate(180deg);"
	"max-height:104px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;"
	"margin:0 auto;line-height:normal}\n"
	"table.grid td a{display:block;width:var(--cw,100px);height:calc(var(--rh,17px) - 1px);"
	"line-height:calc(var(--rh,17px) - 1px);text-align:center;border-radius:2px;"
	"color:#fff;text-decoration:none;font-weight:600}\n"
	"table.grid.compact td a{font-size:10px;border-radius:1px}\n"
	"table.grid td a:hover,table.grid td a:focus{outline:2px solid var(--ink);outline-offset:0}\n"
	"table.grid td a.pass{background:var(--pass)}table.grid td a.fail,"
	"table.grid td a.regressed{background:var(--fail)}table.grid td a.error{background:var(--error)}"
	"table.grid td a.skip{background:#d0d7de;color:var(--ink)}\n"
	"table.results tr:target td{background:#fff8c5}\n"
	".chunk{content-visibility:auto}\n"
	"table.details{table-layout:fixed}table.details td{overflow-wrap:anywhere}\n"
	"table.details td.board,table.details .metrics div{white-space:normal}\n"
	"col.c-board{width:9%}col.c-test{width:14%}col.c-st{width:76px}col.c-dur{width:72px}"
	"col.c-met{width:22%}col.c-cmp{width:14%}col.c-logs{width:12%}\n"
	".chg.better{color:var(--pass)}.chg.worse{color:var(--fail)}.chg.noise{color:var(--muted)}\n"
	".trends{display:flex;flex-wrap:wrap;gap:10px 16px}.trendbox{width:262px}\n"
	".trendname{font-size:12px;font-weight:600;white-space:nowrap;overflow:hidden;"
	"text-overflow:ellipsis}\n"
	"svg.trend{width:260px;height:120px}svg.trend text{font-size:9px}\n"
	"h3.trendmetric{font-size:14px;margin:16px 0 4px}"
	"h3 small{font-weight:400;color:var(--muted);font-size:12px;margin-left:8px}\n"
	"ul.ranges li{margin:2px 0}\n";


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

/* ---- details table -------------------------------------------------- */

/* The logs people open first, then the rest by name, result.json last. */
static int log_rank(const char *name)
{
	static const char *const order[] = { LOG_DIR_STDOUT, LOG_DIR_STDERR,
					     LOG_DIR_BOOT_LOG };
	for (int i = 0; i < 3; i++)
		if (strcmp(name, order[i]) == 0)
			return i;
	return strcmp(name, LOG_DIR_RESULT) == 0 ? 4 : 3;
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
	const char *usual[] = { LOG_DIR_STDOUT, LOG_DIR_STDERR, LOG_DIR_BOOT_LOG,
				LOG_DIR_RESULT };
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

/* A row's message (and tries, last line) and log links cells. */
static void table_msg_logs(struct strbuf *sb, const struct test_result *tr, const char *run_dir)
{
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
		html_href(sb, dir, files[f]);
		strbuf_puts(sb, "\">");
		esc(sb, files[f]);
		strbuf_puts(sb, "</a>");
		free(files[f]);
	}
	free(files);
	free(dir);
}

/* The details come in tables of DETAILS_CHUNK rows, each one the browser
 * lays out only when it scrolls into view (content-visibility), so a rack's
 * 10000 rows open as fast as a board's; fixed column widths line the
 * tables up as one. The header row is the first table's. */
#define DETAILS_CHUNK 64
#define DETAILS_ROW_PX 44

static void details_chunk_open(struct strbuf *sb, size_t left, bool any_cmp, bool first)
{
	size_t rows = left < DETAILS_CHUNK ? left : DETAILS_CHUNK;
	strbuf_printf(sb, "<div class=\"chunk\" style=\"contain-intrinsic-size:auto %zupx\">"
		      "<table class=\"results details\"><colgroup><col class=\"c-board\"/>"
		      "<col class=\"c-test\"/><col class=\"c-st\"/><col class=\"c-dur\"/>"
		      "<col class=\"c-met\"/>%s<col/><col class=\"c-logs\"/></colgroup>\n",
		      rows * DETAILS_ROW_PX + (first ? 30 : 0), any_cmp ? "<col class=\"c-cmp\"/>" : "");
	if (first) {
		strbuf_puts(sb, "<thead><tr><th>Board</th><th>Test</th><th>Status</th>"
			    "<th>Duration</th><th>Metrics</th>");
		if (any_cmp)
			strbuf_puts(sb, "<th>vs baseline</th>");
		strbuf_puts(sb, "<th>Message</th><th>Logs</th></tr></thead>\n");
	}
	strbuf_puts(sb, "<tbody>\n");
}

static void html_table(struct strbuf *sb, const struct run_result *run, const char *run_dir,
		       const struct html_sink *sink)
{
	bool any_cmp = false;
	for (size_t i = 0; i < run->n_results; i++)
		any_cmp |= run->results[i].comparison || run->results[i].regressed;

	strbuf_puts(sb, "<h2 id=\"results\">Details</h2>\n");
	for (size_t i = 0; i < run->n_results; i++) {
		html_flush(sink, sb, false);
		if (i % DETAILS_CHUNK == 0)
			details_chunk_open(sb, run->n_results - i, any_cmp, i == 0);
		const struct test_result *tr = &run->results[i];
		const char *cls = html_status_class(tr);
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
		if (tr->implementation) {
			strbuf_puts(sb, "<div class=\"repeat\">implementation: ");
			esc(sb, tr->implementation);
			strbuf_puts(sb, "</div>");
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
		table_msg_logs(sb, tr, run_dir);
		strbuf_puts(sb, "</td></tr>\n");
		if ((i + 1) % DETAILS_CHUNK == 0 || i + 1 == run->n_results)
			strbuf_puts(sb, "</tbody>\n</table></div>\n");
	}
}

static int cmp_facts(const void *a, const void *b)
{
	const struct board_facts *x = *(const struct board_facts *const *)a;
	const struct board_facts *y = *(const struct board_facts *const *)b;
	return nodeset_cmp(x->board ? x->board : "", y->board ? y->board : "");
}

/* The boards' facts in natural order of their names (caller frees). */
static const struct board_facts **facts_in_order(const struct run_result *run)
{
	const struct board_facts **order = xcalloc(run->n_facts + 1, sizeof(*order));
	for (size_t b = 0; b < run->n_facts; b++)
		order[b] = &run->facts[b];
	qsort(order, run->n_facts, sizeof(*order), cmp_facts);
	return order;
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
		const struct board_facts **order = facts_in_order(run);
		for (size_t b = 0; b < run->n_facts; b++) {
			strbuf_puts(sb, "<tr><td class=\"board\">");
			esc(sb, order[b]->board);
			strbuf_puts(sb, "</td>");
			for (size_t j = 0; j < n; j++) {
				const char *v = board_facts_get(order[b], names[j]);
				strbuf_puts(sb, "<td>");
				esc(sb, v ? v : "-");
				strbuf_puts(sb, "</td>");
			}
			strbuf_puts(sb, "</tr>\n");
		}
		strbuf_puts(sb, "</tbody>\n</table>\n");
		free(order);
	}
	free(names);
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

/* A section's text handed to the caller's sink, then dropped. */
struct html_put {
	void (*put)(void *ctx, const void *data, size_t len);
	void *ctx;
};

static void flush_to_put(void *ctx, struct strbuf *sb)
{
	const struct html_put *p = ctx;
	p->put(p->ctx, strbuf_str(sb), sb->len);
	strbuf_release(sb);   /* the next section starts from a small buffer */
}

void report_html_render(const struct run_result *run, const char *run_dir,
			void (*put)(void *ctx, const void *data, size_t len), void *ctx)
{
	struct html_put p = { put, ctx };
	struct strbuf sb = STRBUF_INIT;
	const struct html_sink sink = { flush_to_put, &p };
	html_build(&sb, run, run_dir, &sink);
	strbuf_release(&sb);
}

char *report_html(const struct run_result *run)
{
	return report_html_in(run, NULL);
}
