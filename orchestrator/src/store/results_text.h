#ifndef ORCH_STORE_RESULTS_TEXT_H
#define ORCH_STORE_RESULTS_TEXT_H
/*
 * results.json's text, written piece by piece (inside store/ only): the
 * header members, then each result as one item of "results", then the
 * end. Indented as json_dumps(RESULT_JSON_FLAGS) would, so a file built
 * from pieces (the journal's lines) reads the same as one from a tree.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "result/result.h"
#include "util/fsutil.h"

/* Where results.json's text goes: a file written whole, or a stream. */
struct results_sink {
	void (*put)(void *ctx, const void *data, size_t len);
	void *ctx;
};

/* results.json's members but "results" and "trends" (caller releases). */
json_t *results_header_json(const struct run_result *run);
/* The header members, then run's trends (run may be NULL), up to
 * "results": [. */
void results_emit_header(const struct results_sink *o, const json_t *header,
			 const struct run_result *run);
/* Item index of "results", text being one result's JSON. */
void results_emit_item(const struct results_sink *o, const char *text, size_t len, size_t index);
/* The end of "results" (n_items written) and of the file. */
void results_emit_end(const struct results_sink *o, size_t n_items);
/* dir/results.json opened to be written whole (fs_replace_open), into o. 0 or -1 + err. */
int results_open(const char *dir, struct fs_replace *a, struct results_sink *o, char *err,
		 size_t errlen);
/* What a's file holds so far, written and buffered. */
uint64_t results_bytes_written(const struct fs_replace *a);

#endif
