#include "execute/artifact_sums.h"
#include "util/cksum.h"
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

/* SHA-256 (sha, may be NULL) and POSIX cksum (crc, may be NULL) of a file.
 * 0, -1 when it cannot be read, -2 when interruptible and Ctrl-C came. */
static int local_sums_ex(const char *path, char *sha, uint32_t *crc, bool interruptible)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	EVP_MD_CTX *ctx = sha ? EVP_MD_CTX_new() : NULL;
	struct cksum ck;
	cksum_init(&ck);
	int ret = !sha || (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1) ? 0 : -1;
	char *buf = xmalloc(1 << 20);
	ssize_t n;
	while (ret == 0 && (n = read(fd, buf, 1 << 20)) != 0) {
		if (interruptible && interrupt_requested()) {
			ret = -2;
			break;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (ctx && EVP_DigestUpdate(ctx, buf, (size_t)n) != 1))
			ret = -1;
		else if (crc)
			cksum_update(&ck, buf, (size_t)n);
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

static int local_sums(const char *path, char *sha, uint32_t *crc)
{
	return local_sums_ex(path, sha, crc, false);
}

int artifact_file_sums(const char *path, char *sha, uint32_t *crc)
{
	return local_sums(path, sha, crc);
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
 * (-2: interruptible, and Ctrl-C came first; a push then sums it itself). */
static int local_crc_ex(const char *path, uint32_t *crc, bool interruptible)
{
	struct stat st;
	if (stat(path, &st) < 0)
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
		int rc = local_sums_ex(path, NULL, &v, interruptible);
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
	return local_crc_ex(path, crc, false);
}

struct artifact_sums {
	const struct plan *plan;
	pthread_t thread;
	bool started;
};

static void *sums_warm(void *arg)
{
	const struct plan *p = ((struct artifact_sums *)arg)->plan;
	uint32_t crc;
	for (size_t b = 0; b < p->n_boards; b++)
		for (size_t i = 0; i < p->boards[b].n_items; i++) {
			const struct test *t = p->boards[b].items[i].test;
			for (size_t k = 0; k < t->n_push && !interrupt_requested(); k++)
				local_crc_ex(t->push[k].src, &crc, true);
			for (size_t k = 0; k < t->n_steps && !interrupt_requested(); k++)
				for (size_t j = 0; j < t->steps[k].n_push; j++)
					local_crc_ex(t->steps[k].push[j].src, &crc, true);
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
	j->rc = artifact_file_crc(j->path, &j->crc);
	if (j->rc == 0 && j->want_sha)
		j->rc = local_sums(j->path, j->sha, NULL);
	return NULL;
}

void sum_job_start(struct sum_job *j, const char *path, bool want_sha)
{
	j->path = path;
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
