#include "transport/console_lock.h"
#include "util/lock_dir.h"
#include "util/log.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* One console this process holds; handles are the entry itself, counted. */
struct console_lock {
	struct console_lock *next;
	char *key;                 /* real device path, or the URL */
	int refs;
	int fd;                    /* the flock'd descriptor */
	char *uucp[2];             /* UUCP files this process created */
};

static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static struct console_lock *held;

const char *console_lock_uucp_dir(void)
{
	struct stat st;
	if (stat("/var/lock", &st) == 0 && S_ISDIR(st.st_mode))
		return "/var/lock";
	if (stat("/run/lock", &st) == 0 && S_ISDIR(st.st_mode))
		return "/run/lock";
	return NULL;
}

/* "LCK..ttyUSB0" for /dev/ttyUSB0, "LCK..pts_3" for /dev/pts/3. */
static char *uucp_name(const char *dir, const char *dev)
{
	if (!strncmp(dev, "/dev/", 5))
		dev += 5;
	char *path = xasprintf("%s/LCK..%s", dir, dev);
	for (char *p = path + strlen(dir) + 1; *p; p++)
		if (*p == '/')
			*p = '_';
	return path;
}

/* The pid in a lock file: 10 ASCII digits (HDB) or a binary int (old
 * UUCP); 0 when unreadable, -1 when absent. */
static long read_pid_file(const char *path, time_t *mtime)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? -1 : 0;
	char buf[32];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	struct stat st;
	*mtime = fstat(fd, &st) == 0 ? st.st_mtime : 0;
	close(fd);
	if (n == 4 && strspn(buf, " 0123456789") < 4) {
		int bin;
		memcpy(&bin, buf, sizeof(bin));
		return bin;
	}
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *end;
	long pid = strtol(buf, &end, 10);
	return end != buf && pid > 0 && pid <= INT_MAX ? pid : 0;
}

static void busy_message(char *err, size_t errlen, const char *what, long pid,
			 const char *how)
{
	char *who = lock_dir_describe_pid((pid_t)pid);
	snprintf(err, errlen, "console %s is in use by %s (%s)", what, who, how);
	free(who);
}

/*
 * Creates the UUCP lock file path atomically (written beside it, then
 * link()ed), removing a stale one. 0 with *created set (NULL when the
 * folder is not writable for us: skipped), CONSOLE_LOCK_BUSY, or -1.
 */
static int uucp_take(const char *dir, const char *path, const char *what, char **created,
		     char *err, size_t errlen)
{
	static unsigned counter;
	*created = NULL;
	char *tmp = xasprintf("%s/LTMP.%ld.%u", dir, (long)getpid(),
			      __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
	int ret = -1;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == EACCES || errno == EPERM || errno == EROFS) {
			ret = 0;   /* no UUCP locking for this user, like picocom */
			goto out;
		}
		snprintf(err, errlen, "lock %s: cannot write in %s: %s", what, dir, strerror(errno));
		goto out;
	}
	char line[16];
	int n = snprintf(line, sizeof(line), "%10ld\n", (long)getpid());
	bool wrote = write(fd, line, (size_t)n) == n;
	close(fd);
	if (!wrote) {
		snprintf(err, errlen, "lock %s: cannot write %s", what, tmp);
		goto out;
	}
	for (int attempt = 0; attempt < 5; attempt++) {
		if (link(tmp, path) == 0) {
			*created = xstrdup(path);
			ret = 0;
			goto out;
		}
		if (errno != EEXIST) {
			snprintf(err, errlen, "lock %s: %s: %s", what, path, strerror(errno));
			goto out;
		}
		time_t mtime = 0;
		long pid = read_pid_file(path, &mtime);
		if (pid < 0)
			continue;   /* removed meanwhile */
		bool young = pid == 0 && time(NULL) - mtime < 2;   /* being written */
		if (young || (pid > 0 && pid != getpid() && lock_dir_pid_alive((pid_t)pid))) {
			if (young)
				snprintf(err, errlen, "console %s is being locked by another process "
					 "(lock file %s)", what, path);
			else
				busy_message(err, errlen, what, pid, path);
			ret = CONSOLE_LOCK_BUSY;
			goto out;
		}
		log_warn("removed a stale lock of %s: %s (pid %ld is gone)", what, path, pid);
		if (unlink(path) < 0 && errno != ENOENT) {
			snprintf(err, errlen, "lock %s: cannot remove stale %s: %s", what, path,
				 strerror(errno));
			goto out;
		}
	}
	snprintf(err, errlen, "lock %s: %s keeps changing", what, path);
out:
	unlink(tmp);
	free(tmp);
	return ret;
}

/* The pid holding a flock on the file behind fd, from /proc/locks; 0 if unknown. */
static long flock_holder(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return 0;
	char want[64];
	snprintf(want, sizeof(want), "%02x:%02x:%lu", major(st.st_dev), minor(st.st_dev),
		 (unsigned long)st.st_ino);
	FILE *f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	char line[256];
	long pid = 0;
	while (!pid && fgets(line, sizeof(line), f)) {
		char kind[16], dev[64];
		long p;
		if (strstr(line, "->"))
			continue;   /* a waiter, not the holder */
		if (sscanf(line, "%*d: %15s %*s %*s %ld %63s", kind, &p, dev) == 3 &&
		    !strcmp(kind, "FLOCK") && !strcmp(dev, want))
			pid = p;
	}
	fclose(f);
	return pid;
}

/* flock(LOCK_EX | LOCK_NB) on fd: 0, CONSOLE_LOCK_BUSY (holder named), or -1. */
static int flock_take(int fd, const char *what, const char *how, char *err, size_t errlen)
{
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK) {
		snprintf(err, errlen, "lock %s: flock: %s", what, strerror(errno));
		return -1;
	}
	long pid = flock_holder(fd);
	if (pid > 0)
		busy_message(err, errlen, what, pid, how);
	else
		snprintf(err, errlen, "console %s is in use by another process (%s)", what, how);
	return CONSOLE_LOCK_BUSY;
}

/* A counted handle when this process holds key already (held_mu held). */
static struct console_lock *find_held(const char *key)
{
	for (struct console_lock *l = held; l; l = l->next)
		if (!strcmp(l->key, key)) {
			l->refs++;
			return l;
		}
	return NULL;
}

static void add_held(struct console_lock *l)
{
	l->refs = 1;
	l->next = held;
	held = l;
}

static void free_entry(struct console_lock *l)
{
	for (size_t i = 0; i < 2; i++) {
		if (l->uucp[i])
			unlink(l->uucp[i]);
		free(l->uucp[i]);
	}
	if (l->fd >= 0)
		close(l->fd);
	free(l->key);
	free(l);
}

static int device_locks(struct console_lock *l, const char *path, char *err, size_t errlen)
{
	const char *dir = console_lock_uucp_dir();
	if (dir) {
		/* the real device and, when named through a link in /dev
		 * (/dev/serial/by-id/...), the link's name as ser2net locks it */
		bool link_in_dev = strcmp(path, l->key) && !strncmp(path, "/dev/", 5);
		const char *names[2] = { l->key, link_in_dev ? path : NULL };
		for (size_t i = 0; i < 2 && names[i]; i++) {
			char *file = uucp_name(dir, names[i]);
			int r = uucp_take(dir, file, path, &l->uucp[i], err, errlen);
			free(file);
			if (r < 0)
				return r;
		}
	}
	l->fd = open(l->key, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (l->fd < 0) {
		snprintf(err, errlen, "open %s: %s", path, strerror(errno));
		return -1;
	}
	return flock_take(l->fd, path, "flock on the device", err, errlen);
}

static int url_lock(struct console_lock *l, char *err, size_t errlen);

/* The lock this process already holds on KEY, or a new one: the device
 * locks of DEVICE, or (DEVICE NULL) the lock file of the URL KEY. */
static int take(const char *key, const char *device, struct console_lock **out, char *err,
		size_t errlen)
{
	pthread_mutex_lock(&held_mu);
	int ret = 0;
	if ((*out = find_held(key)) == NULL) {
		struct console_lock *l = xcalloc(1, sizeof(*l));
		l->key = xstrdup(key);
		l->fd = -1;
		ret = device ? device_locks(l, device, err, errlen) : url_lock(l, err, errlen);
		if (ret < 0) {
			free_entry(l);
		} else {
			add_held(l);
			*out = l;
		}
	}
	pthread_mutex_unlock(&held_mu);
	return ret;
}

int console_lock_device(const char *path, struct console_lock **out, char *err, size_t errlen)
{
	char real[PATH_MAX];
	*out = NULL;
	if (!realpath(path, real)) {
		snprintf(err, errlen, "open %s: %s", path, strerror(errno));
		return -1;
	}
	return take(real, path, out, err, errlen);
}

static int url_lock(struct console_lock *l, char *err, size_t errlen)
{
	char *dir = lock_dir_path(err, errlen);
	if (!dir)
		return -1;
	char *safe = xstrdup(l->key);
	for (char *p = safe; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-'))
			*p = '_';
	char *file = xasprintf("%s/console-%s.lock", dir, safe);
	int ret = -1;
	bool writable = true;
	l->fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (l->fd < 0 && errno == EACCES) {
		writable = false;
		l->fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (l->fd < 0) {
		snprintf(err, errlen, "lock %s: %s: %s", l->key, file, strerror(errno));
		goto out;
	}
	char *how = xasprintf("lock file %s", file);
	ret = flock_take(l->fd, l->key, how, err, errlen);
	free(how);
	if (ret == 0 && writable) {
		char line[16];
		int n = snprintf(line, sizeof(line), "%10ld\n", (long)getpid());
		if (ftruncate(l->fd, 0) < 0 || pwrite(l->fd, line, (size_t)n, 0) != n)
			log_warn("lock %s: cannot write the pid into %s", l->key, file);
	}
out:
	free(file);
	free(safe);
	free(dir);
	return ret;
}

int console_lock_url(const char *url, struct console_lock **out, char *err, size_t errlen)
{
	return take(url, NULL, out, err, errlen);
}

void console_lock_release(struct console_lock *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&held_mu);
	if (--l->refs == 0) {
		for (struct console_lock **pp = &held; *pp; pp = &(*pp)->next)
			if (*pp == l) {
				*pp = l->next;
				break;
			}
		free_entry(l);
	}
	pthread_mutex_unlock(&held_mu);
}
