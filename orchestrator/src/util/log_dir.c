/* The names of a test folder's files, and their opening for writers. */
#include "util/log_dir.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ATTEMPT_PREFIX "attempt-"
#define PART_SUFFIX ".part"

char *log_dir_role_log(const char *role, const char *board, bool is_stderr)
{
	const char *log = is_stderr ? LOG_DIR_STDERR : LOG_DIR_STDOUT;
	return board ? xasprintf("%s.%s.%s", role, board, log) : xasprintf("%s.%s", role, log);
}

char *log_dir_attempt(int n)
{
	return xasprintf(ATTEMPT_PREFIX "%d", n);
}

bool log_dir_is_attempt(const char *name)
{
	return strncmp(name, ATTEMPT_PREFIX, strlen(ATTEMPT_PREFIX)) == 0;
}

char *log_dir_part(const char *dest)
{
	return xasprintf("%s" PART_SUFFIX, dest);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Whether name (one component) is one of the folder's own names. */
static bool own_name(const char *name)
{
	static const char *const names[] = { LOG_DIR_RESULT, LOG_DIR_BOOT_LOG,
					     LOG_DIR_BOOT_RAW, LOG_DIR_PUSH_LOG };
	if (ends_with(name, LOG_DIR_STDOUT) || ends_with(name, LOG_DIR_STDERR) ||
	    log_dir_is_attempt(name))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

bool log_dir_reserved(const char *dest)
{
	while (dest[0] == '.' && dest[1] == '/')
		dest += 2;
	size_t n = strcspn(dest, "/");
	char *first = xstrndup(dest, n);
	bool bad = own_name(first);
	while (!bad && ends_with(first, PART_SUFFIX)) {
		n -= strlen(PART_SUFFIX);
		first[n] = '\0';
		bad = own_name(first);
	}
	free(first);
	return bad;
}

int log_dir_open(const char *dir, const char *name, enum log_dir_how how, char *err,
		 size_t errlen)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
	flags |= how == LOG_DIR_APPEND ? O_APPEND : O_TRUNC;
	mode_t mode = how == LOG_DIR_PRIVATE ? 0600 : 0644;
	char *path = fs_path_join(dir, name);
	int fd = open(path, flags, mode);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP)
			snprintf(err, errlen, "'%s' is a symbolic link, not a file orch writes", path);
		else
			snprintf(err, errlen, "cannot open '%s': %s", path, strerror(e));
		errno = e;
	}
	free(path);
	return fd;
}

FILE *log_dir_fopen(const char *dir, const char *name, enum log_dir_how how, char *err,
		    size_t errlen)
{
	int fd = log_dir_open(dir, name, how, err, errlen);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, how == LOG_DIR_APPEND ? "a" : "w");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "cannot open '%s/%s': %s", dir, name, strerror(e));
		close(fd);
		errno = e;
	}
	return f;
}
