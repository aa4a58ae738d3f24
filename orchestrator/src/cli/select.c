/* The BOARD operands of orch lock, power and console: names and selectors
 * resolved against the inventory, and a board taken for a person's manual
 * work (its lock, then its link). */
#include "cli/common.h"
#include "cli/cli.h"
#include "config/selector.h"
#include "link/board_link.h"
#include "lock/board_lock.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_selector(const char *a)
{
	return strpbrk(a, "*?[!,") || strncmp(a, "tag:", 4) == 0 || strcmp(a, "all") == 0;
}

/* Plain names, unchecked: no inventory to check them against. */
static int names_unchecked(const char *name, char **args, int n, const char ***out,
			   size_t *n_out)
{
	for (int i = 0; i < n; i++) {
		if (is_selector(args[i])) {
			fprintf(stderr, "orch %s: '%s' is a selector: give the inventory "
				"(-i INVENTORY or ORCH_INVENTORY) to resolve it\n", name, args[i]);
			free(*out);
			*out = NULL;
			*n_out = 0;
			return EXIT_USAGE;
		}
		cmd_add_arg(out, n_out, args[i]);
	}
	fprintf(stderr, "orch %s: warning: no inventory to check the board names against "
		"(give -i INVENTORY or set ORCH_INVENTORY)\n", name);
	return EXIT_OK;
}

/* Every plain name of args is a board of inv; if not, says which are not
 * (with the closest name) and returns EXIT_USAGE. */
static int names_known(const char *name, const struct inventory *inv, char **args, int n)
{
	const char **names = xcalloc(inv->n_boards + 1, sizeof(*names));
	for (size_t b = 0; b < inv->n_boards; b++)
		names[b] = inv->boards[b].name;
	int ret = EXIT_OK;
	for (int i = 0; i < n; i++) {
		if (is_selector(args[i]) || inventory_find(inv, args[i]))
			continue;
		const char *near = selector_suggest(args[i], names);
		fprintf(stderr, "orch %s: %s: no board '%s' in this inventory%s%s%s\n", name,
			inv->path, args[i], near ? " (did you mean '" : "", near ? near : "",
			near ? "'?)" : "");
		ret = EXIT_USAGE;
	}
	free(names);
	return ret;
}

int cmd_select_boards(const char *name, const char *inv_path, bool need_inventory, char **args,
		      int n, const char ***out, size_t *n_out, struct inventory **inv)
{
	*out = NULL;
	*n_out = 0;
	*inv = NULL;
	if (!inv_path)
		inv_path = getenv("ORCH_INVENTORY");
	if (!need_inventory && (!inv_path || !*inv_path))
		return names_unchecked(name, args, n, out, n_out);
	int ret = cmd_load_inventory(inv_path, inv);
	if (ret == EXIT_OK)
		ret = names_known(name, *inv, args, n);
	if (ret != EXIT_OK)
		return ret;
	bool *sel = xcalloc((*inv)->n_boards + 1, sizeof(bool));
	char err[512];
	if (selector_resolve(*inv, (const char *const *)args, (size_t)n, NULL, 0, sel, err,
			     sizeof(err)) < 0) {
		fprintf(stderr, "orch %s: %s: %s\n", name, (*inv)->path, err);
		ret = EXIT_USAGE;
	}
	for (size_t b = 0; ret == EXIT_OK && b < (*inv)->n_boards; b++)
		if (sel[b])
			cmd_add_arg(out, n_out, (*inv)->boards[b].name);
	free(sel);
	if (ret == EXIT_OK && !*n_out) {
		fprintf(stderr, "orch %s: the selectors select no board of %s\n", name,
			(*inv)->path);
		ret = EXIT_USAGE;
	}
	return ret;
}

int cmd_manual_select(const char *name, const char *inv_path, char **args, int n,
		      const struct board ***boards, size_t *nb, struct inventory **inv)
{
	const char **names = NULL;
	*boards = NULL;
	int ret = cmd_select_boards(name, inv_path, true, args, n, &names, nb, inv);
	if (ret == EXIT_OK) {
		*boards = xcalloc(*nb + 1, sizeof(**boards));
		for (size_t i = 0; i < *nb; i++)
			(*boards)[i] = inventory_find(*inv, names[i]);
	}
	free(names);
	return ret;
}

/* BOARD's lock for a person's manual work: EXIT_OK and *fd (-1 when forced
 * past a holder), or EXIT_INFRA after saying why. */
static int take_lock(const char *name, const char *board, const char *note, bool force, int *fd)
{
	*fd = -1;
	char err[512], desc[512];
	char *dir = board_lock_dir(err, sizeof(err));
	if (!dir) {
		fprintf(stderr, "orch %s: %s\n", name, err);
		return EXIT_INFRA;
	}
	struct board_holder who;
	int rc = board_lock_try_person(dir, board, note, fd, &who, err, sizeof(err));
	free(dir);
	if (rc == 0)
		return EXIT_OK;
	if (rc != BOARD_LOCK_HELD) {
		fprintf(stderr, "orch %s: %s\n", name, err);
		return EXIT_INFRA;
	}
	board_holder_describe(&who, desc, sizeof(desc));
	if (force) {
		fprintf(stderr, "orch %s: warning: %s is held by %s; going on (--force)\n", name,
			board, desc);
		return EXIT_OK;
	}
	fprintf(stderr, "orch %s: %s is held by %s; not touched (--force goes on anyway)\n",
		name, board, desc);
	return EXIT_INFRA;
}

int cmd_manual_take(const char *name, const struct inventory *inv, const struct board *b,
		    const char *note, bool force, struct manual_board *m)
{
	m->link = NULL;
	int ret = take_lock(name, b->name, note, force, &m->lock_fd);
	if (ret != EXIT_OK)
		return ret;
	m->link = xcalloc(1, sizeof(*m->link));
	board_link_init(m->link, b, inv->dir);
	return EXIT_OK;
}

void cmd_manual_release(struct manual_board *m)
{
	if (m->link) {
		board_link_release(m->link);
		free(m->link);
		m->link = NULL;
	}
	board_lock_release(m->lock_fd);
	m->lock_fd = -1;
}
