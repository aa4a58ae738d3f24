#include "db/pq_load.h"

#include <dlfcn.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define PQ_LIBRARY "libpq.so.5"

static struct {
	PGconn *(*connect_start_params)(const char *const *, const char *const *, int);
	PostgresPollingStatusType (*connect_poll)(PGconn *);
	int (*socket)(const PGconn *);
	int (*set_nonblocking)(PGconn *, int);
	void (*finish)(PGconn *);
	ConnStatusType (*status)(const PGconn *);
	char *(*error_message)(const PGconn *);
	int (*send_query)(PGconn *, const char *);
	int (*send_query_params)(PGconn *, const char *, int, const Oid *, const char *const *,
				 const int *, const int *, int);
	int (*flush)(PGconn *);
	int (*consume_input)(PGconn *);
	int (*is_busy)(PGconn *);
	PGresult *(*get_result)(PGconn *);
	ExecStatusType (*result_status)(const PGresult *);
	char *(*result_error_message)(const PGresult *);
	char *(*result_error_field)(const PGresult *, int);
	int (*ntuples)(const PGresult *);
	int (*nfields)(const PGresult *);
	char *(*fname)(const PGresult *, int);
	char *(*cmd_tuples)(PGresult *);
	char *(*getvalue)(const PGresult *, int, int);
	int (*getlength)(const PGresult *, int, int);
	int (*getisnull)(const PGresult *, int, int);
	void (*clear)(PGresult *);
} pq;

static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static void *pq_lib;
static char pq_error[256] = "libpq not loaded yet";
static char pq_empty[1];

static void *pq_sym(const char *name, int *missing)
{
	void *f = dlsym(pq_lib, name);
	if (!f && !*missing) {
		*missing = 1;
		snprintf(pq_error, sizeof(pq_error), "%s has no %s", PQ_LIBRARY, name);
	}
	return f;
}

static void pq_load(void)
{
	pq_lib = dlopen(PQ_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!pq_lib) {
		const char *e = dlerror();
		snprintf(pq_error, sizeof(pq_error), "cannot load libpq (%s): %s", PQ_LIBRARY,
			 e ? e : "?");
		return;
	}
	int missing = 0;
	/* dlsym's void * into a function pointer: POSIX allows it, ISO C does not say */
#define PQ_GET(field, name)                                    \
	do {                                                   \
		void *f_ = pq_sym(name, &missing);             \
		memcpy(&pq.field, &f_, sizeof(pq.field));      \
	} while (0)
	PQ_GET(connect_start_params, "PQconnectStartParams");
	PQ_GET(connect_poll, "PQconnectPoll");
	PQ_GET(socket, "PQsocket");
	PQ_GET(set_nonblocking, "PQsetnonblocking");
	PQ_GET(finish, "PQfinish");
	PQ_GET(status, "PQstatus");
	PQ_GET(error_message, "PQerrorMessage");
	PQ_GET(send_query, "PQsendQuery");
	PQ_GET(send_query_params, "PQsendQueryParams");
	PQ_GET(flush, "PQflush");
	PQ_GET(consume_input, "PQconsumeInput");
	PQ_GET(is_busy, "PQisBusy");
	PQ_GET(get_result, "PQgetResult");
	PQ_GET(result_status, "PQresultStatus");
	PQ_GET(result_error_message, "PQresultErrorMessage");
	PQ_GET(result_error_field, "PQresultErrorField");
	PQ_GET(ntuples, "PQntuples");
	PQ_GET(nfields, "PQnfields");
	PQ_GET(fname, "PQfname");
	PQ_GET(cmd_tuples, "PQcmdTuples");
	PQ_GET(getvalue, "PQgetvalue");
	PQ_GET(getlength, "PQgetlength");
	PQ_GET(getisnull, "PQgetisnull");
	PQ_GET(clear, "PQclear");
#undef PQ_GET
	if (missing) {
		dlclose(pq_lib);
		pq_lib = NULL;
	}
}

const char *pq_load_error(void)
{
	return pq_lib ? NULL : pq_error;
}

/* Every other function is reached only with a connection or result that
 * PQconnectStartParams made, so libpq is loaded by then; NULL ones are let
 * through as libpq lets them (PQfinish(NULL), PQclear(NULL)). */
PGconn *PQconnectStartParams(const char *const *keywords, const char *const *values,
			     int expand_dbname)
{
	pthread_once(&pq_once, pq_load);
	return pq_lib ? pq.connect_start_params(keywords, values, expand_dbname) : NULL;
}

PostgresPollingStatusType PQconnectPoll(PGconn *conn)
{
	return pq_lib ? pq.connect_poll(conn) : PGRES_POLLING_FAILED;
}

int PQsocket(const PGconn *conn)
{
	return pq_lib ? pq.socket(conn) : -1;
}

int PQsetnonblocking(PGconn *conn, int arg)
{
	return pq_lib ? pq.set_nonblocking(conn, arg) : -1;
}

void PQfinish(PGconn *conn)
{
	if (pq_lib)
		pq.finish(conn);
}

ConnStatusType PQstatus(const PGconn *conn)
{
	return pq_lib ? pq.status(conn) : CONNECTION_BAD;
}

char *PQerrorMessage(const PGconn *conn)
{
	return pq_lib ? pq.error_message(conn) : pq_error;
}

int PQsendQuery(PGconn *conn, const char *query)
{
	return pq_lib ? pq.send_query(conn, query) : 0;
}

int PQsendQueryParams(PGconn *conn, const char *command, int n, const Oid *types,
		      const char *const *values, const int *lengths, const int *formats,
		      int result_format)
{
	return pq_lib ? pq.send_query_params(conn, command, n, types, values, lengths, formats,
					     result_format)
		      : 0;
}

int PQflush(PGconn *conn)
{
	return pq_lib ? pq.flush(conn) : -1;
}

int PQconsumeInput(PGconn *conn)
{
	return pq_lib ? pq.consume_input(conn) : 0;
}

int PQisBusy(PGconn *conn)
{
	return pq_lib ? pq.is_busy(conn) : 0;
}

PGresult *PQgetResult(PGconn *conn)
{
	return pq_lib ? pq.get_result(conn) : NULL;
}

ExecStatusType PQresultStatus(const PGresult *res)
{
	return pq_lib ? pq.result_status(res) : PGRES_FATAL_ERROR;
}

char *PQresultErrorMessage(const PGresult *res)
{
	return pq_lib ? pq.result_error_message(res) : pq_error;
}

char *PQresultErrorField(const PGresult *res, int fieldcode)
{
	return pq_lib ? pq.result_error_field(res, fieldcode) : NULL;
}

int PQntuples(const PGresult *res)
{
	return pq_lib ? pq.ntuples(res) : 0;
}

int PQnfields(const PGresult *res)
{
	return pq_lib ? pq.nfields(res) : 0;
}

char *PQfname(const PGresult *res, int field)
{
	return pq_lib ? pq.fname(res, field) : NULL;
}

char *PQcmdTuples(PGresult *res)
{
	return pq_lib ? pq.cmd_tuples(res) : pq_empty;
}

char *PQgetvalue(const PGresult *res, int row, int field)
{
	return pq_lib ? pq.getvalue(res, row, field) : NULL;
}

int PQgetlength(const PGresult *res, int row, int field)
{
	return pq_lib ? pq.getlength(res, row, field) : 0;
}

int PQgetisnull(const PGresult *res, int row, int field)
{
	return pq_lib ? pq.getisnull(res, row, field) : 1;
}

void PQclear(PGresult *res)
{
	if (pq_lib)
		pq.clear(res);
}
