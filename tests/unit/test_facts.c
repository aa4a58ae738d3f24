/* Board facts: the built-in command run by /bin/sh (through the local
 * transport, as on a board), the scenario's own facts, and the parser. */
#include "testsupport.h"
#include "execute/facts.h"
#include "transport/transport_local.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void test_gather_local(void **state)
{
	char n1[] = "wireguard", c1[] = "echo '  v0.0.20180202  '; echo second line";
	char n2[] = "silent", c2[] = "true";
	char n3[] = "failing", c3[] = "exit 3";
	char n4[] = "quoted", c4[] = "printf '%s\\n' \"it's (a) $HOME\"";
	struct fact_spec extra[] = {
		{ .name = n1, .command = c1 },
		{ .name = n2, .command = c2 },
		{ .name = n3, .command = c3 },
		{ .name = n4, .command = c4 },
	};
	struct transport *t = transport_local_new();
	struct board_facts bf = { .board = xstrdup("here") };
	char err[256] = "";
	assert_int_equal(facts_gather(t, extra, 4, &bf, err, sizeof(err)), 0);
	struct utsname u;
	uname(&u);
	assert_string_equal(board_facts_get(&bf, "kernel"), u.release);
	assert_string_equal(board_facts_get(&bf, "arch"), u.machine);
	char cores[16];
	snprintf(cores, sizeof(cores), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	assert_string_equal(board_facts_get(&bf, "cores"), cores);
	assert_non_null(board_facts_get(&bf, "os"));
	assert_non_null(board_facts_get(&bf, "cpu"));
	assert_non_null(strstr(board_facts_get(&bf, "memory"), " MiB"));
	assert_non_null(strstr(board_facts_get(&bf, "libc"), "glibc 2."));
	assert_true(board_facts_get(&bf, "mhz") || board_facts_get(&bf, "bogomips"));
	assert_string_equal(board_facts_get(&bf, "wireguard"), "v0.0.20180202");
	assert_null(board_facts_get(&bf, "silent"));
	assert_null(board_facts_get(&bf, "failing"));
	char *want = xasprintf("it's (a) %s", getenv("HOME") ? getenv("HOME") : "");
	assert_string_equal(board_facts_get(&bf, "quoted"), want);
	free(want);
	board_facts_release(&bf);
	transport_free(t);
}

static void test_parse(void **state)
{
	char n1[] = "wg", c1[] = "x";
	struct fact_spec extra[] = { { .name = n1, .command = c1 } };
	struct board_facts bf = { 0 };
	char *long_value = xmalloc(400);
	memset(long_value, 'x', 399);
	long_value[399] = '\0';
	char *out = xasprintf("noise line\nkernel=6.1.0\r\nkernel=second\nwg=%s\nbogus=1\n"
			      "cores=\nos= Debian GNU/Linux \nlibc=musl 1.2.3", long_value);
	facts_parse(out, extra, 1, &bf);
	assert_string_equal(board_facts_get(&bf, "kernel"), "6.1.0");
	assert_int_equal(strlen(board_facts_get(&bf, "wg")), FACTS_VALUE_MAX);
	assert_null(board_facts_get(&bf, "bogus"));
	assert_null(board_facts_get(&bf, "cores"));
	assert_string_equal(board_facts_get(&bf, "os"), "Debian GNU/Linux");
	assert_string_equal(board_facts_get(&bf, "libc"), "musl 1.2.3");
	free(out);
	free(long_value);
	board_facts_release(&bf);
}

/* busybox sh and its applets (what small boards have) run the same command. */
static void test_busybox(void **state)
{
	if (access("/bin/busybox", X_OK) != 0) {
		fprintf(stderr, "no /bin/busybox (scripts/install-deps.sh qemu installs busybox-static)\n");
		fail();
	}
	char *cmd = facts_command(NULL, 0);
	char *dir = ts_mkdtemp("facts");
	char *script = ts_write_file(dir, "facts.sh", cmd);
	char *bin = xasprintf("%s/bin", dir);
	char *out = NULL;
	/* a PATH of busybox applets only */
	int rc = ts_run(&out, "mkdir -p '%s' && for a in uname awk tr getconf ls head; do "
			"ln -sf /bin/busybox '%s'/$a; done; PATH='%s' /bin/busybox sh '%s'",
			bin, bin, bin, script);
	assert_int_equal(rc, 0);
	struct board_facts bf = { 0 };
	facts_parse(out, NULL, 0, &bf);
	assert_non_null(board_facts_get(&bf, "kernel"));
	assert_non_null(board_facts_get(&bf, "cpu"));
	assert_non_null(board_facts_get(&bf, "memory"));
	assert_non_null(board_facts_get(&bf, "cores"));
	board_facts_release(&bf);
	free(out);
	ts_rmrf(dir);
	free(dir);
	free(script);
	free(bin);
	free(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gather_local),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_busybox),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
