#include "transport/transport.h"
#include "transport/reap.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define REAP_TIMEOUT_MS 5000

static int reap_after(struct transport *t, const struct transport_exec *req,
		      struct transport_status *st);

static int reap_after(struct transport *t, const struct transport_exec *req,
		      struct transport_status *st)
{
	char err[256];
	if (transport_reap(t, req->step_id, st->pgid, &st->leftovers, err, sizeof(err)) < 0) {
		st->leftovers.unconfirmed = true;
		snprintf(st->leftovers.list, sizeof(st->leftovers.list), "%s", err);
		return -1;   /* said by the test's result (execute/command.c), once a run in the log */
	}
	return 0;
}

int transport_exec(struct transport *t, const struct transport_exec *req,
		   struct transport_status *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	st->exit_code = -1;
	struct transport_exec marked;
	char *cmd = NULL, *full = NULL;
	if (t->mark[0] && t->ops->reaps)
		full = xasprintf("%s-%s", t->mark, req->step_id ? req->step_id : "x");
	const char *id = full ? full : req->step_id;
	if (t->halt && !req->cleanup) {   /* a reap still runs after a halt */
		marked = *req;
		marked.halt = t->halt;
		req = &marked;
	}
	if (id) {
		cmd = xasprintf("export ORCH_STEP_ID=%s; %s", id, req->command);
		if (req != &marked)
			marked = *req;
		marked.command = cmd;
		marked.step_id = req->step_id ? id : NULL;
		req = &marked;
	}
	log_debug("%s: exec (timeout %lld ms): %s", transport_describe(t),
		  (long long)req->timeout_ms, req->command);
	int rc = t->ops->exec(t, req, st, err, errlen);
	if (rc < 0)
		log_debug("%s: exec failed: %s", transport_describe(t), err);
	else
		log_debug("%s: exit %d%s", transport_describe(t), st->exit_code,
			  st->timed_out ? " (timed out)" : "");
	if (rc == 0 && req->reap && req->step_id && t->ops->reaps && !st->reaped)
		reap_after(t, req, st);
	free(cmd);
	free(full);
	return rc;
}

void transport_set_mark(struct transport *t, const char *mark)
{
	if (t && mark && reap_token_ok(mark) && strlen(mark) < sizeof(t->mark))
		snprintf(t->mark, sizeof(t->mark), "%s", mark);
}

void transport_set_halt(struct transport *t, const atomic_int *halt)
{
	if (t)
		t->halt = halt;
}

int transport_reap(struct transport *t, const char *step_id, long pgid,
		   struct transport_leftovers *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!reap_token_ok(step_id)) {
		snprintf(err, errlen, "invalid step id");
		return -1;
	}
	char *pg = xasprintf("%ld", pgid > 0 ? pgid : 0L);
	char *cmd = reap_script(step_id, pg, !interrupt_hurry());
	char *text = NULL;
	int code = -1;
	int ret = transport_capture_cleanup(t, cmd, REAP_TIMEOUT_MS, 16384, &text, &code, err,
					    errlen);
	if (ret == 0 && reap_parse(text, strlen(text), out) < 0)
		out->unconfirmed = true;
	free(text);
	free(cmd);
	free(pg);
	return ret;
}

void transport_new_step_id(char *buf, size_t len)
{
	static atomic_ulong counter;
	unsigned long long v = 0;
	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))   /* unique still */
		v = ((unsigned long long)clock_mono_us() << 16) ^ ((unsigned long long)getpid() << 40) ^
		    atomic_fetch_add(&counter, 1);
	snprintf(buf, len, "%016llx", v);
}

bool transport_cancelled(const struct transport_exec *req)
{
	return (req->cancel && atomic_load(req->cancel) != 0) ||
	       (req->halt && atomic_load(req->halt) != 0);
}

const char *transport_describe(const struct transport *t)
{
	return t && t->description ? t->description : "?";
}

void transport_free(struct transport *t)
{
	if (t)
		t->ops->free(t);
}

int transport_output_keep(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct transport_output *o = ctx;
	bool err = stream == TRANSPORT_STDERR;
	struct strbuf *sb = err ? &o->err : &o->out;
	size_t max = err ? o->err_max : o->out_max;
	if (!err)
		o->out_bytes += len;
	if (max > sb->len)
		strbuf_append(sb, data, len < max - sb->len ? len : max - sb->len);
	return 0;
}

void transport_output_release(struct transport_output *o)
{
	strbuf_release(&o->out);
	strbuf_release(&o->err);
}

static int capture(struct transport *t, const char *command, int64_t timeout_ms, size_t max,
		   bool cleanup, char **out, int *exit_code, char *err, size_t errlen)
{
	struct transport_output c = TRANSPORT_OUTPUT_INIT(max, 0);
	struct transport_exec req = {
		.command = command, .timeout_ms = timeout_ms, .stdin_fd = -1,
		.on_output = transport_output_keep, .ctx = &c, .cleanup = cleanup,
	};
	struct transport_status st;
	int ret = transport_exec(t, &req, &st, err, errlen);
	if (ret == 0 && (st.timed_out || st.interrupted)) {
		/* a cleanup command is orch's own script (a reap, a kill): quoting
		 * it would bury the reason */
		if (cleanup && st.timed_out)
			snprintf(err, errlen, "timed out after %lld%s on %s",
				 (long long)(timeout_ms % 1000 ? timeout_ms : timeout_ms / 1000),
				 timeout_ms % 1000 ? " ms" : "s", transport_describe(t));
		else if (cleanup)
			snprintf(err, errlen, "interrupted on %s", transport_describe(t));
		else
			snprintf(err, errlen, "'%s' on %s: %s", command, transport_describe(t),
				 st.timed_out ? "timed out" : "interrupted");
		ret = -1;
	}
	*exit_code = st.exit_code;
	*out = strbuf_detach(&c.out);
	if (ret < 0) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

int transport_capture(struct transport *t, const char *command, int64_t timeout_ms,
		      size_t max, char **out, int *exit_code, char *err, size_t errlen)
{
	return capture(t, command, timeout_ms, max, false, out, exit_code, err, errlen);
}

int transport_capture_cleanup(struct transport *t, const char *command, int64_t timeout_ms,
			      size_t max, char **out, int *exit_code, char *err, size_t errlen)
{
	return capture(t, command, timeout_ms, max, true, out, exit_code, err, errlen);
}
