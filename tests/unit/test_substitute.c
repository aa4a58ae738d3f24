/* {role.field} / {board.field} substitution in multi-host step commands. */
#include "testsupport.h"
#include "execute/substitute.h"

#include <stdlib.h>
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
	assert_string_equal(s, "iperf3 -c '10.77.0.1' -p '2222' # 'vm' 'root' 'x86_64' '/tmp/orch'");
	free(s);
	s = subst("cd {board.workdir} && echo {client.name} {client.host} {client.port} "
		  "{client.user}.", &env, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s, "cd '/tmp/o w' && echo 'client1' 'client1' '22' ''.");
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
	assert_string_equal(s, "iperf3 -c 'localhost'");
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
	assert_string_equal(s, "echo 'it'\\''s'");
	char *out = NULL;
	assert_int_equal(ts_run(&out, "printf '%%s|' %s", s + strlen("echo ")), 0);
	assert_string_equal(out, "it's|");
	free(out);
	free(s);
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
	assert_non_null(strstr(err, "unknown field 'hots' in {server.hots}"));
}

static void test_unknown_role_is_error(void **state)
{
	struct subst_env env = two_roles();
	char err[256];
	assert_null(subst("ping {sever.host}", &env, err, sizeof(err)));
	assert_non_null(strstr(err, "unknown role 'sever'"));
	assert_non_null(strstr(err, "board, server, client"));
}

static void test_board_without_board_is_error(void **state)
{
	struct subst_env env = two_roles();
	env.board = NULL;
	char err[256];
	assert_null(subst("echo {board.name}", &env, err, sizeof(err)));
	assert_non_null(strstr(err, "{board.name}"));
}

static void test_ambiguous_role_is_error(void **state)
{
	struct subst_role role = { "clients", both_boards, 2 };
	struct subst_env env = { .board = &vm, .roles = &role, .n_roles = 1 };
	char err[256];
	assert_null(subst("ping {clients.host}", &env, err, sizeof(err)));
	assert_non_null(strstr(err, "role 'clients' has 2 boards"));
}

static void test_arch_detected_through_callback(void **state)
{
	int calls = 0;
	struct subst_env env = two_roles();
	char err[256];
	assert_null(subst("echo {board.arch}", &env, err, sizeof(err)));
	assert_non_null(strstr(err, "arch of client1 is unknown"));

	env.arch_fn = fake_arch;
	env.arch_ctx = &calls;
	char *s = subst("echo {board.arch} {server.arch}", &env, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s, "echo 'i586' 'x86_64'");
	assert_int_equal(calls, 1);   /* the inventory's arch needs no probe */
	free(s);

	struct board nameless = { .name = (char[]){"nameless"} };
	env.board = &nameless;
	assert_null(subst("echo {board.arch}", &env, err, sizeof(err)));
	assert_non_null(strstr(err, "uname failed"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_are_shell_quoted),
		cmocka_unit_test(test_local_board_host_is_localhost),
		cmocka_unit_test(test_value_with_quote_stays_one_word),
		cmocka_unit_test(test_shell_braces_pass_through),
		cmocka_unit_test(test_unknown_field_is_error),
		cmocka_unit_test(test_unknown_role_is_error),
		cmocka_unit_test(test_board_without_board_is_error),
		cmocka_unit_test(test_ambiguous_role_is_error),
		cmocka_unit_test(test_arch_detected_through_callback),
		cmocka_unit_test(test_no_substitution_is_identity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
