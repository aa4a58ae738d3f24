/*
 * config_to_json(): the resolved model for run.json. Only names and paths
 * leave here: password_env is the name of a variable, never its value,
 * and a password a scenario spells out (an echo, a login) shows "***".
 */
#include "config/config.h"
#include "util/secret.h"

#include <stdlib.h>
#include <string.h>

static const char *const host_key_str[] = { "strict", "accept-new", "off" };
static const char *const parity_str[] = { "none", "odd", "even" };
static const char *const flow_str[] = { "none", "rtscts", "xonxoff" };
static const char *const transport_str[] = { "ssh", "serial", "local", "none" };
static const char *const kind_str[] = { "run", "bench", "boot", "steps", "transfer" };
static const char *const trigger_str[] = { "power-cycle", "reboot", "none" };

/* Sets key to a string, or null for NULL. */
/* A JSON string of v with every known secret masked; NULL for NULL. */
static json_t *masked_string(const char *v)
{
	json_t *out = NULL;
	char *copy = v ? strdup(v) : NULL;
	if (!copy)
		goto out;
	secret_mask(copy);
	out = json_string(copy);
out:
	free(copy);
	return out;
}

/* Sets key to a string (secrets masked), or null for NULL. */
static void set_str(json_t *o, const char *key, const char *v)
{
	json_t *s = masked_string(v);
	json_object_set_new(o, key, s ? s : json_null());
}

static json_t *strv(char *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, masked_string(v[i]));
	return a;
}

static json_t *board_json(const struct board *b)
{
	json_t *o = json_object();
	set_str(o, "name", b->name);
	set_str(o, "arch", b->arch);
	json_object_set_new(o, "tags", strv(b->tags, b->n_tags));
	if (b->n_groups)
		json_object_set_new(o, "groups", strv(b->groups, b->n_groups));
	json_object_set_new(o, "local", json_boolean(b->local));
	set_str(o, "workdir", b->workdir);
	set_str(o, "transport", transport_str[b->transport]);
	if (b->ssh.present) {
		json_t *s = json_object();
		set_str(s, "host", b->ssh.host ? b->ssh.host : b->name);
		json_object_set_new(s, "port", b->ssh.port ? json_integer(b->ssh.port) : json_null());
		set_str(s, "user", b->ssh.user);
		set_str(s, "identity", b->ssh.identity);
		set_str(s, "password_env", b->ssh.password_env);
		set_str(s, "host_key", host_key_str[b->ssh.host_key]);
		set_str(s, "known_hosts", b->ssh.known_hosts);
		json_object_set_new(s, "connect_timeout_ms", json_integer(b->ssh.connect_timeout_ms));
		json_object_set_new(o, "ssh", s);
	}
	if (b->serial.present) {
		json_t *s = json_object();
		set_str(s, "port", b->serial.port);
		set_str(s, "usb", b->serial.usb);
		set_str(s, "url", b->serial.url);
		json_object_set_new(s, "baud", json_integer(b->serial.baud));
		json_object_set_new(s, "data_bits", json_integer(b->serial.data_bits));
		set_str(s, "parity", parity_str[b->serial.parity]);
		json_object_set_new(s, "stop_bits", json_integer(b->serial.stop_bits));
		set_str(s, "flow", flow_str[b->serial.flow]);
		set_str(s, "user", b->serial.login_user);
		set_str(s, "password_env", b->serial.password_env);
		json_object_set_new(s, "char_delay_us", json_integer(b->serial.char_delay_us));
		json_object_set_new(o, "serial", s);
	}
	if (b->power.on || b->power.off || b->power.cycle) {
		json_t *p = json_object();
		set_str(p, "on", b->power.on);
		set_str(p, "off", b->power.off);
		set_str(p, "cycle", b->power.cycle);
		json_object_set_new(o, "power", p);
	}
	return o;
}

static json_t *test_json(const struct test *t)
{
	json_t *o = json_object();
	set_str(o, "name", t->name);
	set_str(o, "kind", kind_str[t->kind]);
	if (t->run)
		set_str(o, "run", t->run);
	if (t->bench) {
		set_str(o, "bench", t->bench);
		json_object_set_new(o, "args", strv(t->args, t->n_args));
	}
	if (t->parse)
		set_str(o, "parse", t->parse);
	json_object_set_new(o, "repeat", t->repeat_auto ? json_string("auto") : json_integer(t->repeat));
	if (t->repeat_auto)
		json_object_set_new(o, "repeat_max", json_integer(t->repeat_max));
	json_object_set_new(o, "timeout_ms", json_integer(t->timeout_ms));
	if (t->n_metrics) {
		json_t *a = json_array();
		for (size_t i = 0; i < t->n_metrics; i++) {
			const struct metric_spec *m = &t->metrics[i];
			json_t *mo = m->bench_override
				? json_pack("{s:s?}", "name", m->name)
				: json_pack("{s:s?, s:s?, s:s?, s:s}", "name", m->name, "regex",
					    m->regex_src, "unit", m->unit, "better",
					    m->better == BETTER_LOWER ? "lower" : "higher");
			if (m->has_threshold)
				json_object_set_new(mo, "threshold_pct", json_real(m->threshold_pct));
			if (m->rate_bytes)
				json_object_set_new(mo, "rate_of_bytes", json_integer((json_int_t)m->rate_bytes));
			json_array_append_new(a, mo);
		}
		json_object_set_new(o, "metrics", a);
	}
	if (t->n_expects) {
		json_t *e = json_object();
		for (size_t i = 0; i < t->n_expects; i++) {
			const struct expectation *x = &t->expects[i];
			json_t *b = json_object();
			if (x->has_min)
				json_object_set_new(b, "min", json_real(x->min));
			if (x->has_max)
				json_object_set_new(b, "max", json_real(x->max));
			set_str(b, "unit", x->unit);
			json_object_set_new(e, x->metric, b);
		}
		json_object_set_new(o, "expect", e);
	}
	if (t->kind == TEST_BOOT) {
		json_t *b = json_object();
		set_str(b, "trigger", trigger_str[t->boot.trigger]);
		json_object_set_new(b, "timeout_ms", json_integer(t->boot.timeout_ms));
		set_str(b, "base", t->boot.base_src);
		json_t *a = json_array();
		for (size_t i = 0; i < t->boot.n_phases; i++) {
			const struct boot_phase *p = &t->boot.phases[i];
			json_array_append_new(a, json_pack("{s:s?, s:s?, s:I}", "name", p->name, "until",
							   p->until_src, "max_ms", (json_int_t)p->max_ms));
		}
		json_object_set_new(b, "phases", a);
		json_object_set_new(o, "boot", b);
	}
	if (t->kind == TEST_TRANSFER)
		json_object_set_new(o, "transfer",
				    json_pack("{s:I, s:s, s:s?, s:s?, s:s?}", "bytes",
					      (json_int_t)t->transfer.bytes,
					      "direction", t->transfer.up && t->transfer.down ? "both"
					      : t->transfer.up ? "up" : "down", "path", t->transfer.path,
					      "ciphers", t->transfer.ciphers, "macs", t->transfer.macs));
	if (t->kind == TEST_MULTI) {
		json_t *r = json_object();
		for (size_t i = 0; i < t->n_roles; i++)
			set_str(r, t->roles[i].name, t->roles[i].selector);
		json_object_set_new(o, "roles", r);
		json_t *a = json_array();
		for (size_t i = 0; i < t->n_steps; i++) {
			const struct step *s = &t->steps[i];
			json_t *so = json_object();
			set_str(so, "on", s->on);
			if (s->run)
				set_str(so, "run", s->run);
			if (s->bench) {
				set_str(so, "bench", s->bench);
				json_object_set_new(so, "args", strv(s->args, s->n_args));
			}
			json_object_set_new(so, "background", json_boolean(s->background));
			if (s->ready_src) {
				set_str(so, "ready", s->ready_src);
				json_object_set_new(so, "ready_timeout_ms", json_integer(s->ready_timeout_ms));
			}
			json_object_set_new(so, "timeout_ms", json_integer(s->timeout_ms));
			if (s->parse)
				set_str(so, "parse", s->parse);
			json_array_append_new(a, so);
		}
		json_object_set_new(o, "steps", a);
	}
	return o;
}

json_t *config_to_json(const struct scenario *sc, const struct inventory *inv,
		       const bool *selected)
{
	json_t *root = json_object();
	if (sc) {
		json_t *s = json_object();
		set_str(s, "path", sc->path);
		set_str(s, "name", sc->name);
		set_str(s, "inventory", sc->inventory_path);
		json_object_set_new(s, "boards", strv(sc->board_selectors, sc->n_board_selectors));
		json_object_set_new(s, "defaults", json_pack("{s:I, s:i}", "timeout_ms",
							      (json_int_t)sc->default_timeout_ms,
							      "repeat", sc->default_repeat));
		set_str(s, "baseline", sc->baseline);
		json_object_set_new(s, "threshold_pct", json_real(sc->threshold_pct));
		json_t *tests = json_array();
		for (size_t i = 0; i < sc->n_tests; i++)
			json_array_append_new(tests, test_json(&sc->tests[i]));
		json_object_set_new(s, "tests", tests);
		json_object_set_new(root, "scenario", s);
	}
	if (inv) {
		json_t *o = json_object();
		set_str(o, "path", inv->path);
		json_t *boards = json_array();
		for (size_t i = 0; i < inv->n_boards; i++) {
			json_t *b = board_json(&inv->boards[i]);
			if (selected)
				json_object_set_new(b, "selected", json_boolean(selected[i]));
			json_array_append_new(boards, b);
		}
		json_object_set_new(o, "boards", boards);
		json_object_set_new(root, "inventory", o);
	}
	return root;
}
