#include "testsupport.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *ts_mkdtemp(const char *prefix)
{
	const char *base = getenv("ORCH_TEST_TMP");
	if (!base || !*base)
		base = "/tmp";
	mkdir(base, 0755);
	char *tmpl = xasprintf("%s/%s-XXXXXX", base, prefix);
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "mkdtemp %s: %s\n", tmpl, strerror(errno));
		abort();
	}
	return tmpl;
}

void ts_rmrf(const char *dir)
{
	if (!dir || (strncmp(dir, "/tmp/", 5) != 0 && !strstr(dir, "/tmp/")))
		return;
	ts_run(NULL, "rm -rf '%s'", dir);
}

char *ts_write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		abort();
	}
	fputs(text, f);
	fclose(f);
	return path;
}

char *ts_read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_append(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb);
}

bool ts_file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int ts_run(char **output, const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	strbuf_puts(&cmd, " 2>&1");
	FILE *p = popen(strbuf_str(&cmd), "r");
	strbuf_release(&cmd);
	if (!p)
		return -1;
	struct strbuf out = STRBUF_INIT;
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		if (out.len < (1u << 20))
			strbuf_append(&out, buf, n);
	int status = pclose(p);
	if (output)
		*output = strbuf_detach(&out);
	else
		strbuf_release(&out);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

bool ts_is_root(void)
{
	return geteuid() == 0;
}
