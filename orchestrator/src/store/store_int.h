#ifndef ORCH_STORE_STORE_INT_H
#define ORCH_STORE_STORE_INT_H
/* The store's state (inside store/ only). */
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/store.h"

/*
 * Lines are appended under st->lock with one write each, so they never
 * interleave, and a line that could not be written whole is cut off again:
 * journal_len always ends on a whole line. results.json is rebuilt by the
 * worker that finds it due, outside the lock, from the journal's bytes up
 * to the length it saw: nothing of the results is kept in memory here.
 */
struct store {
	char *scenario_dir;          /* RUNS_DIR/SCENARIO */
	char *path;                  /* the run folder */
	char *run_id;
	int64_t (*clock_us)(void);
	pthread_mutex_t lock;        /* everything below */
	bool started;
	int journal_fd;
	off_t journal_len;           /* whole lines written */
	off_t journal_alloc;         /* space reserved up to here */
	off_t header_len;
	json_t *header;              /* results.json's members but results */
	size_t n_fail, n_error;      /* results so far, for the exit code */
	bool rebuilding, syncing;
	bool interrupted;            /* Ctrl-C: results.json says so from then on */
	int64_t last_rebuild_us, last_sync_us;
	off_t synced_len;
	off_t last_rebuild_len;
	struct store_stats stats;
	bool journaled;              /* store_create: the run's journal is kept here */
	bool created;                /* store_create_at: store_discard removes it */
	char error[512];             /* first write error */
};

#endif
