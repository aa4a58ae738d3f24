#ifndef ORCH_TEST_PG_H
#define ORCH_TEST_PG_H
/*
 * A real PostgreSQL server for integration tests, run by tests/lab/pg-lab.sh
 * in a scratch directory: Debian's server, initdb as an unprivileged user
 * (orchpg as root), listening on a loopback address and a private port of
 * the test's own range, one database made at start. Clients connect with
 * pg->url (user `orch`, no password: trust from loopback only).
 * pg_up makes the test process a child subreaper so the postmaster is
 * reaped by pg_down, which also runs when a test fails (call it from the
 * group teardown).
 */

struct pg {
	char *tmp;     /* scratch directory (removed by pg_down) */
	char *dir;     /* the lab directory inside it */
	char *host;    /* "127.0.140.1" */
	int port;
	char *url;     /* postgresql://orch@HOST:PORT/DB */
};

/* Starts a server with database `db` ("orch" when NULL); NULL (with the
 * script's output on stderr) on failure. */
struct pg *pg_up(const char *host, int port, const char *db);
/* Makes another database in the running server; returns its URL (caller
 * frees) or NULL. */
char *pg_createdb(struct pg *pg, const char *name);
/* Runs SQL through psql against `url`; the output (tuples only, unaligned)
 * goes to *output when not NULL (caller frees). Returns psql's exit status. */
int pg_psql(const char *url, char **output, const char *sql);
/* Restarts the server (a fast stop: every session ends; the data stays).
 * Returns 0, or -1 (the script's output on stderr). */
int pg_restart(struct pg *pg);
/* Stops the server, reaps it, removes the directory and frees; accepts NULL. */
void pg_down(struct pg *pg);

/* The group fixture of a test file on one server: starts it into *pg with
 * database "orch"; 0, or -1 when it would not start (a failure).
 * pg_group_down stops it and returns 0. */
int pg_group_up(struct pg **pg, const char *host, int port);
int pg_group_down(struct pg **pg);
/* A database of one test's own: PREFIX1, PREFIX2, ... one more each call
 * (for any prefix) in the running server; its URL (caller frees) or NULL. */
char *pg_createdb_next(struct pg *pg, const char *prefix);

#endif
