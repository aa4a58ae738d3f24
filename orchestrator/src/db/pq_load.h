#ifndef ORCH_DB_PQ_LOAD_H
#define ORCH_DB_PQ_LOAD_H
/*
 * libpq, loaded when a PostgreSQL database is first used; only db/db_pg.c
 * calls it. orch defines the libpq functions db_pg.c calls
 * (PQconnectStartParams, PQsendQueryParams, ...) here, each forwarding to
 * libpq.so.5 opened with dlopen on the first connect: a run without
 * PostgreSQL (most runs: SQLite history) neither maps libpq nor its tree
 * (libssl, LDAP, SASL, GnuTLS and p11-kit, about 3 MiB of memory per orch
 * and their start-up work). Until then, and when libpq cannot be loaded,
 * PQconnectStartParams returns NULL and pq_load_error() says why.
 */

/* Why libpq is not loaded ("libpq.so.5: cannot open shared object file"),
 * or NULL once it is. */
const char *pq_load_error(void);

#endif
