/* results.json's text, written piece by piece: a header, one result at a
 * time, the end (no tree of the whole run in memory). */
#include "store/results_text.h"
#include "store/store.h"
#include "result/result_json.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void put_atomic(void *ctx, const void *data, size_t len)
{
	fs_replace_write(ctx, data, len);
}

static void put_stream(void *ctx, const void *data, size_t len)
{
	fwrite(data, 1, len, ctx);   /* errors are seen by ferror() at the end */
}

/* The trends, one element at a time (a run of 2560 metrics with 10 nights
 * each held all 25600 points as one JSON tree, about 20 MB), written as
 * text without a tree of their own: after the header members, so with sep
 * "," before them. */
static void emit_trends(const struct results_sink *o, const struct run_result *run, bool sep)
{
	if (!run || !run->n_trends)
		return;
	struct strbuf text = STRBUF_INIT;
	o->put(o->ctx, sep ? ",\n  \"trends\": [" : "\n  \"trends\": [", sep ? 15 : 14);
	for (size_t i = 0; i < run->n_trends; i++) {
		strbuf_reset(&text);
		metric_trend_json_text(&run->trends[i], &text);
		results_emit_item(o, strbuf_str(&text), text.len, i);
	}
	o->put(o->ctx, "\n  ]", 4);
	strbuf_release(&text);
}

/* The header members, indented as json_dumps would, then the run's trends
 * (when run is not NULL), up to "results": [. */
void results_emit_header(const struct results_sink *o, const json_t *header,
			 const struct run_result *run)
{
	char *text = json_dumps(header, RESULT_JSON_FLAGS);
	size_t n = text ? strlen(text) : 0;
	/* "{\n  ...\n}" without the closing "\n}" */
	bool members = n >= 2 && text[n - 1] == '}' && text[n - 2] == '\n';
	if (members)
		o->put(o->ctx, text, n - 2);
	else
		o->put(o->ctx, "{", 1);
	emit_trends(o, run, members);
	if (members || (run && run->n_trends))
		o->put(o->ctx, ",\n  \"results\": [", 16);
	else
		o->put(o->ctx, "\n  \"results\": [", 15);
	free(text);
}

/* One item of an array at depth 2, each line indented by four more spaces. */
void results_emit_item(const struct results_sink *o, const char *text, size_t len, size_t index)
{
	o->put(o->ctx, index ? ",\n    " : "\n    ", index ? 6 : 5);
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			o->put(o->ctx, p, (size_t)(end - p));
			break;
		}
		o->put(o->ctx, p, (size_t)(nl - p));
		o->put(o->ctx, "\n    ", 5);
		p = nl + 1;
	}
}

void results_emit_end(const struct results_sink *o, size_t n_items)
{
	if (n_items)
		o->put(o->ctx, "\n  ]\n}\n", 7);
	else
		o->put(o->ctx, "]\n}\n", 4);
}

json_t *results_header_json(const struct run_result *run)
{
	struct run_result view = *run;
	view.results = NULL;
	view.n_results = 0;
	view.trends = NULL;   /* emit_trends() writes them */
	view.n_trends = 0;
	json_t *j = run_result_to_json(&view);
	json_object_del(j, "results");
	return j;
}

uint64_t results_bytes_written(const struct fs_replace *a)
{
	struct stat sb;
	return a->fd >= 0 && fstat(a->fd, &sb) == 0 ? (uint64_t)sb.st_size + a->len : 0;
}

/* The whole run, one result at a time (no copy of all of it in memory).
 * 0, or -1 + err when a result cannot be encoded. */
static int emit_run(const struct results_sink *o, const struct run_result *run, char *err,
		    size_t errlen)
{
	json_t *hdr = results_header_json(run);
	results_emit_header(o, hdr, run);
	json_decref(hdr);
	for (size_t i = 0; i < run->n_results; i++) {
		json_t *j = test_result_to_json(&run->results[i]);
		char *text = json_dumps(j, RESULT_JSON_FLAGS);
		json_decref(j);
		if (!text) {
			snprintf(err, errlen, "cannot encode the result of %s/%s as JSON",
				 run->results[i].board, run->results[i].test);
			return -1;
		}
		results_emit_item(o, text, strlen(text), i);
		free(text);
	}
	results_emit_end(o, run->n_results);
	return 0;
}

/* dir/results.json opened to be written whole (fs_replace_open), into o. */
int results_open(const char *dir, struct fs_replace *a, struct results_sink *o, char *err,
		 size_t errlen)
{
	char *path = fs_path_join(dir, "results.json");
	int ret = fs_replace_open(a, path, err, errlen);
	free(path);
	*o = (struct results_sink){ put_atomic, a };
	return ret;
}

int store_write_results(const char *run_dir, const struct run_result *run, char *err,
			size_t errlen)
{
	struct fs_replace a;
	struct results_sink o;
	int ret = results_open(run_dir, &a, &o, err, errlen);
	if (ret < 0)
		return ret;
	if (emit_run(&o, run, err, errlen) < 0) {
		fs_replace_abort(&a);
		return -1;
	}
	return fs_replace_commit(&a, err, errlen);
}

int store_print_results(FILE *f, const struct run_result *run, char *err, size_t errlen)
{
	struct results_sink o = { put_stream, f };
	errno = 0;
	if (emit_run(&o, run, err, errlen) < 0)
		return -1;
	if (fflush(f) != 0 || ferror(f)) {
		snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

