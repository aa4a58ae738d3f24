/*
 * What the steps of a multi-host test share (multi_int.h): output tails,
 * roles and their boards, log names, the outcome, the peers' connections
 * and each step's command. Below multi.c (the steps in order), multi_fg.c
 * and multi_bg.c, which all call it.
 */
#include "execute/bench.h"
#include "execute/multi_int.h"
#include "config/substitute.h"
#include "config/vars.h"
#include "util/log_dir.h"
#include "util/shquote.h"
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void multi_tail_add(struct tail *t, const char *line)
{
	if (!*line)
		return;
	snprintf(t->lines[t->next], TAIL_LINE_MAX, "%s", line);
	t->next = (t->next + 1) % TAIL_LINES;
	if (t->n < TAIL_LINES)
		t->n++;
}

/* "a | b | c", or "(none)". Caller frees. */
char *multi_tail_text(const struct tail *t)
{
	if (!t->n)
		return xstrdup("(none)");
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < t->n; i++) {
		int k = (t->next - t->n + i + TAIL_LINES) % TAIL_LINES;
		strbuf_printf(&sb, "%s%s", i ? " | " : "", t->lines[k]);
	}
	return strbuf_detach(&sb);
}

const struct role_binding *multi_find_role(const struct plan_item *item, const char *name)
{
	for (size_t i = 0; i < item->n_roles; i++)
		if (item->roles[i].role && !strcmp(item->roles[i].role->name, name))
			return &item->roles[i];
	return NULL;
}

/* b's board link: the item's own, or the scheduler's for a role board
 * (exec_context.link_of is mandatory for multi-host tests: a board is
 * reached only through its link). */
struct board_link *multi_link(struct multi_run *mr, const struct board *b)
{
	if (b == mr->item->board)
		return mr->ctx->link;
	return mr->ctx->link_of(mr->ctx->links_ctx, b);
}

/* The boards a step of role rb runs on: the item's board for `each`. */
void multi_role_boards(const struct plan_item *item, const struct role_binding *rb,
		       const struct board *const **boards, size_t *n)
{
	if (rb->role->each) {
		*boards = &item->board;
		*n = 1;
	} else {
		*boards = rb->boards;
		*n = rb->n_boards;
	}
}

bool multi_is_own_board(const struct multi_run *mr, const struct role_binding *rb,
			const struct board *b)
{
	return rb->role->each && b == mr->item->board;
}

void multi_log_names(const struct multi_run *mr, const struct role_binding *rb,
		     const struct board *b, char **out_name, char **err_name)
{
	if (multi_is_own_board(mr, rb, b)) {
		*out_name = xstrdup(LOG_DIR_STDOUT);
		*err_name = xstrdup(LOG_DIR_STDERR);
		return;
	}
	const char *board = rb->n_boards > 1 ? b->name : NULL;
	*out_name = log_dir_role_log(rb->role->name, board, false);
	*err_name = log_dir_role_log(rb->role->name, board, true);
}

void multi_set_outcome(struct multi_run *mr, enum result_status st, const char *fmt, ...)
{
	if (mr->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	struct strbuf sb = STRBUF_INIT;
	strbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	mr->tr->status = st;
	test_result_set_message(mr->tr, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	mr->failed = true;
}

static struct peer *peer_for(struct multi_run *mr, const struct board *b)
{
	for (size_t i = 0; i < mr->n_peers; i++)
		if (mr->peers[i].board == b)
			return &mr->peers[i];
	mr->peers = xrealloc(mr->peers, (mr->n_peers + 1) * sizeof(*mr->peers));
	struct peer *p = &mr->peers[mr->n_peers++];
	memset(p, 0, sizeof(*p));
	p->board = b;
	p->link = multi_link(mr, b);
	return p;
}

/* The foreground connection to b: 0, or -1 with the reason in err. */
int multi_peer_transport(struct multi_run *mr, const struct board *b, struct transport **t,
			 char *err, size_t errlen)
{
	struct peer *p = peer_for(mr, b);
	if (!p->t) {
		if (b == mr->item->board) {
			if (exec_transport(mr->ctx, mr->tr, &p->t, err, errlen) < 0)
				return -1;
			p->borrowed = true;
		} else {
			int r = board_link_get(p->link, mr->item->test->timeout_ms, &p->t, err, errlen);
			exec_note_orphans(p->link, mr->tr);
			if (r < 0 || exec_role_facts(mr->ctx, p->link, &p->t, err, errlen) < 0)
				return -1;
			p->borrowed = true;
		}
	}
	*t = p->t;
	return 0;
}

/* A transport failure on b's foreground connection: drop it. */
void multi_peer_lost(struct multi_run *mr, const struct board *b)
{
	struct peer *p = peer_for(mr, b);
	if (p->borrowed)
		board_link_reset(p->link);
	else
		transport_free(p->t);
	p->t = NULL;
	p->borrowed = false;
}

static int detect_arch(void *ctx, const struct board *b, const char **arch, char *err,
		       size_t errlen)
{
	struct multi_run *mr = ctx;
	struct peer *p = peer_for(mr, b);
	if (p->link && p->link->arch) {
		*arch = p->link->arch;
		return 0;
	}
	if (!p->arch) {
		struct transport *t;
		if (multi_peer_transport(mr, b, &t, err, errlen) < 0 ||
		    exec_machine(t, 10000, &p->arch, err, errlen) < 0)
			return -1;
	}
	*arch = p->arch;
	return 0;
}

/* How a step is named in messages: its command, or its remote-bench program. */
const char *multi_step_text(const struct step *step)
{
	return step->run ? step->run : step->bench;
}

/* An argument of a bench step as one shell word, its substitutions made
 * (quoted, then substituted: a value stays inside the word). */
static int append_bench_arg(struct subst_vars *vars, struct strbuf *sb, const char *arg,
			    const struct subst_env *env, char *err, size_t errlen)
{
	char *q = shquote(arg);
	int rc = subst_append(vars, sb, q, env, err, errlen);
	free(q);
	return rc;
}

/* The command line of a bench step on b: the program (pushed when the
 * board does not have it yet) and its arguments. NULL with err set; a push
 * that failed has already made the test an error. */
static char *bench_command(struct multi_run *mr, const struct step *step, const struct board *b,
			   const struct subst_env *env, char *err, size_t errlen)
{
	struct transport *t;
	if (multi_peer_transport(mr, b, &t, err, errlen) < 0) {
		multi_set_outcome(mr, STATUS_ERROR, "%s", err);
		return NULL;
	}
	struct peer *p = peer_for(mr, b);
	if (!p->arch && b->arch)
		p->arch = xstrdup(b->arch);
	struct bench_target bt = {
		.board = b, .t = t,
		.machine = p->link ? &p->link->arch : &p->arch,
		.bench_dir = mr->ctx->bench_dir, .log_dir = mr->ctx->test_dir,
	};
	/* only the item's own board reports its push rate */
	char *remote = bench_ensure(&bt, step->bench, b == mr->item->board ? mr->tr : NULL, err,
				    errlen);
	if (!remote) {
		multi_set_outcome(mr, STATUS_ERROR, "%s", err);
		return NULL;
	}
	struct strbuf sb = STRBUF_INIT;
	struct subst_vars vars = SUBST_VARS_INIT;
	char *exports = vars_env_prefix(mr->item->test->env, mr->item->test->n_env, step->env,
					step->n_env, "");
	char *cmd = NULL;
	size_t i = 0;
	if (subst_append(&vars, &sb, exports, env, err, errlen) < 0)
		i = step->n_args + 1;
	free(exports);
	strbuf_shquote(&sb, remote);
	free(remote);
	for (; i < step->n_args; i++) {
		strbuf_putc(&sb, ' ');
		if (append_bench_arg(&vars, &sb, step->args[i], env, err, errlen) < 0)
			break;
	}
	if (i == step->n_args)
		cmd = subst_finish(&vars, strbuf_str(&sb));
	subst_vars_release(&vars);
	strbuf_release(&sb);
	return cmd;
}

/* {ROLE.host}: the address orch's connection to b reached (connecting
 * through b's link if needed), else NULL: the inventory's. */
static const char *connected_host(void *ctx, const struct board *b)
{
	struct multi_run *mr = ctx;
	struct peer *p = peer_for(mr, b);
	struct transport *t;
	char err[512];
	if (b->transport == TRANSPORT_KIND_SSH)
		(void)multi_peer_transport(mr, b, &t, err, sizeof(err));   /* connects the link */
	return board_link_host(p->link);
}

/* The step's command for board b (running in role rb), substitutions made. */
char *multi_step_command(struct multi_run *mr, const struct step *step,
			 const struct role_binding *rb, const struct board *b,
			 char *err, size_t errlen)
{
	const struct plan_item *item = mr->item;
	struct subst_role *roles = xcalloc(item->n_roles ? item->n_roles : 1, sizeof(*roles));
	const struct board *self[1] = { b };
	for (size_t i = 0; i < item->n_roles; i++) {
		const struct role_binding *r = &item->roles[i];
		roles[i].name = r->role->name;
		if (r == rb) {
			roles[i].boards = self;
			roles[i].n_boards = 1;
		} else {
			multi_role_boards(item, r, &roles[i].boards, &roles[i].n_boards);
		}
	}
	struct vars_ctx vc = { item->test, b };
	struct subst_env env = {
		.board = b, .roles = roles, .n_roles = item->n_roles,
		.arch_fn = detect_arch, .arch_ctx = mr, .lookup = vars_lookup, .lookup_ctx = &vc,
		.host_fn = connected_host, .host_ctx = mr,
	};
	char *cmd = NULL;
	if (step->bench) {
		cmd = bench_command(mr, step, b, &env, err, errlen);
	} else {
		char *with_env = vars_env_prefix(item->test->env, item->test->n_env, step->env,
						 step->n_env, step->run);
		cmd = substitute(with_env, &env, err, errlen);
		free(with_env);
	}
	free(roles);
	return cmd;
}
