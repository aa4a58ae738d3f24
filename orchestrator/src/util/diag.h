#ifndef ORCH_UTIL_DIAG_H
#define ORCH_UTIL_DIAG_H
/*
 * Diagnostics: the list of problems found in the user's files, each with
 * its place, so all of them are reported at once as "file:line:col: message".
 * line and col are 1-based; 0 means unknown (then only "file: message").
 * Whatever is printed goes through util/secret.h's masking first, the
 * quoted source lines included, so a secret orch knows never reaches a
 * terminal or a CI log through a message.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct diag {
	char *file;
	int line;
	int col;
	char *message;
	bool no_source;   /* never quote the file's line (a file that is not the
			   * user's configuration: -e @FILE) */
};

struct diag_list {
	struct diag *items;
	size_t n;
	size_t cap;
};

#define DIAG_LIST_INIT { NULL, 0, 0 }

void diag_add(struct diag_list *dl, const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Orders the list by file, then line, then column (stable), so problems
 * found by different passes read top to bottom. */
void diag_sort(struct diag_list *dl);
/* Prints every diagnostic, one per line, "file:line:col: error: message". */
void diag_print(const struct diag_list *dl, FILE *out);
/* The same as warnings: "file:line:col: warning: message". */
void diag_print_warnings(const struct diag_list *dl, FILE *out);
/* Marks the diagnostics from index from on as not to be quoted. */
void diag_hide_source(struct diag_list *dl, size_t from);
/* As diag_print, each followed by the offending line of its file and a
 * caret under the column, as compilers show them (when the file is
 * readable). */
void diag_print_source(const struct diag_list *dl, FILE *out);
void diag_list_release(struct diag_list *dl);

#endif
