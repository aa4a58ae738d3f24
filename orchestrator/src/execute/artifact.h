#ifndef ORCH_EXECUTE_ARTIFACT_H
#define ORCH_EXECUTE_ARTIFACT_H
/*
 * A test's own files (docs/scenarios.md "Files to and from the board"):
 * `push:` sends files from the controller before the test's command,
 * `fetch:` brings files back into the test's folder after it (whatever the
 * command's outcome), over the board's command transport.
 *
 * A push asks the board for its tools and its copy (a file of the same
 * size and SHA-256 is not sent again), streams the file into a part file
 * (one exec, stdin), has the board sum what it wrote with POSIX cksum (else
 * sha256sum, else the size) against the controller's sums (computed beside
 * the transfer: execute/artifact_sums.h), and only then renames it into
 * place with its mode (a second exec). A fetch streams the file into the
 * test's folder, summing it, and checks it against the board's sum. Every
 * transfer is bounded by the test's timeout.
 *
 * Over a console shell (a transport without stdin) the push types the file
 * into the part file (execute/push_console.h) and the fetch reads the
 * board's od dump (execute/fetch_console.h); the checks and renames are
 * the same.
 */
#include <stddef.h>
#include <stdint.h>

#include "config/model.h"
#include "execute/push_console.h"
#include "result/result.h"
#include "link/board_link.h"

/* One file pushed to a board, as above: a `push:` entry (artifact_push), or
 * a remote-bench program (execute/bench.h bench_ensure). */
struct file_push {
	const char *src;           /* the controller's file */
	const char *dest;          /* on the board, as its commands see it */
	int mode;                  /* the board copy's */
	int64_t probe_timeout_ms;  /* asking what the board has (0: timeout_ms) */
	int64_t timeout_ms;        /* the transfer; the rename */
	bool sha256_only;          /* "already there" only by SHA-256, and its mode left */
	/* set by artifact_push_file */
	bool board_sha256;         /* the board has a sha256sum */
	uint64_t bytes;            /* sent (0: none) */
	double secs;               /* the transfer's */
	bool console;              /* typed into a console shell: cs says how */
	struct console_push_stats cs;
};

/* Pushes fp->src to fp->dest on b: 0, 1 when the board already had it, -1
 * with err set (a transport failure sets *infra). */
int artifact_push_file(struct transport *t, const struct board *b, struct file_push *fp,
		       bool *infra, char *err, size_t errlen);

/* Pushes a (artifact_push_file with a's mode, else the file's): 0, 1 when
 * the board already had it, -1 with err set (a transport failure sets
 * *infra). secs (may be NULL) gets the transfer's seconds. */
int artifact_push(struct transport *t, const struct board *b, const struct artifact *a,
		  int64_t timeout_ms, bool *infra, double *secs, char *err, size_t errlen);

/* Fetches a into test_dir: 0, or -1 with err set (*infra on a transport
 * failure). */
int artifact_fetch(struct transport *t, const struct board *b, const struct artifact *a,
		   const char *test_dir, int64_t timeout_ms, bool *infra, char *err,
		   size_t errlen);

/* As artifact_fetch, bounded: a file over max bytes (0: no bound) is
 * refused by the board before it sends anything ("N bytes, over the cap
 * of MAX"), and a transfer that grows past it is stopped. */
int artifact_fetch_max(struct transport *t, const struct board *b, const struct artifact *a,
		       const char *test_dir, int64_t timeout_ms, uint64_t max, bool *infra,
		       char *err, size_t errlen);

/* The test's pushes, then (after its command) its fetches, recorded in tr
 * (the fetched files as artifacts, a push's rate as the ssh.push metric
 * is not added: test metrics stay the user's). 0, or -1 with tr's status
 * and message set. */
int artifact_push_all(struct transport *t, const struct board *b, const struct test *test,
		      struct test_result *tr);
int artifact_fetch_all(struct transport *t, const struct board *b, const struct test *test,
		       const char *test_dir, struct test_result *tr);

#endif
