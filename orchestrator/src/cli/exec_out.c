/* orch exec's output (cli/exec_out.h). */
#include "cli/exec_out.h"
#include "util/log.h"
#include "util/nodeset.h"
#include "util/utf8.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pthread_mutex_t exec_print_mu = PTHREAD_MUTEX_INITIALIZER;

/* A --no-fold line longer than this is printed in pieces. */
#define LINE_PIECE (64u << 10)

void exec_out_init(struct exec_out *o, const char *board, enum exec_format format)
{
	memset(o, 0, sizeof(*o));
	o->board = board;
	o->format = format;
	o->exit_code = -1;
	for (int i = 0; i < 2; i++) {
		o->s[i].sha = EVP_MD_CTX_new();
		if (o->s[i].sha)
			EVP_DigestInit_ex(o->s[i].sha, EVP_sha256(), NULL);
	}
}

/* "board: LINE\n" on stdout or stderr, in one write. */
static void print_line(const struct exec_out *o, int which, const char *line, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_printf(&sb, "%s: ", o->board);
	strbuf_append(&sb, line, len);
	strbuf_putc(&sb, '\n');
	pthread_mutex_lock(&exec_print_mu);
	FILE *f = which ? stderr : stdout;
	fwrite(sb.buf, 1, sb.len, f);
	fflush(f);
	pthread_mutex_unlock(&exec_print_mu);
	strbuf_release(&sb);
}

/* --no-fold: the whole lines of data, the rest kept for the next chunk. */
static void lines_out(struct exec_out *o, int which, const char *data, size_t len)
{
	struct strbuf *ln = &o->s[which].line;
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t take = nl ? (size_t)(nl - data) : len;
		strbuf_append(ln, data, take);
		if (nl || ln->len >= LINE_PIECE) {
			print_line(o, which, strbuf_str(ln), ln->len);
			strbuf_reset(ln);
		}
		take += nl ? 1 : 0;
		data += take;
		len -= take;
	}
}

int exec_out_take(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct exec_out *o = ctx;
	int which = stream == TRANSPORT_STDERR;
	struct exec_stream *s = &o->s[which];
	s->bytes += len;
	if (s->sha)
		EVP_DigestUpdate(s->sha, data, len);
	if (o->format == EXEC_NO_FOLD) {
		lines_out(o, which, data, len);
		return 0;
	}
	if (s->kept.len < EXEC_KEEP_MAX) {
		size_t room = EXEC_KEEP_MAX - s->kept.len;
		strbuf_append(&s->kept, data, len < room ? len : room);
	}
	return 0;
}

void exec_out_finish(struct exec_out *o)
{
	for (int i = 0; i < 2; i++) {
		struct exec_stream *s = &o->s[i];
		unsigned char md[EVP_MAX_MD_SIZE];
		unsigned int mdlen = 0;
		if (s->sha && EVP_DigestFinal_ex(s->sha, md, &mdlen))
			for (unsigned j = 0; j < mdlen && j < 32; j++)
				snprintf(s->digest + 2 * j, 3, "%02x", md[j]);
		if (s->line.len) {
			print_line(o, i, s->line.buf, s->line.len);
			strbuf_reset(&s->line);
		}
	}
}

void exec_out_release(struct exec_out *o)
{
	for (int i = 0; i < 2; i++) {
		strbuf_release(&o->s[i].kept);
		strbuf_release(&o->s[i].line);
		EVP_MD_CTX_free(o->s[i].sha);
		o->s[i].sha = NULL;
	}
}

/* "exit 0", "killed by signal 9". */
static void status_text(const struct exec_out *o, char *buf, size_t len)
{
	if (o->exit_code >= 0)
		snprintf(buf, len, "exit %d", o->exit_code);
	else if (o->signal > 0)
		snprintf(buf, len, "killed by signal %d", o->signal);
	else
		snprintf(buf, len, "killed");
}

/* The fold key: what a reader of the folded output can tell apart. */
static char *fold_key(const struct adhoc_board *ab)
{
	const struct exec_out *o = ab->data;
	if (ab->state != ADHOC_RAN && ab->state != ADHOC_TIMED_OUT)
		return adhoc_problem_text(ab);
	char st[64];
	status_text(o, st, sizeof(st));
	return xasprintf("%d %s %s %s %s", ab->state, st, ab->state == ADHOC_TIMED_OUT ? ab->error : "",
			 o->s[0].digest, o->s[1].digest);
}

/* The kept bytes of one stream, ending with a newline, then what was
 * not kept. */
static void print_stream(const struct exec_stream *s, FILE *f)
{
	if (!s->bytes)
		return;
	fwrite(s->kept.buf, 1, s->kept.len, f);
	if (s->kept.len && s->kept.buf[s->kept.len - 1] != '\n')
		fputc('\n', f);
	if (s->bytes > s->kept.len)
		fprintf(f, "[orch: %llu more bytes not shown (the first %u are); --no-fold "
			   "shows them all]\n",
			(unsigned long long)(s->bytes - s->kept.len), EXEC_KEEP_MAX);
}

static void print_group(const struct fold_group *g)
{
	const struct adhoc_board *ab = g->data;
	const struct exec_out *o = ab->data;
	char what[1100];
	bool bad = ab->state != ADHOC_RAN || ab->failed;
	if (ab->state == ADHOC_RAN)
		status_text(o, what, sizeof(what));
	else if (ab->state == ADHOC_TIMED_OUT)
		snprintf(what, sizeof(what), "%s", ab->error);
	else if (g->n == 1)
		snprintf(what, sizeof(what), "%s: %s", adhoc_state_word(ab->state, false), ab->error);
	else {
		char *p = adhoc_problem_text(ab);
		snprintf(what, sizeof(what), "%s", p);
		free(p);
	}
	char *h = adhoc_group_header(g, what);
	adhoc_print_header(stdout, h, bad);
	free(h);
	print_stream(&o->s[0], stdout);
	if (o->s[1].bytes) {
		fflush(stdout);
		print_stream(&o->s[1], stderr);
		fflush(stderr);
	}
}

static void print_folded(struct adhoc_board *boards, size_t n)
{
	struct fold ran = FOLD_INIT, bad = FOLD_INIT;
	for (size_t i = 0; i < n; i++) {
		char *key = fold_key(&boards[i]);
		fold_add(boards[i].state == ADHOC_RAN ? &ran : &bad, key, boards[i].board->name,
			 &boards[i]);
		free(key);
	}
	fold_sort(&ran, FOLD_LARGEST_FIRST);
	fold_sort(&bad, FOLD_LARGEST_FIRST);
	for (size_t i = 0; i < ran.n; i++)
		print_group(&ran.groups[i]);
	for (size_t i = 0; i < bad.n; i++)
		print_group(&bad.groups[i]);
	fflush(stdout);
	fold_release(&ran);
	fold_release(&bad);
}

/* --no-fold: how each board ended that did not exit 0. */
static void print_ends(const struct adhoc_board *boards, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct adhoc_board *ab = &boards[i];
		const struct exec_out *o = ab->data;
		char st[64];
		status_text(o, st, sizeof(st));
		if (ab->state == ADHOC_RAN && !ab->failed)
			continue;
		if (ab->state == ADHOC_RAN)
			fprintf(stderr, "orch exec: %s: %s\n", ab->board->name, st);
		else
			fprintf(stderr, "orch exec: %s: %s: %s\n", ab->board->name,
				adhoc_state_word(ab->state, false), ab->error);
	}
}

/* A kept stream as a JSON string (invalid UTF-8 shown as U+FFFD). */
static json_t *stream_json(const struct exec_stream *s)
{
	char *text = xstrndup(s->kept.buf ? s->kept.buf : "", s->kept.len);
	json_t *j = strlen(text) == s->kept.len && utf8_valid(text) ? json_stringn(text, s->kept.len)
								      : NULL;
	if (!j) {
		char *lossy = utf8_lossy(text);
		j = json_string(lossy);
		free(lossy);
	}
	free(text);
	return j ? j : json_string("");
}

static void print_json(const struct adhoc_board *boards, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct adhoc_board *ab = &boards[i];
		const struct exec_out *o = ab->data;
		bool ran = ab->state == ADHOC_RAN;
		json_t *j = json_object();
		json_object_set_new(j, "board", json_string(ab->board->name));
		json_object_set_new(j, "state", json_string(adhoc_state_word(ab->state, ab->failed)));
		json_object_set_new(j, "exit_status", ran && o->exit_code >= 0
							  ? json_integer(o->exit_code) : json_null());
		json_object_set_new(j, "signal", o->signal > 0 ? json_integer(o->signal) : json_null());
		json_object_set_new(j, "stdout", stream_json(&o->s[0]));
		json_object_set_new(j, "stderr", stream_json(&o->s[1]));
		json_object_set_new(j, "stdout_bytes", json_integer((json_int_t)o->s[0].bytes));
		json_object_set_new(j, "stderr_bytes", json_integer((json_int_t)o->s[1].bytes));
		json_object_set_new(j, "duration_s", json_real(ab->duration_us / 1e6));
		json_object_set_new(j, "error", ran ? json_null() : json_string(ab->error));
		char *line = json_dumps(j, JSON_COMPACT);
		if (line)
			printf("%s\n", line);
		free(line);
		json_decref(j);
	}
	fflush(stdout);
}

void exec_out_print(struct adhoc_board *boards, size_t n, enum exec_format format)
{
	if (format == EXEC_JSON)
		print_json(boards, n);
	else if (format == EXEC_NO_FOLD)
		print_ends(boards, n);
	else
		print_folded(boards, n);
}
