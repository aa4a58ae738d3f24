#ifndef ORCH_EXECUTE_ARTIFACT_SUMS_H
#define ORCH_EXECUTE_ARTIFACT_SUMS_H
/*
 * Checksums of the controller's own files for push: and fetch:
 * (execute/artifact.h): POSIX cksum (what the board checks a copy with)
 * and SHA-256 (whether the board already has the file).
 *
 * A file's cksum is computed once per run, by path and the file's device,
 * inode, size and mtime (a file rewritten during the run is summed again):
 * artifact_sums_start() sums every push: source of the plan on a thread
 * of its own while the boards connect, and a push that needs a sum being
 * computed waits for it instead of computing it again. A sum_job computes
 * what one push needs on a thread of its own, beside the transfer.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "plan/plan.h"

/* SHA-256 (sha: 65 bytes, may be NULL) and POSIX cksum (crc, may be NULL)
 * of a local regular file (a FIFO or a device is refused before any read),
 * read once up to its size when opened. 0, -1 when it cannot be read, -2
 * when Ctrl-C came or deadline_ms (util/deadline.h; DEADLINE_NONE: none)
 * passed first. */
int artifact_file_sums(const char *path, char *sha, uint32_t *crc);
int artifact_file_sums_within(const char *path, char *sha, uint32_t *crc, int64_t deadline_ms);

/* The POSIX cksum of a local regular file from the run's cache (computed
 * now when not there). 0, -1 when it cannot be read, -2 as above. */
int artifact_file_crc(const char *path, uint32_t *crc);
int artifact_file_crc_within(const char *path, uint32_t *crc, int64_t deadline_ms);

/* Starts summing every push: source of p of up to 64 MiB (larger ones are
 * summed by their push, within its deadline); stop (joins, empties the cache;
 * accepts NULL) after the run. */
struct artifact_sums;
struct artifact_sums *artifact_sums_start(const struct plan *p);
void artifact_sums_stop(struct artifact_sums *s);

/* One file's cksum, and its SHA-256 when want_sha, on a thread of its own. */
struct sum_job {
	const char *path;          /* borrowed */
	bool want_sha;
	int64_t deadline_ms;       /* the push's */
	uint32_t crc;
	char sha[65];
	int rc;                    /* 0, or -1: unreadable */
	pthread_t thread;
	bool started;
};

void sum_job_start(struct sum_job *j, const char *path, bool want_sha, int64_t deadline_ms);
/* Waits for j (again: returns at once). 0, -1 when the file was unreadable,
 * -2 when the deadline or Ctrl-C came first. */
int sum_job_wait(struct sum_job *j);

#endif
