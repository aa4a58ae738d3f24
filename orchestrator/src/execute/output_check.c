/* Output checks on a run's lines (output_check.h). */
#include "execute/output_check.h"
#include "execute/output.h"
#include "util/regex.h"
#include "util/strbuf.h"
#include "util/valfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of a line looked at when scoring closeness (long lines are cut). */
#define SCORE_SPAN 4096
#define PAIR_BITS 4096

bool output_expect_any(const struct output_expect *x)
{
	return x && (x->streams[0].present || x->streams[1].present || x->n_exit_codes);
}

bool output_expect_exit_ok(const struct output_expect *x, int code)
{
	if (!x || !x->n_exit_codes)
		return code == 0;
	for (size_t i = 0; i < x->n_exit_codes; i++)
		if (x->exit_codes[i] == code)
			return true;
	return false;
}

const char *output_expect_exit_text(const struct output_expect *x, char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = x && x->n_exit_codes ? x->n_exit_codes : 1;
	for (size_t i = 0; i < n; i++)
		strbuf_printf(&sb, "%s%d", i == 0 ? "" : i + 1 == n ? " or " : ", ",
			      x && x->n_exit_codes ? x->exit_codes[i] : 0);
	snprintf(buf, len, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return buf;
}

void output_checker_init(struct output_checker *oc, const struct output_expect *x)
{
	memset(oc, 0, sizeof(*oc));
	oc->x = x;
	for (int s = 0; s < 2; s++) {
		const struct stream_expect *se = &x->streams[s];
		if (!se->present)
			continue;
		oc->st[s].contains = xcalloc(se->n_contains + 1, sizeof(struct output_check_hit));
		oc->st[s].not_contains = xcalloc(se->n_not_contains + 1,
						 sizeof(struct output_check_hit));
		oc->st[s].matches = xcalloc(se->n_matches + 1, sizeof(struct output_check_hit));
	}
}

void output_checker_release(struct output_checker *oc)
{
	for (int s = 0; s < 2; s++) {
		free(oc->st[s].contains);
		free(oc->st[s].not_contains);
		free(oc->st[s].matches);
	}
	memset(oc, 0, sizeof(*oc));
}

static unsigned pair_hash(unsigned char a, unsigned char b)
{
	return ((unsigned)a * 31u + b) % PAIR_BITS;
}

/* The literal characters of a regex, for scoring lines against it. */
static void regex_literals(const char *src, char *out, size_t len)
{
	size_t o = 0;
	for (const char *p = src; *p && o + 1 < len; p++) {
		if (*p == '\\') {
			if (p[1] && strchr(".^$*+?()[]{}|\\/-", p[1]))
				out[o++] = *++p;
			else if (p[1])
				p++;
			continue;
		}
		if (!strchr("^$.*+?()[]{}|", *p))
			out[o++] = *p;
	}
	out[o] = '\0';
}

/* Share of want's character pairs that line has (0..1); single characters
 * for a one-character want. */
static double closeness(const unsigned char *bits, const char *line, const char *want)
{
	size_t n = strlen(want);
	if (n == 0)
		return 0;
	if (n == 1)
		return strchr(line, want[0]) ? 1 : 0;
	size_t have = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned h = pair_hash((unsigned char)want[i], (unsigned char)want[i + 1]);
		if (bits[h / 8] & (1u << (h % 8)))
			have++;
	}
	return (double)have / (double)(n - 1);
}

static void quote(struct output_check_hit *h, uint64_t line_no, const char *line, double score)
{
	h->line = line_no;
	h->score = score;
	size_t n = strlen(line);
	if (n < sizeof(h->text)) {
		memcpy(h->text, line, n + 1);
	} else {
		memcpy(h->text, line, sizeof(h->text) - 4);
		memcpy(h->text + sizeof(h->text) - 4, "...", 4);
	}
}

static void note_closest(struct output_check_hit *h, const unsigned char *bits, uint64_t line_no,
			 const char *line, const char *want)
{
	double score = closeness(bits, line, want);
	if (!h->line || score > h->score)
		quote(h, line_no, line, score);
}

/* Checks line number no of stream s against every check not met yet. */
static void check_line(struct output_checker *oc, int s, uint64_t no, const char *line)
{
	const struct stream_expect *se = &oc->x->streams[s];
	struct output_check_stream *st = &oc->st[s];
	unsigned char bits[PAIR_BITS / 8];
	bool bits_ready = false;
	size_t len = strlen(line);
	for (size_t i = 0; i < se->n_not_contains; i++)
		if (!st->not_contains[i].line && strstr(line, se->not_contains[i].src))
			quote(&st->not_contains[i], no, line, 1);
	for (int pass = 0; pass < 2; pass++) {
		size_t n = pass ? se->n_matches : se->n_contains;
		for (size_t i = 0; i < n; i++) {
			struct output_check_hit *h = pass ? &st->matches[i] : &st->contains[i];
			const struct output_pattern *p = pass ? &se->matches[i] : &se->contains[i];
			if (h->met)
				continue;
			bool met;
			if (pass) {
				int rc = orch_regex_exec(&p->regex, line, len, NULL, 0);
				if (rc < 0 && !st->regex_error) {
					st->regex_error = rc;
					st->regex_error_at = i;
					st->regex_error_line = no;
				}
				met = rc == ORCH_REGEX_MATCHED;
			} else {
				met = strstr(line, p->src) != NULL;
			}
			if (met) {
				h->met = true;
				quote(h, no, line, 1);
				continue;
			}
			if (!bits_ready) {
				memset(bits, 0, sizeof(bits));
				for (size_t k = 0; k + 1 < len && k < SCORE_SPAN; k++) {
					unsigned hh = pair_hash((unsigned char)line[k],
								(unsigned char)line[k + 1]);
					bits[hh / 8] |= (unsigned char)(1u << (hh % 8));
				}
				bits_ready = true;
			}
			char lit[256];
			if (pass)
				regex_literals(p->src, lit, sizeof(lit));
			else
				snprintf(lit, sizeof(lit), "%s", p->src);
			note_closest(h, bits, no, line, lit);
		}
	}
}

int output_checker_line(void *ctx, enum transport_stream stream, const char *line)
{
	struct output_checker *oc = ctx;
	int s = stream == TRANSPORT_STDERR ? 1 : 0;
	if (oc->x->streams[s].present)
		check_line(oc, s, ++oc->st[s].lines, line);
	return 0;
}

void output_checker_long(struct output_checker *oc, enum transport_stream stream,
			 const char *head, uint64_t len)
{
	int s = stream == TRANSPORT_STDERR ? 1 : 0;
	struct output_check_stream *st = &oc->st[s];
	if (!oc->x->streams[s].present)
		return;
	uint64_t no = ++st->lines;
	if (!st->cut_lines++) {
		st->cut_first = no;
		st->cut_len = len;
	}
	check_line(oc, s, no, head);
}

static const char *const stream_names[] = { "stdout", "stderr" };

/* "; stdout's line 1 is 200 MiB, cut at 1 MiB: checked the first 1 MiB"
 * when a line of the stream was over the cap, else "". */
static void cut_text(const struct output_check_stream *st, const char *name, char *buf,
		     size_t len)
{
	*buf = '\0';
	if (!st->cut_lines)
		return;
	struct strbuf sb = STRBUF_INIT;
	strbuf_printf(&sb, "; %s's line %llu is ", name, (unsigned long long)st->cut_first);
	valfmt_value(&sb, (double)st->cut_len, "B");
	strbuf_printf(&sb, ", cut at ");
	valfmt_value(&sb, OUTPUT_MAX_LINE, "B");
	strbuf_printf(&sb, ": checked the first ");
	valfmt_value(&sb, OUTPUT_MAX_LINE, "B");
	if (st->cut_lines > 1)
		strbuf_printf(&sb, " (%llu lines cut so)", (unsigned long long)st->cut_lines);
	snprintf(buf, len, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}

static void closest_text(const struct output_check_hit *h, uint64_t lines, char *buf,
			 size_t len)
{
	if (!lines)
		snprintf(buf, len, " (it printed nothing)");
	else if (h->line && h->score > 0)
		snprintf(buf, len, "; closest, line %llu: '%s'", (unsigned long long)h->line,
			 h->text);
	else
		snprintf(buf, len, " (%llu line%s, none close)", (unsigned long long)lines,
			 lines == 1 ? "" : "s");
}

static int stream_verdict(const struct stream_expect *se, const struct output_check_stream *st,
			  const char *name, char *buf, size_t len)
{
	char more[OUTPUT_CHECK_QUOTE + 64], cut[160];
	cut_text(st, name, cut, sizeof(cut));
	for (size_t i = 0; i < se->n_contains; i++) {
		if (st->contains[i].met)
			continue;
		closest_text(&st->contains[i], st->lines, more, sizeof(more));
		snprintf(buf, len, "expect %s contains '%s': no line of %s contains it%s%s", name,
			 se->contains[i].src, name, cut, more);
		return -1;
	}
	for (size_t i = 0; i < se->n_not_contains; i++) {
		const struct output_check_hit *h = &st->not_contains[i];
		if (!h->line)
			continue;
		snprintf(buf, len, "expect %s not_contains '%s': line %llu of %s has it: '%s'", name,
			 se->not_contains[i].src, (unsigned long long)h->line, name, h->text);
		return -1;
	}
	if (st->regex_error) {
		snprintf(buf, len, "expect %s matches '%s': %s on line %llu of %s; make the regex "
			 "more specific", name, se->matches[st->regex_error_at].src,
			 orch_regex_strerror(st->regex_error),
			 (unsigned long long)st->regex_error_line, name);
		return -1;
	}
	for (size_t i = 0; i < se->n_matches; i++) {
		if (st->matches[i].met)
			continue;
		closest_text(&st->matches[i], st->lines, more, sizeof(more));
		snprintf(buf, len, "expect %s matches '%s': no line of %s matches it%s%s", name,
			 se->matches[i].src, name, cut, more);
		return -1;
	}
	if (se->has_lines_min && st->lines < se->lines_min) {
		snprintf(buf, len, "expect %s lines: %s printed %llu line%s, expected at least %llu",
			 name, name, (unsigned long long)st->lines, st->lines == 1 ? "" : "s",
			 (unsigned long long)se->lines_min);
		return -1;
	}
	if (se->has_lines_max && st->lines > se->lines_max) {
		snprintf(buf, len, "expect %s lines: %s printed %llu line%s, expected at most %llu",
			 name, name, (unsigned long long)st->lines, st->lines == 1 ? "" : "s",
			 (unsigned long long)se->lines_max);
		return -1;
	}
	return 0;
}

int output_checker_verdict(const struct output_checker *oc, char *buf, size_t len)
{
	for (int s = 0; s < 2; s++)
		if (oc->x->streams[s].present &&
		    stream_verdict(&oc->x->streams[s], &oc->st[s], stream_names[s], buf, len) < 0)
			return -1;
	return 0;
}
