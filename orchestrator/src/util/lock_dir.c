#include "util/lock_dir.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 0 when dir exists (made if absent) and this user may create files in it. */
static int usable_dir(const char *dir, mode_t mode)
{
	if (mkdir(dir, mode) == 0)
		chmod(dir, mode);   /* past the umask */
	else if (errno != EEXIST)
		return -1;
	struct stat st;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return -1;
	return access(dir, W_OK | X_OK);
}

char *lock_dir_path(char *err, size_t errlen)
{
	const char *env = getenv("ORCH_LOCK_DIR");
	if (env && *env) {
		if (usable_dir(env, 0755) < 0) {
			snprintf(err, errlen, "lock folder %s (ORCH_LOCK_DIR): %s", env,
				 strerror(errno ? errno : EACCES));
			return NULL;
		}
		return xstrdup(env);
	}
	if (usable_dir("/run/lock/orch", 01777) == 0)
		return xstrdup("/run/lock/orch");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	if (xdg && *xdg) {
		char *d = xasprintf("%s/orch", xdg);
		if (usable_dir(d, 0700) == 0)
			return d;
		free(d);
	}
	char *d = xasprintf("/tmp/orch-locks-%u", (unsigned)getuid());
	if (usable_dir(d, 0700) == 0)
		return d;
	snprintf(err, errlen, "no usable lock folder (/run/lock/orch, $XDG_RUNTIME_DIR/orch, %s): "
		 "%s; set ORCH_LOCK_DIR", d, strerror(errno ? errno : EACCES));
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
