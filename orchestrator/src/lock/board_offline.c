#include "lock/board_offline.h"
#include "lock/board_lock.h"
#include "util/deadline.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OFFLINE_SUFFIX ".offline"

static char *file_of(const char *dir, const char *board, const char *suffix)
{
	return xasprintf("%s/board-%s%s", dir, board, suffix);
}

static void copy_clean(char *dst, size_t len, const char *src)
{
	size_t i = 0;
	for (; src && src[i] && i + 1 < len; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? ' ' : src[i];
	dst[i] = '\0';
}

/* "since=US\nby=USER@HOST\nmanual=0|1\nreason=TEXT\n" */
static int parse(const char *text, struct board_offline_rec *rec)
{
	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		char *line = xstrndup(l, n);
		char *eq = strchr(line, '=');
		if (eq) {
			*eq = '\0';
			const char *v = eq + 1;
			if (!strcmp(line, "since"))
				rec->since_us = strtoll(v, NULL, 10);
			else if (!strcmp(line, "by"))
				copy_clean(rec->by, sizeof(rec->by), v);
			else if (!strcmp(line, "manual"))
				rec->manual = *v == '1';
			else if (!strcmp(line, "reason"))
				copy_clean(rec->reason, sizeof(rec->reason), v);
		}
		free(line);
		l = e ? e + 1 : l + n;
	}
	return 0;
}

int board_offline_get(const char *dir, const char *board, struct board_offline_rec *rec,
		      char *err, size_t errlen)
{
	memset(rec, 0, sizeof(*rec));
	char *path = file_of(dir, board, OFFLINE_SUFFIX);
	FILE *f = fopen(path, "r");
	int ret = 0;
	if (!f) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			ret = -1;
		}
		free(path);
		return ret;
	}
	char buf[2048];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	free(path);
	copy_clean(rec->board, sizeof(rec->board), board);
	parse(buf, rec);
	return 1;
}

int board_offline_set(const char *dir, const char *board, const char *reason, bool manual,
		      char *err, size_t errlen)
{
	struct board_holder self;
	board_holder_self(&self, board, NULL);
	char clean[512];
	copy_clean(clean, sizeof(clean), reason ? reason : "");
	char *text = xasprintf("since=%lld\nby=%s@%s\nmanual=%d\nreason=%s\n",
			       (long long)clock_wall_us(), self.user, self.host, manual ? 1 : 0,
			       clean);
	char *path = file_of(dir, board, OFFLINE_SUFFIX);
	int ret = fs_replace_file(path, text, strlen(text), err, errlen);
	free(path);
	free(text);
	return ret < 0 ? -1 : 0;
}

int board_offline_clear(const char *dir, const char *board, bool *had, char *err,
			size_t errlen)
{
	char *path = file_of(dir, board, OFFLINE_SUFFIX);
	char *count = file_of(dir, board, ".errors");
	int ret = 0;
	*had = unlink(path) == 0;
	if (!*had && errno != ENOENT) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		ret = -1;
	}
	unlink(count);
	free(count);
	free(path);
	return ret;
}

long board_offline_list(const char *dir, struct board_offline_rec **out, char *err,
			size_t errlen)
{
	*out = NULL;
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	long n = 0, cap = 0;
	struct dirent *e;
	size_t sl = strlen(OFFLINE_SUFFIX);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, "board-", 6) || len <= 6 + sl ||
		    strcmp(e->d_name + len - sl, OFFLINE_SUFFIX))
			continue;
		char *board = xstrndup(e->d_name + 6, len - 6 - sl);
		struct board_offline_rec rec;
		if (board_offline_get(dir, board, &rec, err, errlen) == 1) {
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				*out = xrealloc(*out, (size_t)cap * sizeof(**out));
			}
			(*out)[n++] = rec;
		}
		free(board);
	}
	closedir(d);
	return n;
}

int board_offline_count(const char *dir, const char *board, bool infra, char *err,
			size_t errlen)
{
	char *path = file_of(dir, board, ".errors");
	int n = 0;
	if (infra) {
		char *t = NULL;
		FILE *f = fopen(path, "r");
		if (f) {
			char buf[32] = "";
			if (fgets(buf, sizeof(buf), f))
				n = atoi(buf);
			fclose(f);
		}
		n++;
		t = xasprintf("%d\n", n);
		if (fs_replace_file(path, t, strlen(t), err, errlen) < 0)
			n = -1;
		free(t);
	} else if (unlink(path) < 0 && errno != ENOENT) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		n = -1;
	}
	free(path);
	return n;
}
