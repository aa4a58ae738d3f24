#include "pg.h"
#include "testsupport.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

static void pg_chomp(char *s)
{
	size_t n = s ? strlen(s) : 0;
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* The last line of the script's output: the URL it printed on stdout. */
static char *pg_last_line(char *out)
{
	pg_chomp(out);
	char *nl = strrchr(out, '\n');
	return xstrdup(nl ? nl + 1 : out);
}

struct pg *pg_up(const char *host, int port, const char *db)
{
	struct pg *pg = xcalloc(1, sizeof(*pg));
	char *out = NULL;
	/* the server's user must be able to walk into its data directory */
	ts_lab_script_dirs("pg", 0711, &pg->tmp, &pg->dir);
	pg->host = xstrdup(host);
	pg->port = port;
	int rc = ts_run(&out, "%s/tests/lab/pg-lab.sh up --dir '%s' --host %s --port %d --db %s 2>&1",
			ORCH_SOURCE_DIR, pg->dir, host, port, db ? db : "orch");
	if (rc != 0 || !out) {
		fprintf(stderr, "pg-lab.sh up failed (%d):\n%s\n", rc, out ? out : "");
		free(out);
		pg_down(pg);
		return NULL;
	}
	pg->url = pg_last_line(out);
	free(out);
	if (strncmp(pg->url, "postgresql://", 13) != 0) {
		fprintf(stderr, "pg-lab.sh up printed no URL: %s\n", pg->url);
		pg_down(pg);
		return NULL;
	}
	return pg;
}

int pg_restart(struct pg *pg)
{
	char *out = NULL;
	int rc = ts_run(&out, "%s/tests/lab/pg-lab.sh restart --dir '%s' 2>&1", ORCH_SOURCE_DIR,
			pg->dir);
	if (rc != 0)
		fprintf(stderr, "pg-lab.sh restart failed (%d):\n%s\n", rc, out ? out : "");
	free(out);
	return rc == 0 ? 0 : -1;
}

char *pg_createdb(struct pg *pg, const char *name)
{
	char *out = NULL;
	int rc = ts_run(&out, "%s/tests/lab/pg-lab.sh createdb --dir '%s' %s 2>&1", ORCH_SOURCE_DIR,
			pg->dir, name);
	if (rc != 0) {
		fprintf(stderr, "pg-lab.sh createdb failed (%d):\n%s\n", rc, out ? out : "");
		free(out);
		return NULL;
	}
	char *url = pg_last_line(out);
	free(out);
	return url;
}

int pg_psql(const char *url, char **output, const char *sql)
{
	char *dir = ts_mkdtemp("psql");
	char *file = ts_write_file(dir, "query.sql", sql);
	int rc = ts_run(output, "psql -X -q -tA -v ON_ERROR_STOP=1 -d '%s' -f '%s' 2>&1", url, file);
	ts_rmrf(dir);
	TS_FREE(file, dir);
	return rc;
}

void pg_down(struct pg *pg)
{
	if (!pg)
		return;
	ts_lab_script_down("pg-lab.sh", pg->dir);
	ts_rmrf(pg->tmp);
	TS_FREE(pg->tmp, pg->dir, pg->host, pg->url, pg);
}

int pg_group_up(struct pg **pg, const char *host, int port)
{
	*pg = pg_up(host, port, "orch");
	return *pg ? 0 : -1;
}

int pg_group_down(struct pg **pg)
{
	pg_down(*pg);
	*pg = NULL;
	return 0;
}

char *pg_createdb_next(struct pg *pg, const char *prefix)
{
	static int n;
	char *name = xasprintf("%s%d", prefix, ++n);
	char *url = pg_createdb(pg, name);
	free(name);
	return url;
}
