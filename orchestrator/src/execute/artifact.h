#ifndef ORCH_EXECUTE_ARTIFACT_H
#define ORCH_EXECUTE_ARTIFACT_H
/*
 * A test's own files (docs/scenarios.md "Files to and from the board"):
 * `push:` sends files from the controller before the test's command,
 * `fetch:` brings files back into the test's folder after it (whatever the
 * command's outcome), over the board's command transport.
 *
 * A push streams the file into a part file on the board (one exec, stdin),
 * checks its SHA-256 there against the controller's (libcrypto) and only
 * then renames it into place with its mode; a board that already has a file
 * with the same checksum is not sent it again. A fetch streams the file into
 * the test's folder and checks it against the board's SHA-256. Boards
 * without sha256sum (nor busybox's) get a size check. Every transfer is
 * bounded by the test's timeout.
 */
#include <stddef.h>
#include <stdint.h>

#include "config/model.h"
#include "result/result.h"
#include "transport/transport.h"

/* SHA-256 of a local file as 64 hex digits (hex: 65 bytes); 0 or -1. */
int artifact_sha256_file(const char *path, char hex[65]);

/* Pushes a: 0, 1 when the board already had it, -1 with err set (a
 * transport failure sets *infra). stats (may be NULL) gets bytes and
 * seconds. */
int artifact_push(struct transport *t, const struct board *b, const struct artifact *a,
		  int64_t timeout_ms, bool *infra, double *secs, char *err, size_t errlen);

/* Fetches a into test_dir: 0, or -1 with err set (*infra on a transport
 * failure). */
int artifact_fetch(struct transport *t, const struct board *b, const struct artifact *a,
		   const char *test_dir, int64_t timeout_ms, bool *infra, char *err,
		   size_t errlen);

/* The test's pushes, then (after its command) its fetches, recorded in tr
 * (the fetched files as artifacts, a push's rate as the ssh.push metric
 * is not added: test metrics stay the user's). 0, or -1 with tr's status
 * and message set. */
int artifact_push_all(struct transport *t, const struct board *b, const struct test *test,
		      struct test_result *tr);
int artifact_fetch_all(struct transport *t, const struct board *b, const struct test *test,
		       const char *test_dir, struct test_result *tr);

#endif
