#include "lab.h"
#include "testsupport.h"
#include "transport/transport.h"
#include "util/deadline.h"
#include "util/strbuf.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *lab_env_value(const char *dir, const char *key)
{
	char *path = xasprintf("%s/lab.env", dir);
	char *text = ts_read_file(path);
	char *value = NULL;
	free(path);
	if (!text)
		return NULL;
	size_t klen = strlen(key);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, key, klen) == 0 && line[klen] == '=') {
			value = xstrdup(line + klen + 1);
			break;
		}
	}
	free(text);
	return value;
}

struct lab *lab_up(const char *base, int boards, int dropbears, bool password)
{
	struct lab *lab = xcalloc(1, sizeof(*lab));
	char *out = NULL;
	/* sshd reads authorized_keys as the lab user: the path must be searchable. */
	ts_lab_script_dirs("lab", 0755, &lab->tmp, &lab->dir);
	lab->base = xstrdup(base);
	lab->boards = boards;
	lab->dropbears = dropbears;
	int rc = ts_run(&out, "%s/tests/lab/sshd-lab.sh up --dir '%s' --base %s --boards %d "
			"--dropbear %d --port %d%s", ORCH_SOURCE_DIR, lab->dir, base, boards,
			dropbears, LAB_PORT, password ? " --password" : "");
	if (rc != 0) {
		fprintf(stderr, "sshd-lab.sh up failed (%d):\n%s\n", rc, out ? out : "");
		free(out);
		lab_down(lab);
		return NULL;
	}
	free(out);
	lab->user = lab_env_value(lab->dir, "LAB_USER");
	lab->password = lab_env_value(lab->dir, "LAB_PASSWORD");
	lab->identity = xasprintf("%s/id_ed25519", lab->dir);
	lab->known_hosts = xasprintf("%s/known_hosts", lab->dir);
	lab->ssh_config = xasprintf("%s/ssh_config", lab->dir);
	return lab;
}

void lab_down(struct lab *lab)
{
	if (!lab)
		return;
	ts_lab_script_down("sshd-lab.sh", lab->dir);
	ts_rmrf(lab->tmp);
	TS_FREE(lab->tmp, lab->dir, lab->base, lab->user, lab->identity, lab->known_hosts,
		lab->ssh_config, lab->password, lab);
}

struct ssh_target lab_target(const struct lab *lab, enum lab_kind kind, int index)
{
	static char hosts[8][32];
	static int next;
	static char names[8][32];
	int slot = next++ % 8;
	int last = kind == LAB_OPENSSH ? index : kind == LAB_PASSWORD ? 100 : 199 + index;
	snprintf(hosts[slot], sizeof(hosts[slot]), "%s.%d", lab->base, last);
	snprintf(names[slot], sizeof(names[slot]), "%s%d",
		 kind == LAB_OPENSSH ? "board" : kind == LAB_PASSWORD ? "password" : "dropbear",
		 index);
	struct ssh_target t = {
		.name = names[slot],
		.host = hosts[slot],
		.port = LAB_PORT,
		.user = lab->user,
		.identity = kind == LAB_PASSWORD ? NULL : lab->identity,
		.password = kind == LAB_PASSWORD ? lab->password : NULL,
		.host_key = SSH_HOSTKEY_STRICT,
		.known_hosts = lab->known_hosts,
		.ssh_config = "",
		.connect_timeout_ms = 10000,
	};
	return t;
}

long lab_vm_kib(const char *field)
{
	char *text = ts_read_file("/proc/self/status");
	long v = -1;
	if (!text)
		return -1;
	size_t flen = strlen(field);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (strncmp(line, field, flen) == 0 && line[flen] == ':')
			v = strtol(line + flen + 1, NULL, 10);
	free(text);
	return v;
}

void lab_reset_hwm(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	if (f) {
		fputs("5", f);
		fclose(f);
	}
}

int lab_group_up(struct lab **lab, const char *base, int boards, int dropbears, bool password)
{
	*lab = NULL;
	ts_require_root(password ? "the ssh lab's user, password board" : "the ssh lab's user");
	*lab = lab_up(base, boards, dropbears, password);
	return *lab ? 0 : -1;
}

int lab_group_up_with(struct lab **lab, const char *var, const char *value, const char *base,
		      int boards, int dropbears, bool password)
{
	setenv(var, value, 1);
	int rc = lab_group_up(lab, base, boards, dropbears, password);
	unsetenv(var);
	return rc;
}

int lab_group_down(struct lab **lab)
{
	lab_down(*lab);
	*lab = NULL;
	return 0;
}

struct transport *lab_connect_or_fail(struct ssh_target t)
{
	char err[512] = "";
	struct transport *tr = transport_ssh_new(&t, err, sizeof(err));
	if (!tr)
		fail_msg("connect to %s: %s", t.name, err);
	return tr;
}

/* transport_exec's output callback: collects the first line and freezes
 * the shell's parent once it has both pids. */
static int lab_stall_on_output(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct lab_stall *s = ctx;
	if (stream != TRANSPORT_STDOUT || s->sshd)
		return 0;
	for (size_t i = 0; i < len && s->len + 1 < sizeof(s->head); i++)
		s->head[s->len++] = data[i];
	s->head[s->len] = '\0';
	int ppid = 0, pid = 0;
	if (strchr(s->head, '\n') && sscanf(s->head, "%d %d", &ppid, &pid) == 2 && ppid > 1) {
		s->sshd = (pid_t)ppid;
		s->shell = (pid_t)pid;
		kill(s->sshd, SIGSTOP);
	}
	return 0;
}

void lab_exec_stalled(struct transport *tr, const char *command, int timeout_ms,
		      struct lab_stall *s)
{
	struct transport_status st;
	struct transport_exec req = {
		.command = command, .timeout_ms = timeout_ms, .stdin_fd = -1,
		.on_output = lab_stall_on_output, .ctx = s,
	};
	int64_t t0 = clock_mono_ms();
	s->ret = transport_exec(tr, &req, &st, s->err, sizeof(s->err));
	s->took_ms = (long long)(clock_mono_ms() - t0);
	print_message("%s (%lld ms)\n", s->err, s->took_ms);
}

int lab_sessions_started(const struct lab *lab, int index)
{
	char *path = xasprintf("%s/board%d/daemon.log", lab->dir, index);
	char *log = ts_read_file(path);
	int n = 0;
	for (const char *p = log; p && (p = strstr(p, "Starting session: command")); p++)
		n++;
	TS_FREE(log, path);
	return n;
}

void lab_cut_sessions(const struct lab *lab, int index)
{
	ts_run(NULL, "c=$(pgrep -d, -P \"$(cat '%s/board%d/daemon.pid')\") && "
		     "pkill -KILL -P \"$c\" -u %s -f '^sshd: %s'",
	       lab->dir, index, lab->user, lab->user);
}

char *lab_write_inventory(const struct lab *lab, const char *dir, const char *name,
			  const char *ssh_keys, const char *rest_fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_printf(&sb, "defaults:\n  ssh: { user: %s, identity: %s, known_hosts: %s%s%s }\n",
		      lab->user, lab->identity, lab->known_hosts, ssh_keys ? ", " : "",
		      ssh_keys ? ssh_keys : "");
	va_list ap;
	va_start(ap, rest_fmt);
	strbuf_vprintf(&sb, rest_fmt, ap);
	va_end(ap);
	char *path = ts_write_file(dir, name, strbuf_str(&sb));
	strbuf_release(&sb);
	return path;
}
