#include "transport/transport.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int transport_exec(struct transport *t, const struct transport_exec *req,
		   struct transport_status *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	st->exit_code = -1;
	log_debug("%s: exec (timeout %lld ms): %s", transport_describe(t),
		  (long long)req->timeout_ms, req->command);
	int rc = t->ops->exec(t, req, st, err, errlen);
	if (rc < 0)
		log_debug("%s: exec failed: %s", transport_describe(t), err);
	else
		log_debug("%s: exit %d%s", transport_describe(t), st->exit_code,
			  st->timed_out ? " (timed out)" : "");
	return rc;
}

bool transport_cancelled(const struct transport_exec *req)
{
	return req->cancel && atomic_load(req->cancel) != 0;
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

struct capture {
	struct strbuf out;
	size_t max;
};

static int capture_output(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct capture *c = ctx;
	if (stream != TRANSPORT_STDOUT)
		return 0;
	size_t room = c->max > c->out.len ? c->max - c->out.len : 0;
	strbuf_append(&c->out, data, len < room ? len : room);
	return 0;
}

int transport_capture(struct transport *t, const char *command, int64_t timeout_ms,
		      size_t max, char **out, int *exit_code, char *err, size_t errlen)
{
	struct capture c = { STRBUF_INIT, max };
	struct transport_exec req = {
		.command = command, .timeout_ms = timeout_ms, .stdin_fd = -1,
		.on_output = capture_output, .ctx = &c,
	};
	struct transport_status st;
	int ret = transport_exec(t, &req, &st, err, errlen);
	if (ret == 0 && (st.timed_out || st.interrupted)) {
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
