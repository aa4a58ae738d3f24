#include "lock/board_lock.h"
#include "util/deadline.h"
#include "util/board_token.h"
#include "util/fsutil.h"
#include "util/lock_dir.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_SUFFIX ".lock"
#define RESERVED_SUFFIX ".reserved"

char *board_lock_dir(char *err, size_t errlen)
{
	return lock_dir_path(err, errlen);
}

static void copy_clean(char *dst, size_t len, const char *src)
{
	size_t i = 0;
	for (; src && src[i] && i + 1 < len; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? ' ' : src[i];
	dst[i] = '\0';
}

void board_holder_self(struct board_holder *h, const char *board, const char *note)
{
	memset(h, 0, sizeof(*h));
	copy_clean(h->board, sizeof(h->board), board);
	/* getpwuid_r: workers take their boards' locks at the same time */
	struct passwd pwd, *pw = NULL;
	char buf[1024];
	if (getpwuid_r(getuid(), &pwd, buf, sizeof(buf), &pw) != 0)
		pw = NULL;
	const char *user = pw ? pw->pw_name : getenv("USER");
	copy_clean(h->user, sizeof(h->user), user ? user : "?");
	if (gethostname(h->host, sizeof(h->host) - 1) < 0)
		snprintf(h->host, sizeof(h->host), "?");
	h->pid = (long)getpid();
	h->since_us = clock_wall_us();
	copy_clean(h->note, sizeof(h->note), note);
	snprintf(h->where, sizeof(h->where), "local");
}

void board_holder_describe(const struct board_holder *h, char *buf, size_t len)
{
	char since[40], until[48] = "";
	clock_format_iso8601(h->since_us, since, sizeof(since));
	if (h->expires_us) {
		char t[40];
		clock_format_iso8601(h->expires_us, t, sizeof(t));
		snprintf(until, sizeof(until), " until %s", t);
	}
	if (h->reservation)
		snprintf(buf, len, "%s@%s, reserved since %s%s%s%s%s", h->user, h->host, since,
			 until, h->note[0] ? " (" : "", h->note, h->note[0] ? ")" : "");
	else
		snprintf(buf, len, "%s@%s pid %ld since %s%s%s%s", h->user, h->host, h->pid, since,
			 h->note[0] ? " (" : "", h->note, h->note[0] ? ")" : "");
}

void board_holder_format(const struct board_holder *h, char *buf, size_t len)
{
	char since[40];
	clock_format_iso8601(h->since_us, since, sizeof(since));
	snprintf(buf, len,
		 "board=%s\nuser=%s\nhost=%s\npid=%ld\nsince=%s\nsince_us=%" PRId64
		 "\nexpires_us=%" PRId64 "\nnote=%s\n%s%s%s",
		 h->board, h->user, h->host, h->pid, since, h->since_us, h->expires_us, h->note,
		 h->token[0] ? "token=" : "", h->token, h->token[0] ? "\n" : "");
}

int board_holder_parse(const char *text, struct board_holder *h)
{
	memset(h, 0, sizeof(*h));
	bool have_pid = false;
	while (text && *text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)n, text);
		char *eq = strchr(line, '=');
		if (eq) {
			*eq++ = '\0';
			if (!strcmp(line, "board"))
				copy_clean(h->board, sizeof(h->board), eq);
			else if (!strcmp(line, "user"))
				copy_clean(h->user, sizeof(h->user), eq);
			else if (!strcmp(line, "host"))
				copy_clean(h->host, sizeof(h->host), eq);
			else if (!strcmp(line, "note"))
				copy_clean(h->note, sizeof(h->note), eq);
			else if (!strcmp(line, "token") && board_token_ok(eq))
				copy_clean(h->token, sizeof(h->token), eq);
			else if (!strcmp(line, "pid"))
				have_pid = sscanf(eq, "%ld", &h->pid) == 1;
			else if (!strcmp(line, "since_us"))
				sscanf(eq, "%" SCNd64, &h->since_us);
			else if (!strcmp(line, "expires_us"))
				sscanf(eq, "%" SCNd64, &h->expires_us);
		}
		text = nl ? nl + 1 : text + n;
	}
	return have_pid && h->user[0] ? 0 : -1;
}

static char *board_file(const char *dir, const char *board, const char *suffix)
{
	char *safe = fs_safe_name(board);
	char *path = xasprintf("%s/board-%s%s", dir, safe, suffix);
	free(safe);
	return path;
}

static int read_holder_fd(int fd, struct board_holder *h)
{
	char buf[2048];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return board_holder_parse(buf, h);
}

static int read_holder_file(const char *path, struct board_holder *h)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int ret = read_holder_fd(fd, h);
	close(fd);
	return ret;
}

/* A reservation of board that has not expired, in *h; expired ones are
 * removed (the caller holds the board's flock). */
static bool reservation_live(const char *dir, const char *board, struct board_holder *h)
{
	char *path = board_file(dir, board, RESERVED_SUFFIX);
	bool live = read_holder_file(path, h) == 0;
	if (live && h->expires_us && h->expires_us <= clock_wall_us()) {
		unlink(path);
		live = false;
	}
	if (live) {
		h->reservation = true;
		snprintf(h->where, sizeof(h->where), "local");
		copy_clean(h->board, sizeof(h->board), board);
	}
	free(path);
	return live;
}

/* Whether the record in the lock file st describes can only have been
 * written by a run of this user or root: theirs, and writable by no one
 * else (a file of an older orch is 0666). When not, why says so. */
static bool record_trusted(const struct stat *st, char *why, size_t len)
{
	if (st->st_uid != geteuid() && st->st_uid != 0) {
		struct passwd pwd, *pw = NULL;
		char buf[1024];
		if (getpwuid_r(st->st_uid, &pwd, buf, sizeof(buf), &pw) != 0)
			pw = NULL;
		snprintf(why, len, "it is owned by %s%s(uid %u), not by you or root",
			 pw ? pw->pw_name : "", pw ? " " : "", (unsigned)st->st_uid);
		return false;
	}
	if (st->st_mode & 022) {
		snprintf(why, len, "others could write it (mode %04o)", (unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}

/* The board's lock file, created 0644 (only its owner writes records;
 * others may still flock it read-only), never through a symbolic link,
 * and only a regular file. *trusted: whether the record in it may be
 * believed (record_trusted; why in untrusted). */
static int open_lock(const char *dir, const char *board, bool *trusted, char *untrusted,
		     size_t ulen, char *err, size_t errlen)
{
	char *path = board_file(dir, board, LOCK_SUFFIX);
	int flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	int fd = open(path, O_RDWR | O_CREAT | flags, 0644);
	if (fd < 0 && errno == EACCES)
		fd = open(path, O_RDONLY | flags);
	struct stat st;
	if (fd < 0 && errno == ELOOP)
		snprintf(err, errlen, "board lock %s is a symbolic link: refused (a lock file is "
			 "never followed elsewhere)", path);
	else if (fd < 0)
		snprintf(err, errlen, "board lock %s: %s", path, strerror(errno));
	else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "board lock %s is not a regular file: refused", path);
		close(fd);
		fd = -1;
	} else {
		*trusted = record_trusted(&st, untrusted, ulen);
		if (st.st_uid == geteuid() && (st.st_mode & 022))
			fchmod(fd, 0644);   /* an older orch's 0666: ours again from now on */
	}
	free(path);
	return fd;
}

/* flock(LOCK_EX|LOCK_NB) on fd; when it is held, the holder. A holder
 * that has not written its name yet (or `orch who` peeking with a shared
 * lock) gets a few short retries. */
static int lock_or_holder(int fd, const char *board, struct board_holder *holder)
{
	for (int tries = 0;; tries++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return BOARD_LOCK_ERROR;
		if (read_holder_fd(fd, holder) == 0 || tries >= 10) {
			if (!holder->user[0]) {
				board_holder_self(holder, board, "holder not written yet");
				snprintf(holder->user, sizeof(holder->user), "?");
				holder->pid = 0;
			}
			copy_clean(holder->board, sizeof(holder->board), board);
			snprintf(holder->where, sizeof(holder->where), "local");
			return BOARD_LOCK_HELD;
		}
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* The board's lock file opened into *fd (-1 when it cannot be) and locked:
 * 0, BOARD_LOCK_HELD with its holder, or BOARD_LOCK_ERROR with err set. */
static int take_lock(const char *dir, const char *board, int *fd, struct board_holder *holder,
		     bool *trusted, char *untrusted, size_t ulen, char *err, size_t errlen)
{
	memset(holder, 0, sizeof(*holder));
	*fd = open_lock(dir, board, trusted, untrusted, ulen, err, errlen);
	if (*fd < 0)
		return BOARD_LOCK_ERROR;
	int ret = lock_or_holder(*fd, board, holder);
	if (ret == BOARD_LOCK_ERROR)
		snprintf(err, errlen, "board lock for %s: %s", board, strerror(errno));
	return ret;
}

/* The record of a holder that died holding board, read from fd (locked by
 * us) into *previous, or previous->token "" when there is none or it is
 * not to be believed: a record only this user or root could have written
 * (trusted), of this board, with a token made for this board. A record
 * that is there but not believed is said as a warning: nothing it names
 * is stopped. */
static void read_previous(int fd, const char *dir, const char *board, bool trusted,
			  const char *untrusted, struct board_holder *previous)
{
	if (read_holder_fd(fd, previous) < 0 || !previous->token[0]) {
		memset(previous, 0, sizeof(*previous));
		return;
	}
	char why[200], want[sizeof(previous->board)];
	snprintf(why, sizeof(why), "%s", untrusted);
	copy_clean(want, sizeof(want), board);
	if (trusted && strcmp(previous->board, want))
		snprintf(why, sizeof(why), "it names board '%s'", previous->board);
	else if (trusted && !board_token_of(previous->token, board))
		snprintf(why, sizeof(why), "its token is not one made for this board");
	else if (trusted)
		return;
	char *path = board_file(dir, board, LOCK_SUFFIX);
	log_warn("%s: the record of an earlier run in %s is not trusted (%s): nothing it names "
		 "is stopped", board, path, why);
	free(path);
	memset(previous, 0, sizeof(*previous));
}

/* board_lock_try; with own_ok, a live reservation of this user does not
 * refuse. */
static int try_lock(const char *dir, const char *board, const char *note, bool own_ok,
		    const char *token, int *fd_out, struct board_holder *holder,
		    struct board_holder *previous, char *err, size_t errlen)
{
	int fd;
	struct board_holder self;
	board_holder_self(&self, board, note);
	memset(previous, 0, sizeof(*previous));
	bool trusted = false;
	char untrusted[160] = "";
	int ret = take_lock(dir, board, &fd, holder, &trusted, untrusted, sizeof(untrusted), err,
			    errlen);
	if (ret == 0)
		read_previous(fd, dir, board, trusted, untrusted, previous);
	if (ret == 0 && reservation_live(dir, board, holder) &&
	    !(own_ok && !strcmp(holder->user, self.user)))
		ret = BOARD_LOCK_HELD;
	if (ret != 0) {
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (token)
		copy_clean(self.token, sizeof(self.token), token);
	char text[1024];
	board_holder_format(&self, text, sizeof(text));
	if (ftruncate(fd, 0) == 0 && pwrite(fd, text, strlen(text), 0) < 0) {
		/* a read-only lock file (another user's): the lock holds all the same */
	}
	*fd_out = fd;
	return 0;
}

int board_lock_try(const char *dir, const char *board, const char *note, const char *token,
		   int *fd_out, struct board_holder *holder, struct board_holder *previous,
		   char *err, size_t errlen)
{
	return try_lock(dir, board, note, false, token, fd_out, holder, previous, err, errlen);
}

int board_lock_try_person(const char *dir, const char *board, const char *note, int *fd_out,
			  struct board_holder *holder, char *err, size_t errlen)
{
	struct board_holder previous;
	return try_lock(dir, board, note, true, NULL, fd_out, holder, &previous, err, errlen);
}

void board_lock_release(int fd)
{
	if (fd < 0)
		return;
	if (ftruncate(fd, 0) < 0) {
		/* read-only: nothing was written */
	}
	close(fd);
}

int board_lock_reserve(const char *dir, const char *board, int64_t expires_us, const char *note,
		      struct board_holder *holder, char *err, size_t errlen)
{
	int fd;
	bool trusted;
	char untrusted[160];
	int ret = take_lock(dir, board, &fd, holder, &trusted, untrusted, sizeof(untrusted), err,
			    errlen);
	if (fd < 0)
		return ret;
	struct board_holder self;
	board_holder_self(&self, board, note);
	self.expires_us = expires_us;
	if (ret == 0 && reservation_live(dir, board, holder) && strcmp(holder->user, self.user))
		ret = BOARD_LOCK_HELD;
	if (ret == 0) {
		char text[1024];
		board_holder_format(&self, text, sizeof(text));
		char *path = board_file(dir, board, RESERVED_SUFFIX);
		if (fs_replace_file(path, text, strlen(text), err, errlen) < 0)
			ret = BOARD_LOCK_ERROR;
		else
			chmod(path, 0644);
		free(path);
	}
	close(fd);
	return ret;
}

int board_lock_unreserve(const char *dir, const char *board, bool *had, char *err, size_t errlen)
{
	char *path = board_file(dir, board, RESERVED_SUFFIX);
	int ret = 0;
	*had = unlink(path) == 0;
	if (!*had && errno != ENOENT) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		ret = BOARD_LOCK_ERROR;
	}
	free(path);
	return ret;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a > b && !strcmp(s + a - b, suffix);
}

/* A running holder of the lock file at path, if there is one. */
static bool lock_held(const char *path, struct board_holder *h)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	if (held && read_holder_fd(fd, h) < 0) {
		memset(h, 0, sizeof(*h));
		snprintf(h->user, sizeof(h->user), "?");
	}
	close(fd);
	return held;
}

long board_lock_list(const char *dir, struct board_holder **out, char *err, size_t errlen)
{
	*out = NULL;
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "lock folder %s: %s", dir, strerror(errno));
		return -1;
	}
	size_t n = 0, cap = 0;
	struct board_holder *list = NULL;
	for (struct dirent *e; (e = readdir(d));) {
		if (strncmp(e->d_name, "board-", 6))
			continue;
		bool lock = ends_with(e->d_name, LOCK_SUFFIX);
		bool res = ends_with(e->d_name, RESERVED_SUFFIX);
		if (!lock && !res)
			continue;
		struct board_holder h;
		memset(&h, 0, sizeof(h));
		char *path = fs_path_join(dir, e->d_name);
		bool live = lock ? lock_held(path, &h) : read_holder_file(path, &h) == 0;
		free(path);
		if (res && live && h.expires_us && h.expires_us <= clock_wall_us())
			live = false;
		if (!live)
			continue;
		h.reservation = res;
		snprintf(h.where, sizeof(h.where), "local");
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			list = xrealloc(list, cap * sizeof(*list));
		}
		list[n++] = h;
	}
	closedir(d);
	*out = list;
	return (long)n;
}
