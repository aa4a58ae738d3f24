/* Secrets: taken out of the environment, cut out of messages. */
#include "testsupport.h"
#include "util/secret.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static void test_take_unsets_and_keeps(void **state)
{
	setenv("ORCH_TEST_PW", "hunter2-long", 1);
	char *raw = getenv("ORCH_TEST_PW");
	secret_take("ORCH_TEST_PW");
	assert_null(getenv("ORCH_TEST_PW"));
	assert_string_equal(secret_get("ORCH_TEST_PW"), "hunter2-long");
	assert_int_equal(raw[0], '\0');          /* the environment's copy is zeroed */
	secret_take("ORCH_TEST_PW");              /* again: still known */
	assert_string_equal(secret_get("ORCH_TEST_PW"), "hunter2-long");
	assert_null(secret_get("ORCH_TEST_UNSET"));
	secret_take("ORCH_TEST_UNSET");
	assert_null(secret_get("ORCH_TEST_UNSET"));
}

static void test_redact(void **state)
{
	char *m = xstrdup("login failed, last line seen: 'Password: whatever I typed'");
	secret_redact(m);
	assert_string_equal(m, "login failed, last line seen: 'Password:");
	free(m);
	m = xstrdup("Enter passphrase for key: abc\nnext line hunter2-long here");
	secret_redact(m);
	assert_string_equal(m, "Enter passphrase for key:\nnext line *** here");
	free(m);
	m = xstrdup("exit status 1: no such file");
	secret_redact(m);
	assert_string_equal(m, "exit status 1: no such file");
	free(m);
	secret_wipe_all();
	assert_null(secret_get("ORCH_TEST_PW"));
}

TS_MAIN(NULL, NULL, test_take_unsets_and_keeps, test_redact)
