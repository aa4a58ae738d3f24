#include "execute/artifact_sums.h"
#include "util/cksum.h"
#include "util/deadline.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void to_hex(const unsigned char *d, unsigned n, char *hex)
{
	for (unsigned i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* SHA-256 (sha, may be NULL) and POSIX cksum (crc, may be NULL) of a
 * regular file (fs_open_regular: a FIFO or a device is refused before any
 * read), read up to the size it had when opened. 0, -1 when it cannot be
 * read, -2 when Ctrl-C came or deadline_ms (DEADLINE_NONE: none) passed. */
static int local_sums_ex(const char *path, char *sha, uint32_t *crc, int64_t deadline_ms)
{
	struct stat st;
	int fd = fs_open_regular(path, &st, NULL, 0);
	if (fd < 0)
		return -1;
	EVP_MD_CTX *ctx = sha ? EVP_MD_CTX_new() : NULL;
	struct cksum ck;
	cksum_init(&ck);
	int ret = !sha || (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1) ? 0 : -1;
	char *buf = xmalloc(1 << 20);
	off_t left = st.st_size;
	ssize_t n;
	while (ret == 0 && left > 0 &&
	       (n = read(fd, buf, left < (1 << 20) ? (size_t)left : 1 << 20)) != 0) {
		if (interrupt_requested() || deadline_expired(deadline_ms)) {
			ret = -2;
			break;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (ctx && EVP_DigestUpdate(ctx, buf, (size_t)n) != 1)) {
			ret = -1;
		} else {
			if (crc)
				cksum_update(&ck, buf, (size_t)n);
			left -= n;
		}
	}
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	if (ret == 0 && ctx) {
		if (EVP_DigestFinal_ex(ctx, md, &len) == 1 && len == 32)
			to_hex(md, len, sha);
		else
			ret = -1;
	}
	if (crc)
		*crc = cksum_final(&ck);
	free(buf);
	EVP_MD_CTX_free(ctx);
	close(fd);
	return ret;
}

int artifact_file_sums_within(const char *path, char *sha, uint32_t *crc, int64_t deadline_ms)
{
	return local_sums_ex(path, sha, crc, deadline_ms);
}

int artifact_file_sums(const char *path, char *sha, uint32_t *crc)
{
	return local_sums_ex(path, sha, crc, DEADLINE_NONE);
}

struct sum_entry {
	char *path;
	struct stat st;
	uint32_t crc;
	int state;                 /* 0 computing, 1 done, -1 unreadable */
	struct sum_entry *next;
};

static pthread_mutex_t sums_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sums_cv = PTHREAD_COND_INITIALIZER;
static struct sum_entry *sums;

static bool same_version(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The POSIX cksum of the local file path: 0, or -1 when it cannot be read
 * (-2: Ctrl-C or deadline_ms came first; whoever needs it next sums it). */
static int local_crc_ex(const char *path, uint32_t *crc, int64_t deadline_ms)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	pthread_mutex_lock(&sums_mu);
	struct sum_entry *e = sums;
	while (e && !(strcmp(e->path, path) == 0 && same_version(&e->st, &st)))
		e = e->next;
	if (!e) {
		e = xcalloc(1, sizeof(*e));
		e->path = xstrdup(path);
		e->st = st;
		e->next = sums;
		sums = e;
		e->state = -2;
	}
	for (;;) {
		while (e->state == 0)
			pthread_cond_wait(&sums_cv, &sums_mu);
		if (e->state != -2)
			break;
		e->state = 0;    /* not summed yet, or given up: this thread does it */
		pthread_mutex_unlock(&sums_mu);
		uint32_t v = 0;
		int rc = local_sums_ex(path, NULL, &v, deadline_ms);
		pthread_mutex_lock(&sums_mu);
		e->crc = v;
		e->state = rc == 0 ? 1 : rc == -2 ? -2 : -1;
		pthread_cond_broadcast(&sums_cv);
		if (rc == -2)
			break;
	}
	*crc = e->crc;
	int ret = e->state == 1 ? 0 : e->state;
	pthread_mutex_unlock(&sums_mu);
	return ret;
}

int artifact_file_crc(const char *path, uint32_t *crc)
{
	return local_crc_ex(path, crc, DEADLINE_NONE);
}

int artifact_file_crc_within(const char *path, uint32_t *crc, int64_t deadline_ms)
{
	return local_crc_ex(path, crc, deadline_ms);
}

/* Warming sums only files this small: a push waits for a sum being
 * computed, and this one has no test's deadline. */
#define WARM_MAX_BYTES (64 << 20)

static void warm_one(const char *path)
{
	struct stat st;
	uint32_t crc;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= WARM_MAX_BYTES)
		local_crc_ex(path, &crc, DEADLINE_NONE);
}

struct artifact_sums {
	const struct plan *plan;
	pthread_t thread;
	bool started;
};

static void *sums_warm(void *arg)
{
	const struct plan *p = ((struct artifact_sums *)arg)->plan;
	for (size_t b = 0; b < p->n_boards; b++)
		for (size_t i = 0; i < p->boards[b].n_items; i++) {
			const struct test *t = p->boards[b].items[i].test;
			for (size_t k = 0; k < t->n_push && !interrupt_requested(); k++)
				warm_one(t->push[k].src);
			for (size_t k = 0; k < t->n_steps && !interrupt_requested(); k++)
				for (size_t j = 0; j < t->steps[k].n_push; j++)
					warm_one(t->steps[k].push[j].src);
		}
	return NULL;
}

struct artifact_sums *artifact_sums_start(const struct plan *p)
{
	struct artifact_sums *s = xcalloc(1, sizeof(*s));
	s->plan = p;
	s->started = pthread_create(&s->thread, NULL, sums_warm, s) == 0;
	return s;
}

void artifact_sums_stop(struct artifact_sums *s)
{
	if (!s)
		return;
	if (s->started)
		pthread_join(s->thread, NULL);
	free(s);
	pthread_mutex_lock(&sums_mu);
	while (sums) {
		struct sum_entry *e = sums;
		sums = e->next;
		free(e->path);
		free(e);
	}
	pthread_mutex_unlock(&sums_mu);
}

static void *sum_job_run(void *arg)
{
	struct sum_job *j = arg;
	j->rc = local_crc_ex(j->path, &j->crc, j->deadline_ms);
	if (j->rc == 0 && j->want_sha)
		j->rc = local_sums_ex(j->path, j->sha, NULL, j->deadline_ms);
	return NULL;
}

void sum_job_start(struct sum_job *j, const char *path, bool want_sha, int64_t deadline_ms)
{
	j->path = path;
	j->deadline_ms = deadline_ms;
	j->want_sha = want_sha;
	j->rc = -1;
	j->sha[0] = '\0';
	j->started = pthread_create(&j->thread, NULL, sum_job_run, j) == 0;
	if (!j->started)
		sum_job_run(j);
}

int sum_job_wait(struct sum_job *j)
{
	if (j->started)
		pthread_join(j->thread, NULL);
	j->started = false;
	return j->rc;
}
