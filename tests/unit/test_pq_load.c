/* libpq loaded on first use (db/pq_load.h): orch's binary does not link
 * it (a run without PostgreSQL maps neither libpq nor its GnuTLS, LDAP and
 * SASL tree), and the first connect loads it and talks to the server as
 * libpq does (here: a refused port, and libpq's own message). */
#include "testsupport.h"
#include "db/db.h"
#include "db/pq_load.h"

#include <stdlib.h>
#include <string.h>

static void test_binary_does_not_link_libpq(void **state)
{
	char *out = NULL;
	assert_int_equal(ts_run(&out, "readelf -d '%s' | grep NEEDED", ORCH_BIN), 0);
	TS_ASSERT_HAS(out, "libssh");
	if (strstr(out, "libpq") || strstr(out, "gnutls"))
		fail_msg("orch links libpq at start:\n%s", out);
	free(out);
}

static void test_loaded_on_first_connect(void **state)
{
	assert_non_null(pq_load_error());
	struct db *db = NULL;
	char err[512] = "";
	assert_int_equal(db_open(&db, "postgresql://127.0.0.1:1/orch", err, sizeof(err)), DB_EOPEN);
	assert_null(pq_load_error());
	assert_null(db);
	TS_ASSERT_HAS(err, "127.0.0.1");
}

TS_MAIN(NULL, NULL, test_binary_does_not_link_libpq, test_loaded_on_first_connect)
