#include "ts_orch.h"
#include "testsupport.h"
#include "ts_json.h"

#include "util/deadline.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *ts_orch_dir(const char *prefix)
{
	char *dir = ts_mkdtemp(prefix);
	chmod(dir, 0755);
	char *locks = xasprintf("%s/locks", dir);
	setenv("ORCH_LOCK_DIR", locks, 1);
	free(locks);
	return dir;
}

char *ts_write_scenario(const char *dir, const char *name, const char *text)
{
	char *file = xasprintf("%s.yaml", name);
	char *path = ts_write_file(dir, file, text);
	free(file);
	return path;
}

void ts_local_boards(struct strbuf *sb, const char *prefix, int width, int n)
{
	strbuf_puts(sb, "boards:\n");
	for (int i = 1; i <= n; i++)
		strbuf_printf(sb, "  %s%0*d: { local: true }\n", prefix, width, i);
}

char *ts_rack_dir(const char *prefix)
{
	char *dir = ts_mkdtemp(prefix);
	struct strbuf inv = STRBUF_INIT;
	strbuf_puts(&inv, "boards:\n");
	for (int b = 1; b <= TS_RACK_BOARDS; b++)
		strbuf_printf(&inv, "  b%d: { local: true, tags: [rack] }\n", b);
	free(ts_write_file(dir, "inventory.yaml", inv.buf));
	strbuf_release(&inv);
	return dir;
}

char *ts_rack_scenario(const char *dir, const char *name, const char *selector,
		       const char *defaults, const char *tests)
{
	char *text = xasprintf("name: %s\ninventory: rack.yaml\nboards: [\"%s\"]\n"
			       "defaults: { %s }\ntests:\n%s", name, selector, defaults, tests);
	char *path = ts_write_scenario(dir, name, text);
	free(text);
	return path;
}

json_t *ts_orch_results(const char *dir, const char *name)
{
	char *run_dir = xasprintf("%s/runs/%s/latest", dir, name);
	json_t *j = ts_json_load_in(run_dir, "results.json");
	free(run_dir);
	return j;
}

json_t *ts_orch_run(const char *dir, const char *name, const char *text, const char *opts,
		    int want_rc, char **out)
{
	char *sc = ts_write_scenario(dir, name, text);
	char *output = NULL;
	int rc = ts_run(&output, "%s run %s %s -o %s/runs 2>&1", ORCH_BIN, opts, sc, dir);
	free(sc);
	if (rc != want_rc)
		fail_msg("orch run %s exited %d, wanted %d:\n%s", name, rc, want_rc, output);
	if (out)
		*out = output;
	else
		free(output);
	return ts_orch_results(dir, name);
}

json_t *ts_orch_run_tests(const char *dir, const char *name, const char *boards,
			  const char *tests, const char *opts, int want_rc, char **out)
{
	char *text = xasprintf("name: %s\ninventory: inv.yaml\nboards: [%s]\ntests:\n%s", name,
			       boards, tests);
	json_t *res = ts_orch_run(dir, name, text, opts, want_rc, out);
	free(text);
	return res;
}

void ts_orch_cli_init(struct ts_orch_cli *c, const char *prefix, const char *extra)
{
	c->tmp = ts_mkdtemp(prefix);
	c->env = xasprintf("cd %s && ORCH_LOCK_DIR=%s/locks%s", c->tmp, c->tmp, extra);
}

void ts_orch_cli_release(struct ts_orch_cli *c)
{
	ts_rmrf(c->tmp);
	TS_FREE(c->tmp, c->env);
}

int ts_wait_exit(pid_t pid, int ms)
{
	int ws;
	for (int64_t dl = deadline_in_ms(ms); !deadline_expired(dl); usleep(10000)) {
		pid_t r = waitpid(pid, &ws, WNOHANG);
		if (r == pid)
			return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	}
	return -1;
}

char *ts_orch_want(int want, const char *prefix, const char *args)
{
	char *out = NULL;
	int rc = ts_run(&out, "%s %s %s 2>&1", prefix, ORCH_BIN, args);
	if (rc != want)
		fail_msg("orch %s: exit %d, wanted %d:\n%s", args, rc, want, out);
	return out;
}
