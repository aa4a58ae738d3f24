/* {role.field} / {board.field} substitution in multi-host step commands. */
#include "testsupport.h"
#include "config/substitute.h"

#include "util/shquote.h"

#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

static struct board vm = { .name = (char[]){"vm"}, .arch = (char[]){"x86_64"},
			   .workdir = (char[]){"/tmp/orch"},
			   .ssh = { .present = true, .host = (char[]){"10.77.0.1"}, .port = 2222,
				    .user = (char[]){"root"} } };
static struct board c1 = { .name = (char[]){"client1"}, .workdir = (char[]){"/tmp/o w"},
			   .ssh = { .present = true } };
static struct board c2 = { .name = (char[]){"it's"}, .arch = (char[]){"armv6"} };

static const struct board *server_boards[] = { &vm };
static const struct board *client_boards[] = { &c1 };
static const struct board *both_boards[] = { &c1, &c2 };

static int fake_arch(void *ctx, const struct board *b, const char **arch, char *err,
		     size_t errlen)
{
	int *calls = ctx;
	(*calls)++;
	if (!strcmp(b->name, "client1")) {
		*arch = "i586";
		return 0;
	}
	snprintf(err, errlen, "uname failed");
	return -1;
}

static char *subst(const char *cmd, const struct subst_env *env, char *err, size_t errlen)
{
	err[0] = '\0';
	return substitute(cmd, env, err, errlen);
}

static struct subst_env two_roles(void)
{
	static struct subst_role roles[2];
	roles[0] = (struct subst_role){ "server", server_boards, 1 };
	roles[1] = (struct subst_role){ "client", client_boards, 1 };
	return (struct subst_env){ .board = &c1, .roles = roles, .n_roles = 2 };
}

static void test_fields_are_shell_quoted(void **state)
{
	struct subst_env env = two_roles();
	char err[256];
	char *s = subst("iperf3 -c {server.host} -p {server.port} # {server.name} {server.user}"
			" {server.arch} {server.workdir}", &env, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s, "export ORCH_SERVER_HOST='10.77.0.1'; export ORCH_SERVER_PORT='2222'; "
			       "iperf3 -c \"${ORCH_SERVER_HOST}\" -p \"${ORCH_SERVER_PORT}\" "
			       "# {server.name} {server.user} {server.arch} {server.workdir}");
	free(s);
	s = subst("cd {board.workdir} && echo {client.name} {client.host} {client.port} "
		  "{client.user}.", &env, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s, "export ORCH_BOARD_WORKDIR='/tmp/o w'; "
			       "export ORCH_CLIENT_NAME='client1'; export ORCH_CLIENT_HOST='client1'; "
			       "export ORCH_CLIENT_PORT='22'; export ORCH_CLIENT_USER=''; "
			       "cd \"${ORCH_BOARD_WORKDIR}\" && echo \"${ORCH_CLIENT_NAME}\" "
			       "\"${ORCH_CLIENT_HOST}\" \"${ORCH_CLIENT_PORT}\" \"${ORCH_CLIENT_USER}\".");
	free(s);
}

static void test_local_board_host_is_localhost(void **state)
{
	struct board ctl = { .name = (char[]){"controller"}, .local = true };
	const struct board *b[] = { &ctl };
	struct subst_role role = { "server", b, 1 };
	struct subst_env env = { .board = &c1, .roles = &role, .n_roles = 1 };
	char err[256];
	char *s = subst("iperf3 -c {server.host}", &env, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s, "export ORCH_SERVER_HOST='localhost'; "
			       "iperf3 -c \"${ORCH_SERVER_HOST}\"");
	free(s);
}

static void test_value_with_quote_stays_one_word(void **state)
{
	const struct board *b[] = { &c2 };
	struct subst_role role = { "peer", b, 1 };
	struct subst_env env = { .board = &c2, .roles = &role, .n_roles = 1 };
	char err[256];
	char *s = subst("echo {peer.name}", &env, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s, "export ORCH_PEER_NAME='it'\\''s'; echo \"${ORCH_PEER_NAME}\"");
	free(s);
	s = subst("printf '%s|' {peer.name}", &env, err, sizeof(err));
	char *out = NULL;
	assert_int_equal(ts_run(&out, "%s", s), 0);
	assert_string_equal(out, "it's|");
	TS_FREE(out, s);
}

static void test_shell_braces_pass_through(void **state)
{
	struct subst_env env = two_roles();
	char err[256];
	const char *cmd = "awk '{print $1}' f; echo ${HOME} a{1,2} {x} {a.} {.b} {{server.host}} {";
	char *s = subst(cmd, &env, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s, "awk '{print $1}' f; echo ${HOME} a{1,2} {x} {a.} {.b} "
			       "{server.host}} {");
	free(s);
}

static void test_unknown_field_is_error(void **state)
{
	struct subst_env env = two_roles();
	char err[256];
	assert_null(subst("iperf3 -c {server.hots}", &env, err, sizeof(err)));
	TS_ASSERT_HAS(err, "unknown field 'hots' in {server.hots}");
}

static void test_unknown_role_is_error(void **state)
{
	struct subst_env env = two_roles();
	char err[256];
	assert_null(subst("ping {sever.host}", &env, err, sizeof(err)));
	TS_ASSERT_HAS(err, "unknown role 'sever'", "board, server, client");
}

static void test_board_without_board_is_error(void **state)
{
	struct subst_env env = two_roles();
	env.board = NULL;
	char err[256];
	assert_null(subst("echo {board.name}", &env, err, sizeof(err)));
	TS_ASSERT_HAS(err, "{board.name}");
}

static void test_ambiguous_role_is_error(void **state)
{
	struct subst_role role = { "clients", both_boards, 2 };
	struct subst_env env = { .board = &vm, .roles = &role, .n_roles = 1 };
	char err[256];
	assert_null(subst("ping {clients.host}", &env, err, sizeof(err)));
	TS_ASSERT_HAS(err, "role 'clients' has 2 boards");
}

static void test_arch_detected_through_callback(void **state)
{
	int calls = 0;
	struct subst_env env = two_roles();
	char err[256];
	assert_null(subst("echo {board.arch}", &env, err, sizeof(err)));
	TS_ASSERT_HAS(err, "arch of client1 is unknown");

	env.arch_fn = fake_arch;
	env.arch_ctx = &calls;
	char *s = subst("echo {board.arch} {server.arch}", &env, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s, "export ORCH_BOARD_ARCH='i586'; export ORCH_SERVER_ARCH='x86_64'; "
			       "echo \"${ORCH_BOARD_ARCH}\" \"${ORCH_SERVER_ARCH}\"");
	assert_int_equal(calls, 1);   /* the inventory's arch needs no probe */
	free(s);

	struct board nameless = { .name = (char[]){"nameless"} };
	env.board = &nameless;
	assert_null(subst("echo {board.arch}", &env, err, sizeof(err)));
	TS_ASSERT_HAS(err, "uname failed");
}

static void test_no_substitution_is_identity(void **state)
{
	struct subst_env env = { 0 };
	char err[256];
	char *s = subst("", &env, err, sizeof(err));
	assert_string_equal(s, "");
	free(s);
	s = subst("iperf3 -s -1", &env, err, sizeof(err));
	assert_string_equal(s, "iperf3 -s -1");
	free(s);
}

/* Values that would run code if pasted into a command line. */
static const char *const hostile[] = {
	"$(touch PWNED)", "`touch PWNED`", "a'; touch PWNED; '", "a\"; touch PWNED; \"",
	"x\ntouch PWNED", "${HOME}", "\\", "'", "\"", "a b  c", "-n", "*", "",
};

/* Runs cmd in a scratch folder; its stdout, or NULL when it failed. */
static char *run_in(const char *dir, const char *cmd)
{
	char *q = shquote(cmd);
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s' && sh -c %s", dir, q);
	free(q);
	if (rc != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static void test_hostile_values_arrive_exactly(void **state)
{
	/* each context: unquoted, inside "...", inside '...', in $(...), in `...` */
	static const char *const forms[] = {
		"printf '[%s]' {peer.host}",
		"printf '[%s]' \"{peer.host}\"",
		"printf '[%s]' '{peer.host}'",
		"printf '[%s]' \"pre {peer.host} post\"",
		"printf '[%s]' 'pre {peer.host} post'",
		"printf '[%s]' \"$(printf '%s' {peer.host})\"",
		"printf '[%s]' \"`printf '%s' {peer.host}`\"",
		"x=$(printf '%s' '{peer.host}'); printf '[%s]' \"$x\"",
	};
	char *dir = ts_mkdtemp("subst");
	for (size_t v = 0; v < sizeof(hostile) / sizeof(*hostile); v++) {
		struct board peer = { .name = (char[]){"peer"}, .ssh = { .present = true } };
		peer.ssh.host = xstrdup(hostile[v]);
		const struct board *b[] = { &peer };
		struct subst_role role = { "peer", b, 1 };
		struct subst_env env = { .board = &c1, .roles = &role, .n_roles = 1 };
		for (size_t f = 0; f < sizeof(forms) / sizeof(*forms); f++) {
			char err[256];
			char *cmd = subst(forms[f], &env, err, sizeof(err));
			assert_non_null(cmd);
			char *out = run_in(dir, cmd);
			bool pre = strstr(forms[f], "pre ") != NULL;
			char *want = xasprintf(pre ? "[pre %s post]" : "[%s]", hostile[v]);
			if (!out || strcmp(out, want) != 0)
				fail_msg("value %zu form %zu: %s -> got %s, want %s", v, f, cmd,
					 out ? out : "(failed)", want);
			char *pwned = xasprintf("%s/PWNED", dir);
			assert_int_not_equal(access(pwned, F_OK), 0);
			TS_FREE(pwned, want, out, cmd);
		}
		free(peer.ssh.host);
	}
	ts_rmrf_free(&dir);
}

static void test_comment_and_escapes_keep_context(void **state)
{
	struct subst_env env = two_roles();
	char err[256];
	/* a quote in a comment or after a backslash opens nothing */
	char *s = subst("# don't\necho \\' {server.name} \"it\\\"s {server.name}\"", &env,
			err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s, "export ORCH_SERVER_NAME='vm'; # don't\necho \\' "
			       "\"${ORCH_SERVER_NAME}\" \"it\\\"s ${ORCH_SERVER_NAME}\"");
	free(s);
}

static int lookup_vars(void *ctx, const char *ns, const char *field, const struct board *b,
		       const char **val, char *err, size_t errlen)
{
	(void)ctx;
	if (!strcmp(ns, "vars") && !strcmp(field, "size")) {
		*val = "4M";
		return 1;
	}
	if (b && !strcmp(field, "host") && !strcmp(b->name, "vm")) {
		*val = "192.0.2.7";   /* the address the session reached */
		return 1;
	}
	if (!strcmp(ns, "vars")) {
		snprintf(err, errlen, "no variable '%s'", field);
		return -1;
	}
	return 0;
}

static void test_lookup_hook(void **state)
{
	struct subst_env env = two_roles();
	env.lookup = lookup_vars;
	char err[256];
	char *s = subst("x {vars.size} {server.host} {client.host}", &env, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s, "export ORCH_VARS_SIZE='4M'; export ORCH_SERVER_HOST='192.0.2.7'; "
			       "export ORCH_CLIENT_HOST='client1'; x \"${ORCH_VARS_SIZE}\" "
			       "\"${ORCH_SERVER_HOST}\" \"${ORCH_CLIENT_HOST}\"");
	free(s);
	assert_null(subst("x {vars.nope}", &env, err, sizeof(err)));
	TS_ASSERT_HAS(err, "no variable 'nope'");
}

static void test_same_variable_two_values_is_error(void **state)
{
	const struct board *b1[] = { &vm };
	const struct board *b2[] = { &c1 };
	struct subst_role roles[] = { { "a-b", b1, 1 }, { "a_b", b2, 1 } };
	struct subst_env env = { .board = &c1, .roles = roles, .n_roles = 2 };
	char err[256];
	assert_null(subst("x {a-b.name} {a_b.name}", &env, err, sizeof(err)));
	TS_ASSERT_HAS(err, "ORCH_A_B_NAME");
}

/* shquote on the edges of its runs: empty, quotes only, at either end,
 * doubled; each one word that /bin/sh gives back exactly. */
static void test_shquote_runs(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "", "''" },
		{ "plain", "'plain'" },
		{ "'", "''\\'''" },
		{ "''", "''\\'''\\'''" },
		{ "'a", "''\\''a'" },
		{ "a'", "'a'\\'''" },
		{ "it's a \"$x\" \\n", "'it'\\''s a \"$x\" \\n'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *q = shquote(cases[i].in);
		assert_string_equal(q, cases[i].out);
		char *out = NULL;
		assert_int_equal(ts_run(&out, "printf '%%s' %s", q), 0);
		assert_string_equal(out, cases[i].in);
		TS_FREE(out, q);
	}
}

TS_MAIN(NULL, NULL, test_fields_are_shell_quoted, test_local_board_host_is_localhost,
	test_value_with_quote_stays_one_word, test_shell_braces_pass_through,
	test_unknown_field_is_error, test_unknown_role_is_error, test_board_without_board_is_error,
	test_ambiguous_role_is_error, test_arch_detected_through_callback,
	test_no_substitution_is_identity, test_hostile_values_arrive_exactly,
	test_comment_and_escapes_keep_context, test_lookup_hook,
	test_same_variable_two_values_is_error, test_shquote_runs)
