#include "util/lock_dir.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include "util/fsutil.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether only the owners of dir's files can change them (see the
 * header); why says what is wrong when not. */
static bool records_safe(const char *dir, const struct stat *st, char *why, size_t len)
{
	if (st->st_uid != geteuid() && st->st_uid != 0) {
		char who[96];
		fs_owner_text(st->st_uid, who, sizeof(who));
		snprintf(why, len, "lock folder %s is owned by %s, not by you or root: its owner "
			 "could change the lock records in it", dir, who);
		return false;
	}
	if ((st->st_mode & 022) && !(st->st_mode & S_ISVTX)) {
		snprintf(why, len, "lock folder %s is writable by others (mode %04o) and not "
			 "sticky: anyone could replace the lock records in it (chmod +t)", dir,
			 (unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}

/* 0 when dir exists (made if absent), this user may create files in it and
 * its records are safe; -1 with why. */
static int usable_dir(const char *dir, mode_t mode, char *why, size_t len)
{
	if (mkdir(dir, mode) == 0)
		chmod(dir, mode);   /* past the umask */
	else if (errno != EEXIST)
		goto sys;
	struct stat st;
	if (stat(dir, &st) < 0)
		goto sys;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		goto sys;
	}
	if (!records_safe(dir, &st, why, len))
		return -1;
	if (access(dir, W_OK | X_OK) == 0)
		return 0;
sys:
	snprintf(why, len, "lock folder %s: %s", dir, strerror(errno ? errno : EACCES));
	return -1;
}

char *lock_dir_path(char *err, size_t errlen)
{
	char why[3][400];
	const char *env = getenv("ORCH_LOCK_DIR");
	if (env && *env) {
		if (usable_dir(env, 0755, why[0], sizeof(why[0])) < 0) {
			snprintf(err, errlen, "%s (ORCH_LOCK_DIR)", why[0]);
			return NULL;
		}
		return xstrdup(env);
	}
	if (usable_dir("/run/lock/orch", 01777, why[0], sizeof(why[0])) == 0)
		return xstrdup("/run/lock/orch");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	snprintf(why[1], sizeof(why[1]), "$XDG_RUNTIME_DIR is not set");
	if (xdg && *xdg) {
		char *d = xasprintf("%s/orch", xdg);
		if (usable_dir(d, 0700, why[1], sizeof(why[1])) == 0)
			return d;
		free(d);
	}
	char *d = xasprintf("/tmp/orch-locks-%u", (unsigned)getuid());
	if (usable_dir(d, 0700, why[2], sizeof(why[2])) == 0)
		return d;
	snprintf(err, errlen, "no usable lock folder (%s; %s; %s); set ORCH_LOCK_DIR", why[0],
		 why[1], why[2]);
	free(d);
	return NULL;
}

char *lock_dir_describe_pid(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[512];
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	if (n <= 0)
		return xasprintf("pid %ld", (long)pid);
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	buf[n] = '\0';
	return xasprintf("pid %ld (%s)", (long)pid, buf);
}

bool lock_dir_pid_alive(pid_t pid)
{
	if (pid <= 0)
		return false;
	return kill(pid, 0) == 0 || errno != ESRCH;
}
