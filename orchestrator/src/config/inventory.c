/*
 * inventory_load(): an inventory file (boards/NAME.yaml) -> struct inventory.
 *
 * `defaults:` takes every key a board takes. Plain values (workdir, arch,
 * tags, local, transport, controllers) apply to every board that does not set them;
 * section values (ssh, serial, power) are merged key by key into the boards
 * that have that section (`ssh: {}` takes the defaults as they are), so a
 * default ssh user does not give an ssh connection to a serial-only or a
 * local board. The board's own value always wins.
 */
#include "config/cfg_read.h"
#include "config/config.h"
#include "config/inventory_ansible.h"
#include "config/inventory_groups.h"
#include "config/substitute.h"
#include "config/vars.h"
#include "util/fsutil.h"
#include "util/secret.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const board_keys[] = { "arch", "tags", "local", "workdir", "transport",
					  "controllers", "ssh", "serial", "power", "vars", "health",
					  "offline_after", NULL };
static const char *const group_keys[] = { "boards", "children", "arch", "tags", "local",
					  "workdir", "transport", "controllers", "ssh", "serial",
					  "power", "vars", "health", "offline_after", NULL };
static const char *const top_keys[] = { "defaults", "groups", "boards", NULL };
static const char *const ssh_keys[] = { "host", "port", "user", "identity", "password_env",
					"host_key", "known_hosts", "connect_timeout", "ciphers",
					"send_window", "runner", NULL };
static const char *const serial_keys[] = { "port", "usb", "url", "baud", "data_bits", "parity",
					   "stop_bits", "flow", "user", "login_user",
					   "password_env", "char_delay", NULL };
static const char *const power_keys[] = { "on", "off", "cycle", NULL };
static const char *const host_key_names[] = { "strict", "accept-new", "off", NULL };
static const char *const parity_names[] = { "none", "odd", "even", NULL };
static const char *const flow_names[] = { "none", "rtscts", "xonxoff", NULL };
static const char *const transport_names[] = { "ssh", "serial", "local", "none", NULL };

/* A board while it is being read: the model plus what was written where. */
struct draft {
	struct board b;
	int transport;                    /* -1: not written */
	const struct ynode *transport_at;
	bool ssh_given, serial_given, power_given;  /* by one of its groups */
	char **group_tags;                /* its groups' tags, added to its own */
	size_t n_group_tags;
};

static void ssh_release(struct board_ssh *s)
{
	free(s->host);
	free(s->user);
	free(s->identity);
	free(s->password_env);
	free(s->known_hosts);
	free(s->ciphers);
	memset(s, 0, sizeof(*s));
}

static void serial_release(struct board_serial *s)
{
	free(s->port);
	free(s->usb);
	free(s->url);
	free(s->login_user);
	free(s->password_env);
	memset(s, 0, sizeof(*s));
}

static void power_release(struct board_power *p)
{
	free(p->on);
	free(p->off);
	free(p->cycle);
	memset(p, 0, sizeof(*p));
}

static void health_unref(struct board_health *h)
{
	if (!h || --h->refs > 0)
		return;
	for (size_t i = 0; i < h->n_checks; i++)
		scenario_test_release(&h->checks[i]);
	free(h->checks);
	free(h);
}

/* health: a check (a map, as a scenario's test), or a list of them; into
 * a new board_health replacing *out. */
static void read_health(struct cfg *c, const struct ynode *n, struct board_health **out)
{
	if (ynode_is_null(n))
		return;
	if (n->kind != YNODE_SEQ && n->kind != YNODE_MAP) {
		cfg_error(c, n, "'health' takes a check or a list of checks, each a test as in a "
			  "scenario (name and run:, boot: or bench:)");
		return;
	}
	struct board_health *h = xcalloc(1, sizeof(*h));
	h->refs = 1;
	size_t k = n->kind == YNODE_SEQ ? n->n : 1;
	h->checks = xcalloc(k ? k : 1, sizeof(*h->checks));
	for (size_t i = 0; i < k; i++) {
		const struct ynode *m = n->kind == YNODE_SEQ ? n->items[i] : n;
		if (!cfg_want_map(c, m, "a health check"))
			continue;
		scenario_read_check(c, m, &h->checks[h->n_checks++]);
	}
	health_unref(*out);
	*out = h;
}

static void board_release(struct board *b)
{
	health_unref(b->health);
	free(b->name);
	free(b->arch);
	cfg_strv_free(b->tags, b->n_tags);
	cfg_strv_free(b->controllers, b->n_controllers);
	free(b->workdir);
	ssh_release(&b->ssh);
	serial_release(&b->serial);
	power_release(&b->power);
	cfg_vars_free(b->vars, b->n_vars);
	cfg_strv_free(b->groups, b->n_groups);
	memset(b, 0, sizeof(*b));
}

static void board_init(struct board *b)
{
	memset(b, 0, sizeof(*b));
	b->ssh.host_key = HOST_KEY_STRICT;
	b->ssh.connect_timeout_ms = 10000;
	b->ssh.send_window = BOARD_SSH_SEND_WINDOW_DEFAULT;
	b->serial.baud = 115200;
	b->serial.data_bits = 8;
	b->serial.stop_bits = 1;
}

/* A deep copy of the template's settings (not its name or place). */
static void board_copy(struct board *dst, const struct board *src)
{
	*dst = *src;
	dst->name = NULL;
	dst->arch = xstrdup(src->arch);
	dst->tags = xcalloc(src->n_tags ? src->n_tags : 1, sizeof(char *));
	for (size_t i = 0; i < src->n_tags; i++)
		dst->tags[i] = xstrdup(src->tags[i]);
	dst->controllers = xcalloc(src->n_controllers ? src->n_controllers : 1, sizeof(char *));
	for (size_t i = 0; i < src->n_controllers; i++)
		dst->controllers[i] = xstrdup(src->controllers[i]);
	dst->workdir = xstrdup(src->workdir);
	dst->ssh.host = xstrdup(src->ssh.host);
	dst->ssh.user = xstrdup(src->ssh.user);
	dst->ssh.identity = xstrdup(src->ssh.identity);
	dst->ssh.password_env = xstrdup(src->ssh.password_env);
	dst->ssh.known_hosts = xstrdup(src->ssh.known_hosts);
	dst->ssh.ciphers = xstrdup(src->ssh.ciphers);
	dst->serial.port = xstrdup(src->serial.port);
	dst->serial.usb = xstrdup(src->serial.usb);
	dst->serial.url = xstrdup(src->serial.url);
	dst->serial.login_user = xstrdup(src->serial.login_user);
	dst->serial.password_env = xstrdup(src->serial.password_env);
	dst->power.on = xstrdup(src->power.on);
	dst->power.off = xstrdup(src->power.off);
	dst->power.cycle = xstrdup(src->power.cycle);
	dst->vars = NULL;
	dst->n_vars = 0;
	dst->groups = NULL;
	dst->n_groups = 0;
	cfg_vars_copy(&dst->vars, &dst->n_vars, src->vars, src->n_vars);
	if (dst->health)
		dst->health->refs++;
}

static bool env_name_ok(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/* password_env: the variable is taken into the secret table as soon as it
 * is read (util/secret.h), so that even an inventory with errors has its
 * password masked in the messages about them, and no child inherits it. */
static void read_password_env(struct cfg *c, const struct ynode *n, const char *key,
			      char **out)
{
	char *v = NULL;
	char f[96];
	if (cfg_str(c, n, key, &v) <= 0)
		return;
	if (!env_name_ok(v)) {
		cfg_error(c, n, "invalid environment variable name for '%s', found %s", key,
			  cfg_found(n, f, sizeof(f)));
		free(v);
		return;
	}
	secret_take(v);
	free(*out);
	*out = v;
}

/* Whether a path was read into *out. */
static bool read_path(struct cfg *c, const struct ynode *n, const char *key, const char *dir,
		      char **out)
{
	char *v = NULL;
	char f[96];
	if (cfg_str(c, n, key, &v) <= 0)
		return false;
	if (v[0] == '~' && v[1] != '/' && v[1] != '\0') {
		cfg_error(c, n, "'%s' only expands '~/', found %s", key, cfg_found(n, f, sizeof(f)));
		free(v);
		return false;
	}
	free(*out);
	*out = fs_resolve_path(v, dir);
	free(v);
	return true;
}

static bool hex_field(const char *s, size_t len)
{
	if (len < 1 || len > 4)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* "VID:PID" or "VID:PID:SERIAL" with 1-4 hex digits each. */
static bool usb_ok(const char *s)
{
	const char *c1 = strchr(s, ':');
	if (!c1 || !hex_field(s, (size_t)(c1 - s)))
		return false;
	const char *c2 = strchr(c1 + 1, ':');
	size_t pid_len = c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1);
	if (!hex_field(c1 + 1, pid_len))
		return false;
	return !c2 || (c2[1] != '\0');
}

/* "tcp://host:port" or "rfc2217://host:port"; host may be "[v6]". */
static bool url_ok(const char *s, const char **why)
{
	const char *rest;
	if (strncmp(s, "tcp://", 6) == 0) {
		rest = s + 6;
	} else if (strncmp(s, "rfc2217://", 10) == 0) {
		rest = s + 10;
	} else {
		*why = "use tcp://HOST:PORT or rfc2217://HOST:PORT";
		return false;
	}
	const char *colon;
	if (*rest == '[') {
		const char *close = strchr(rest, ']');
		if (!close || close == rest + 1 || close[1] != ':') {
			*why = "expected [ADDRESS]:PORT";
			return false;
		}
		colon = close + 1;
	} else {
		colon = strrchr(rest, ':');
		if (!colon || colon == rest) {
			*why = "expected HOST:PORT";
			return false;
		}
		for (const char *p = rest; p < colon; p++)
			if (*p == '/' || *p == ':' || isspace((unsigned char)*p)) {
				*why = "expected HOST:PORT";
				return false;
			}
	}
	const char *port = colon + 1;
	long v = 0;
	if (!*port || strlen(port) > 5) {
		*why = "port must be 1..65535";
		return false;
	}
	for (const char *p = port; *p; p++) {
		if (!isdigit((unsigned char)*p)) {
			*why = "port must be 1..65535";
			return false;
		}
		v = v * 10 + (*p - '0');
	}
	if (v < 1 || v > 65535) {
		*why = "port must be 1..65535";
		return false;
	}
	return true;
}

/* send_window: a size ("384KiB", "1M"), or 0 / "off" for the board's whole window. */
static void read_send_window(struct cfg *c, const struct ynode *n, int64_t *out)
{
	char *v = NULL;
	if (!n || cfg_str(c, n, "send_window", &v) <= 0)
		return;
	uint64_t bytes = 0;
	if (strcmp(v, "off") == 0)
		*out = 0;
	else if (units_parse_size(v, &bytes) == 0 && bytes <= (1u << 30) &&
		 (bytes == 0 || bytes >= 32768))
		*out = (int64_t)bytes;
	else
		cfg_error(c, n, "'send_window' must be a size from 32KiB to 1GiB, or 0 or off, "
			  "found '%s'", v);
	free(v);
}

/* A host or user that begins with '-' is an option to ssh and its kin
 * ("-oProxyCommand=..."), whatever orch itself makes of it. */
#define DASH_WHY "(ssh would take it for an option)"

static void read_ssh_name(struct cfg *c, const struct ynode *n, const char *key, char **out)
{
	if (cfg_str(c, n, key, out) > 0 && (*out)[0] == '-')
		cfg_error(c, n, "'%s' must not begin with '-' " DASH_WHY ", found '%s'", key, *out);
}

static void read_ssh(struct cfg *c, const struct ynode *m, const char *dir, struct board_ssh *s)
{
	int e;
	if (!cfg_want_map(c, m, "ssh"))
		return;
	cfg_check_keys(c, m, ssh_keys, "ssh");
	read_ssh_name(c, ymap_get(m, "host"), "host", &s->host);
	cfg_int(c, ymap_get(m, "port"), "port", 1, 65535, &s->port);
	read_ssh_name(c, ymap_get(m, "user"), "user", &s->user);
	if (read_path(c, ymap_get(m, "identity"), "identity", dir, &s->identity))
		s->identity_pos = cfg_pos(c, ymap_get(m, "identity"));
	read_password_env(c, ymap_get(m, "password_env"), "password_env", &s->password_env);
	if (cfg_enum(c, ymap_get(m, "host_key"), "host_key", host_key_names, &e) > 0)
		s->host_key = (enum host_key_policy)e;
	read_path(c, ymap_get(m, "known_hosts"), "known_hosts", dir, &s->known_hosts);
	cfg_duration(c, ymap_get(m, "connect_timeout"), "connect_timeout", &s->connect_timeout_ms);
	cfg_ssh_algos(c, ymap_get(m, "ciphers"), CFG_SSH_CIPHERS, &s->ciphers);
	read_send_window(c, ymap_get(m, "send_window"), &s->send_window);
	bool runner = !s->no_runner;
	if (cfg_bool(c, ymap_get(m, "runner"), "runner", &runner) > 0)
		s->no_runner = !runner;
}

/* char_delay: "500us", "2ms", "0"; at most 10 s. */
static void read_char_delay(struct cfg *c, const struct ynode *n, int64_t *us)
{
	char f[96];
	char *v = NULL;
	if (cfg_str(c, n, "char_delay", &v) <= 0)
		return;
	size_t len = strlen(v);
	int64_t ms;
	if (len > 2 && strcmp(v + len - 2, "us") == 0) {
		char *end;
		long long x = strtoll(v, &end, 10);
		if (end == v + len - 2 && x >= 0 && x <= 10000000 && isdigit((unsigned char)v[0])) {
			*us = x;
			goto out;
		}
	} else if (strcmp(v, "0") == 0) {
		*us = 0;
		goto out;
	} else if (units_parse_duration_ms(v, &ms) == 0 && ms <= 10000) {
		*us = ms * 1000;
		goto out;
	}
	cfg_error(c, n, "invalid duration for 'char_delay', found %s (use 500us, 2ms)",
		  cfg_found(n, f, sizeof(f)));
out:
	free(v);
}

static void read_serial(struct cfg *c, const struct ynode *m, const char *dir,
			struct board_serial *s)
{
	char f[96];
	int e;
	const char *why = NULL;
	if (!cfg_want_map(c, m, "serial"))
		return;
	cfg_check_keys(c, m, serial_keys, "serial");
	read_path(c, ymap_get(m, "port"), "port", dir, &s->port);
	char *usb = NULL;
	const struct ynode *n = ymap_get(m, "usb");
	if (cfg_str(c, n, "usb", &usb) > 0) {
		if (!usb_ok(usb)) {
			cfg_error(c, n, "invalid value for 'usb', found %s (use VID:PID or VID:PID:SERIAL, hex)",
				  cfg_found(n, f, sizeof(f)));
			free(usb);
		} else {
			free(s->usb);
			s->usb = usb;
		}
	}
	char *url = NULL;
	n = ymap_get(m, "url");
	if (cfg_str(c, n, "url", &url) > 0) {
		if (!url_ok(url, &why)) {
			cfg_error(c, n, "invalid value for 'url', found %s (%s)",
				  cfg_found(n, f, sizeof(f)), why);
			free(url);
		} else {
			free(s->url);
			s->url = url;
		}
	}
	cfg_int(c, ymap_get(m, "baud"), "baud", 50, 16000000, &s->baud);
	cfg_int(c, ymap_get(m, "data_bits"), "data_bits", 5, 8, &s->data_bits);
	if (cfg_enum(c, ymap_get(m, "parity"), "parity", parity_names, &e) > 0)
		s->parity = (enum serial_parity)e;
	cfg_int(c, ymap_get(m, "stop_bits"), "stop_bits", 1, 2, &s->stop_bits);
	if (cfg_enum(c, ymap_get(m, "flow"), "flow", flow_names, &e) > 0)
		s->flow = (enum serial_flow)e;
	cfg_str(c, ymap_get(m, "user"), "user", &s->login_user);
	if (ymap_get(m, "user") && ymap_get(m, "login_user"))
		cfg_error(c, ymap_key(m, "login_user"), "'login_user' is another name for 'user'; use one");
	else
		cfg_str(c, ymap_get(m, "login_user"), "login_user", &s->login_user);
	read_password_env(c, ymap_get(m, "password_env"), "password_env", &s->password_env);
	read_char_delay(c, ymap_get(m, "char_delay"), &s->char_delay_us);
}

static void read_power(struct cfg *c, const struct ynode *m, struct board_power *p)
{
	if (!cfg_want_map(c, m, "power"))
		return;
	cfg_check_keys(c, m, power_keys, "power");
	cfg_str(c, ymap_get(m, "on"), "on", &p->on);
	cfg_str(c, ymap_get(m, "off"), "off", &p->off);
	cfg_str(c, ymap_get(m, "cycle"), "cycle", &p->cycle);
}

/* Reads what map sets into d (a board or the defaults), over what d holds. */
static void read_board_fields(struct cfg *c, const struct ynode *m, const char *dir, struct draft *d)
{
	const struct ynode *n;
	char f[96];
	int e;

	cfg_str(c, ymap_get(m, "arch"), "arch", &d->b.arch);
	cfg_vars(c, ymap_get(m, "vars"), "vars", false, &d->b.vars, &d->b.n_vars);
	n = ymap_get(m, "tags");
	if (cfg_str_list(c, n, "tags", &d->b.tags, &d->b.n_tags, NULL) > 0) {
		for (size_t i = 0; i < d->b.n_tags; i++)
			if (!cfg_safe_name(d->b.tags[i]))
				cfg_error(c, n->kind == YNODE_SEQ ? n->items[i] : n,
					  "invalid tag name, found %s (use letters, digits, '.', '_', '-')",
					  cfg_found(n->kind == YNODE_SEQ ? n->items[i] : n, f, sizeof(f)));
	}
	cfg_bool(c, ymap_get(m, "local"), "local", &d->b.local);
	n = ymap_get(m, "controllers");
	if (cfg_str_list(c, n, "controllers", &d->b.controllers, &d->b.n_controllers, NULL) > 0) {
		for (size_t i = 0; i < d->b.n_controllers; i++)
			if (!d->b.controllers[i][0])
				cfg_error(c, n->kind == YNODE_SEQ ? n->items[i] : n,
					  "a controller name must not be empty");
	}
	n = ymap_get(m, "workdir");
	if (cfg_str(c, n, "workdir", &d->b.workdir) > 0 && d->b.workdir[0] == '\0')
		cfg_error(c, n, "'workdir' must not be empty");
	n = ymap_get(m, "transport");
	if (cfg_enum(c, n, "transport", transport_names, &e) > 0) {
		d->transport = e;
		d->transport_at = n;
	}
	if ((n = ymap_get(m, "ssh")) && !ynode_is_null(n))
		read_ssh(c, n, dir, &d->b.ssh);
	if ((n = ymap_get(m, "serial")) && !ynode_is_null(n))
		read_serial(c, n, dir, &d->b.serial);
	if ((n = ymap_get(m, "power")) && !ynode_is_null(n))
		read_power(c, n, &d->b.power);
	if ((n = ymap_get(m, "health")))
		read_health(c, n, &d->b.health);
	cfg_int(c, ymap_get(m, "offline_after"), "offline_after", 0, 1000, &d->b.offline_after);
}

/* A power command's substitutions made as they will be when it runs, so
 * an unknown field or a var the board lacks is found at load. */
static void check_power_command(struct cfg *c, const struct ynode *key, const struct ynode *m,
				const struct board *b, const char *what, const char *cmd)
{
	if (!cmd)
		return;
	const struct ynode *at = ymap_get(m, "power");
	at = at && ymap_get(at, what) ? ymap_get(at, what) : key;
	struct vars_ctx vc = { NULL, b };
	struct subst_env env = { .board = b, .lookup = vars_lookup, .lookup_ctx = &vc };
	char err[256];
	char *expanded = substitute(cmd, &env, err, sizeof(err));
	if (!expanded)
		cfg_error(c, at, "power %s command of board '%s': %s", what, b->name, err);
	free(expanded);
}

static void finish_board(struct cfg *c, const struct ynode *key, const struct ynode *m,
			 struct draft *d)
{
	struct board *b = &d->b;
	const struct ynode *ssh_n = ymap_get(m, "ssh");
	const struct ynode *serial_n = ymap_get(m, "serial");

	b->ssh.present = ssh_n != NULL || d->ssh_given;
	b->serial.present = serial_n != NULL || d->serial_given;
	if (!serial_n)
		serial_n = key;
	if (!b->ssh.present) {
		ssh_release(&b->ssh);
	} else if (!b->ssh.known_hosts) {
		b->ssh.known_hosts = fs_resolve_path("~/.ssh/known_hosts", NULL);
	}
	if (!b->serial.present) {
		serial_release(&b->serial);
	} else {
		int n_dev = (b->serial.port != NULL) + (b->serial.usb != NULL) + (b->serial.url != NULL);
		if (n_dev == 0)
			cfg_error(c, serial_n, "serial of board '%s' needs one of 'port', 'usb' or 'url'",
				  b->name);
		else if (n_dev > 1)
			cfg_error(c, serial_n,
				  "serial of board '%s' has more than one of 'port', 'usb' and 'url'",
				  b->name);
		if (!b->serial.login_user)
			b->serial.login_user = xstrdup("root");
	}
	if (!ymap_get(m, "power") && !d->power_given)
		power_release(&b->power);
	if (!b->workdir)
		b->workdir = xstrdup("/tmp/orch");

	if (d->transport < 0) {
		b->transport = b->ssh.present ? TRANSPORT_KIND_SSH
			       : b->local     ? TRANSPORT_KIND_LOCAL
			       : b->serial.present ? TRANSPORT_KIND_SERIAL
						   : TRANSPORT_KIND_NONE;
	} else {
		b->transport = (enum board_transport)d->transport;
		if (b->transport == TRANSPORT_KIND_SSH && !b->ssh.present)
			cfg_error(c, d->transport_at, "board '%s' has transport 'ssh' but no ssh section",
				  b->name);
		else if (b->transport == TRANSPORT_KIND_SERIAL && !b->serial.present)
			cfg_error(c, d->transport_at,
				  "board '%s' has transport 'serial' but no serial section", b->name);
		else if (b->transport == TRANSPORT_KIND_LOCAL)
			b->local = true;
	}
	if (b->transport == TRANSPORT_KIND_SSH && !b->ssh.host && b->name[0] == '-')
		cfg_error(c, key, "board '%s' has no ssh 'host', and its name, the host then, begins "
			  "with '-' " DASH_WHY "; give 'host'", b->name);
	check_power_command(c, key, m, b, "on", b->power.on);
	check_power_command(c, key, m, b, "off", b->power.off);
	check_power_command(c, key, m, b, "cycle", b->power.cycle);
}

/* Puts group map's settings over d, reporting nothing (each group's
 * errors were reported once, when it was read); its tags go aside, to be
 * added to the board's own. */
static void apply_group(const struct cfg *c, const struct ynode *m, const char *dir,
			struct draft *d)
{
	struct diag_list quiet = DIAG_LIST_INIT;
	struct cfg qc = { c->file, &quiet, 0 };
	char **own = d->b.tags;
	size_t n_own = d->b.n_tags;
	d->b.tags = NULL;
	d->b.n_tags = 0;
	read_board_fields(&qc, m, dir, d);
	for (size_t i = 0; i < d->b.n_tags; i++) {
		d->group_tags = xrealloc(d->group_tags, (d->n_group_tags + 1) * sizeof(char *));
		d->group_tags[d->n_group_tags++] = d->b.tags[i];
	}
	free(d->b.tags);
	d->b.tags = own;
	d->b.n_tags = n_own;
	d->ssh_given = d->ssh_given || ymap_get(m, "ssh");
	d->serial_given = d->serial_given || ymap_get(m, "serial");
	d->power_given = d->power_given || ymap_get(m, "power");
	diag_list_release(&quiet);
}

/* The board's own tags (else the defaults'), then its groups' not yet there. */
static void add_group_tags(struct draft *d)
{
	for (size_t i = 0; i < d->n_group_tags; i++) {
		bool have = false;
		for (size_t k = 0; k < d->b.n_tags && !have; k++)
			have = strcmp(d->b.tags[k], d->group_tags[i]) == 0;
		if (have) {
			free(d->group_tags[i]);
			continue;
		}
		d->b.tags = xrealloc(d->b.tags, (d->b.n_tags + 1) * sizeof(char *));
		d->b.tags[d->b.n_tags++] = d->group_tags[i];
	}
	free(d->group_tags);
	d->group_tags = NULL;
	d->n_group_tags = 0;
}

/* Each group's own settings, read once so that their errors are reported once. */
static void check_groups(struct cfg *c, const struct inv_groups *gs, const struct draft *tmpl,
			 struct inventory *inv)
{
	inv->groups = xcalloc(gs->n + 1, sizeof(char *));
	for (size_t i = 0; i < gs->n; i++) {
		inv->groups[inv->n_groups++] = xstrdup(gs->g[i].key->value);
		if (!gs->g[i].map)
			continue;
		cfg_check_keys(c, gs->g[i].map, group_keys, "a group");
		struct draft d = *tmpl;
		board_copy(&d.b, &tmpl->b);
		read_board_fields(c, gs->g[i].map, inv->dir, &d);
		board_release(&d.b);
	}
}

/* A board: the defaults, then its groups in order, then its own keys. */
static void read_board(struct cfg *c, const struct ynode *key, const struct ynode *m,
		       const struct draft *tmpl, const struct inv_groups *gs, struct inventory *inv)
{
	char f[96];
	struct draft d = *tmpl;
	board_copy(&d.b, &tmpl->b);
	d.b.name = xstrdup(key->value);
	d.b.pos = cfg_pos(c, key);
	if (!cfg_safe_name(key->value))
		cfg_error(c, key, "invalid board name, found %s (use letters, digits, '.', '_', '-')",
			  cfg_found(key, f, sizeof(f)));
	else if (strcmp(key->value, "all") == 0 || strcmp(key->value, "each") == 0)
		cfg_error(c, key, "board name '%s' is reserved for selectors", key->value);
	if (ynode_is_null(m)) {
		m = NULL;
	} else if (!cfg_want_map(c, m, "a board")) {
		board_release(&d.b);
		return;
	}
	size_t n_in = 0;
	size_t *in = inv_groups_of(gs, key->value, &n_in);
	d.b.groups = xcalloc(n_in + 1, sizeof(char *));
	for (size_t i = 0; i < n_in; i++) {
		d.b.groups[d.b.n_groups++] = xstrdup(gs->g[in[i]].key->value);
		if (gs->g[in[i]].map)
			apply_group(c, gs->g[in[i]].map, inv->dir, &d);
	}
	free(in);
	if (m) {
		cfg_check_keys(c, m, board_keys, "a board");
		read_board_fields(c, m, inv->dir, &d);
	}
	add_group_tags(&d);
	finish_board(c, key, m, &d);
	inv->boards[inv->n_boards++] = d.b;
}

static int load_tree(struct cfg *c, const struct ynode *root, struct inventory *inv)
{
	struct draft tmpl = { .transport = -1 };
	struct inv_groups gs = { 0 };
	board_init(&tmpl.b);

	if (!root || ynode_is_null(root)) {
		cfg_error(c, NULL, "empty inventory (expected 'boards:')");
		goto out;
	}
	if (!cfg_want_map(c, root, "an inventory"))
		goto out;
	cfg_check_keys(c, root, top_keys, "the inventory");
	const struct ynode *defs = ymap_get(root, "defaults");
	if (defs && !ynode_is_null(defs) && cfg_want_map(c, defs, "defaults")) {
		cfg_check_keys(c, defs, board_keys, "defaults");
		read_board_fields(c, defs, inv->dir, &tmpl);
	}
	const struct ynode *boards = ymap_get(root, "boards");
	if (!boards || ynode_is_null(boards)) {
		cfg_error(c, boards ? boards : root, "no boards in the inventory (expected 'boards:')");
		goto out;
	}
	if (!cfg_want_map(c, boards, "boards"))
		goto out;
	inv_groups_read(c, ymap_get(root, "groups"), boards, &gs);
	check_groups(c, &gs, &tmpl, inv);
	inv->boards = xcalloc(boards->n ? boards->n : 1, sizeof(*inv->boards));
	for (size_t i = 0; i < boards->n; i++)
		read_board(c, boards->pairs[i].key, boards->pairs[i].value, &tmpl, &gs, inv);
	if (boards->n == 0)
		cfg_error(c, boards, "no boards in the inventory");
out:
	inv_groups_release(&gs);
	board_release(&tmpl.b);
	return cfg_failed(c) ? -1 : 0;
}

static int load(const char *path, const char *data, size_t len, struct inventory **out,
		struct diag_list *diags)
{
	struct ynode *root = NULL;
	struct inventory *inv = xcalloc(1, sizeof(*inv));
	inv->path = xstrdup(path);
	inv->dir = fs_dirname(path);
	struct cfg c = { inv->path, diags, diags->n };
	char *own = NULL;
	int rc = data ? 0 : ytree_read_file(inv->path, &own, &len, diags);
	if (own)
		data = own;
	if (rc == 0 && ansible_ini_detect(data, len)) {
		root = ansible_from_ini(&c, data, len);
	} else if (rc == 0) {
		rc = ytree_parse(inv->path, data, len, &root, diags);
		if (rc == 0 && ansible_yaml_detect(root)) {
			struct ynode *orch = ansible_from_yaml(&c, root);
			ynode_free(root);
			root = orch;
		}
	}
	if (rc == 0)
		rc = load_tree(&c, root, inv);
	ynode_free(root);
	free(own);
	cfg_sort_errors(&c);
	if (rc < 0 || cfg_failed(&c)) {
		inventory_free(inv);
		*out = NULL;
		return -1;
	}
	*out = inv;
	return 0;
}

int inventory_load(const char *path, struct inventory **out, struct diag_list *diags)
{
	return load(path, NULL, 0, out, diags);
}

int inventory_load_buffer(const char *name, const char *data, size_t len, struct inventory **out,
			  struct diag_list *diags)
{
	return load(name, data ? data : "", len, out, diags);
}

void inventory_free(struct inventory *inv)
{
	if (!inv)
		return;
	for (size_t i = 0; i < inv->n_boards; i++)
		board_release(&inv->boards[i]);
	free(inv->boards);
	cfg_strv_free(inv->groups, inv->n_groups);
	free(inv->path);
	free(inv->dir);
	free(inv);
}

const struct board *inventory_find(const struct inventory *inv, const char *name)
{
	for (size_t i = 0; inv && name && i < inv->n_boards; i++)
		if (strcmp(inv->boards[i].name, name) == 0)
			return &inv->boards[i];
	return NULL;
}
