/* The command runner's framing (transport/ssh_runner.h), fed as a channel
 * would bring it, in every cut: the command's bytes come out whole and
 * unchanged (binary, \036 bytes, a marker with another token, a partial
 * marker at the end of a read), the markers are taken off and read, and
 * bytes outside the command taint the runner. */
#include "testsupport.h"
#include "transport/ssh_runner.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define TOK "0123456789abcdef"

struct got {
	struct strbuf out, err;
};

static void collect(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct got *g = ctx;
	strbuf_append(stream == TRANSPORT_STDOUT ? &g->out : &g->err, data, len);
}

/* Feeds text (len bytes) on stream in pieces of `cut` bytes. */
/* feed() of a string literal, its NUL left out. */
#define FEED_TEXT(f, stream, lit, cut, g) feed(f, stream, lit, sizeof(lit) - 1, cut, g)

static void feed(struct ssh_runner_frame *f, enum transport_stream stream, const char *text,
		 size_t len, size_t cut, struct got *g)
{
	for (size_t at = 0; at < len; at += cut)
		ssh_runner_frame_feed(f, stream, text + at, len - at < cut ? len - at : cut, collect,
				      g);
}

static const char body[] = "plain\n\036orch-end ffffffffffffffff 0\036\n\036orch-\036\036x"
			   "\036orch-exit " TOK " 12\036y\n" "\0\001\376\377no newline";

static void check_cut(size_t cut)
{
	struct ssh_runner_frame f;
	struct got g = { STRBUF_INIT, STRBUF_INIT };
	ssh_runner_frame_init(&f, TOK);
	struct strbuf out = STRBUF_INIT;
	strbuf_puts(&out, "\036orch-run " TOK " 4242\036\n");
	strbuf_append(&out, body, sizeof(body) - 1);
	strbuf_puts(&out, "\036orch-reap\036\n\036orch-exit " TOK " 7\036\n");
	strbuf_puts(&out, "\036orch-end " TOK " 7\036\n");
	const char err[] = "\036orch-run " TOK " 4242\036\nerr\036orch-e\n\036orch-end " TOK " 7\036\n";
	feed(&f, TRANSPORT_STDOUT, out.buf, out.len, cut, &g);
	assert_false(ssh_runner_frame_ended(&f));
	feed(&f, TRANSPORT_STDERR, err, sizeof(err) - 1, cut, &g);
	assert_true(ssh_runner_frame_ended(&f));
	assert_false(f.tainted);
	assert_int_equal(f.pid, 4242);
	assert_int_equal(f.exit_code, 7);
	assert_int_equal(f.end_code, 7);
	/* the reap line is the transport's to take off: it is output here */
	assert_int_equal(g.out.len, sizeof(body) - 1 + strlen("\036orch-reap\036\n"));
	assert_memory_equal(g.out.buf, body, sizeof(body) - 1);
	assert_string_equal(strbuf_str(&g.err), "err\036orch-e\n");
	struct transport_status st = { 0 };
	ssh_runner_frame_status(&f, &st);
	assert_int_equal(st.exit_code, 7);
	ssh_runner_frame_release(&f);
	strbuf_release(&out);
	strbuf_release(&g.out);
	strbuf_release(&g.err);
}

static void test_every_cut(void **state)
{
	for (size_t cut = 1; cut <= 64; cut++)
		check_cut(cut);
	check_cut(4096);
}

/* Without the trap's exit marker (the command exec'd or its shell was
 * killed), the loop's $? tells: 129..192 a signal, as a channel says it. */
static void test_status_without_exit_marker(void **state)
{
	static const struct { const char *end; int code, sig; } cases[] = {
		{ "0", 0, 0 }, { "1", 1, 0 }, { "128", 128, 0 }, { "137", -1, 9 },
		{ "143", -1, 15 }, { "200", 200, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ssh_runner_frame f;
		struct got g = { STRBUF_INIT, STRBUF_INIT };
		ssh_runner_frame_init(&f, TOK);
		char *s = xasprintf("\036orch-run " TOK " 9\036\n\036orch-end " TOK " %s\036\n",
				    cases[i].end);
		feed(&f, TRANSPORT_STDOUT, s, strlen(s), 3, &g);
		feed(&f, TRANSPORT_STDERR, s, strlen(s), 5, &g);
		assert_true(ssh_runner_frame_ended(&f));
		struct transport_status st = { 0 };
		ssh_runner_frame_status(&f, &st);
		assert_int_equal(st.exit_code, cases[i].code);
		assert_int_equal(st.signal, cases[i].sig);
		assert_int_equal(g.out.len + g.err.len, 0);
		free(s);
		ssh_runner_frame_release(&f);
	}
}

/* Bytes before the start marker or after the end marker are not the
 * command's: dropped, and the runner is tainted. */
static void test_outside_bytes_taint(void **state)
{
	struct ssh_runner_frame f;
	struct got g = { STRBUF_INIT, STRBUF_INIT };
	ssh_runner_frame_init(&f, TOK);
	FEED_TEXT(&f, TRANSPORT_STDOUT,
		  "late\036orch-run " TOK " 9\036\nmine\036orch-end " TOK " 0\036\n", 7, &g);
	assert_true(f.tainted);
	assert_string_equal(strbuf_str(&g.out), "mine");
	ssh_runner_frame_release(&f);

	ssh_runner_frame_init(&f, TOK);
	FEED_TEXT(&f, TRANSPORT_STDERR,
		  "\036orch-run " TOK " 9\036\n\036orch-end " TOK " 0\036\nleftover", 64, &g);
	assert_true(f.tainted);
	ssh_runner_frame_release(&f);
	strbuf_release(&g.out);
}

/* A command that ends without its markers: what was held back as a
 * possible marker is its output after all. */
static void test_flush_held_bytes(void **state)
{
	struct ssh_runner_frame f;
	struct got g = { STRBUF_INIT, STRBUF_INIT };
	ssh_runner_frame_init(&f, TOK);
	FEED_TEXT(&f, TRANSPORT_STDOUT, "\036orch-run " TOK " 9\036\nabc\036orch-end " TOK " 1", 1, &g);
	assert_string_equal(strbuf_str(&g.out), "abc");
	ssh_runner_frame_flush(&f, collect, &g);
	assert_string_equal(strbuf_str(&g.out), "abc\036orch-end " TOK " 1");
	assert_false(ssh_runner_frame_ended(&f));
	ssh_runner_frame_release(&f);
	strbuf_release(&g.out);
}

static void test_request(void **state)
{
	char *r = ssh_runner_request(TOK, "step_1", true, "echo a\n\necho 'b'\n");
	assert_string_equal(r, "orch_t=" TOK "; orch_s=step_1; orch_g=1; "
			       "orch_c='echo a\n\necho '\\''b'\\''\n'; eval \"$orch_B\"\n");
	free(r);
	r = ssh_runner_request(TOK, "bad step;", false, "x");
	assert_string_equal(r, "orch_t=" TOK "; orch_s=-; orch_g=0; orch_c='x'; eval \"$orch_B\"\n");
	free(r);
}

TS_MAIN(NULL, NULL, test_every_cut, test_status_without_exit_marker, test_outside_bytes_taint,
	test_flush_held_bytes, test_request)
