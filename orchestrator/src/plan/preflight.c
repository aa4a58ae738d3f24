#include "plan/preflight.h"
#include "config/selector.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether BENCH/ARCH/remote-bench-NAME exists for some ARCH. */
static bool bench_known(const char *bench_dir, const char *name)
{
	DIR *d = opendir(bench_dir);
	struct dirent *e;
	bool found = false;
	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s/remote-bench-%s", bench_dir, e->d_name, name);
		found = access(p, F_OK) == 0;
		free(p);
	}
	if (d)
		closedir(d);
	return found;
}

/* The programs of the bench folder (remote-bench-NAME in any ARCH/), for
 * a did-you-mean; NULL-ended, caller frees with cfg_strv_free-alike. */
static char **bench_names(const char *bench_dir, size_t *n)
{
	char **names = xcalloc(1, sizeof(char *));
	*n = 0;
	DIR *d = opendir(bench_dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *sub = xasprintf("%s/%s", bench_dir, e->d_name);
		DIR *a = opendir(sub);
		struct dirent *f;
		while (a && (f = readdir(a))) {
			if (strncmp(f->d_name, "remote-bench-", 13) != 0)
				continue;
			bool dup = false;
			for (size_t i = 0; i < *n; i++)
				dup = dup || !strcmp(names[i], f->d_name + 13);
			if (dup)
				continue;
			names = xrealloc(names, (*n + 2) * sizeof(char *));
			names[(*n)++] = xstrdup(f->d_name + 13);
			names[*n] = NULL;
		}
		if (a)
			closedir(a);
		free(sub);
	}
	if (d)
		closedir(d);
	return names;
}

static void check_bench(struct diag_list *dl, const char *bench_dir, const char *name,
			const struct src_pos *pos)
{
	if (!name || bench_known(bench_dir, name))
		return;
	size_t n;
	char **names = bench_names(bench_dir, &n);
	const char *sug = selector_suggest(name, (const char *const *)names);
	if (sug)
		diag_add(dl, pos->file, pos->line, pos->col,
			 "unknown remote-bench program '%s' (did you mean '%s'? no remote-bench-%s "
			 "in %s)", name, sug, name, bench_dir);
	else
		diag_add(dl, pos->file, pos->line, pos->col,
			 "unknown remote-bench program '%s' (no remote-bench-%s in %s)", name, name,
			 bench_dir);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool same_pos(const struct src_pos *a, const struct src_pos *b)
{
	return a->line == b->line && a->col == b->col &&
	       (a->file == b->file || (a->file && b->file && strcmp(a->file, b->file) == 0));
}

static bool missing_identity(const struct board *bd)
{
	return bd->transport == TRANSPORT_KIND_SSH && bd->ssh.identity &&
	       access(bd->ssh.identity, F_OK) != 0;
}

/* A missing identity file once, where it is written (a board, a group or
 * defaults:), naming the boards that would use it. */
static void check_identities(struct diag_list *dl, const struct plan *plan)
{
	for (size_t b = 0; b < plan->n_boards; b++) {
		const struct board *bd = plan->boards[b].board;
		const struct src_pos *at = &bd->ssh.identity_pos;
		bool seen = false;
		for (size_t k = 0; k < b && !seen; k++)
			seen = missing_identity(plan->boards[k].board) &&
			       same_pos(&plan->boards[k].board->ssh.identity_pos, at);
		if (seen || !missing_identity(bd))
			continue;
		struct strbuf users = STRBUF_INIT;
		size_t n = 0;
		for (size_t k = b; k < plan->n_boards; k++) {
			const struct board *o = plan->boards[k].board;
			if (missing_identity(o) && same_pos(&o->ssh.identity_pos, at))
				strbuf_printf(&users, "%s'%s'", n++ ? ", " : "", o->name);
		}
		diag_add(dl, at->file ? at->file : bd->pos.file, at->file ? at->line : bd->pos.line,
			 at->file ? at->col : bd->pos.col, "%s %s: identity file '%s' does not exist",
			 n > 1 ? "boards" : "board", strbuf_str(&users), bd->ssh.identity);
		strbuf_release(&users);
	}
}

int plan_preflight(const struct scenario *sc, const struct plan *plan, const char *bench_dir,
		   struct diag_list *diags)
{
	size_t before = diags->n;
	check_identities(diags, plan);
	struct stat st;
	if (bench_dir && stat(bench_dir, &st) == 0 && S_ISDIR(st.st_mode)) {
		for (size_t t = 0; t < sc->n_tests; t++) {
			const struct test *test = &sc->tests[t];
			check_bench(diags, bench_dir, test->bench, &test->pos);
			for (size_t i = 0; i < test->n_steps; i++)
				check_bench(diags, bench_dir, test->steps[i].bench,
					    &test->steps[i].pos);
		}
	}
	return diags->n > before ? -1 : 0;
}
