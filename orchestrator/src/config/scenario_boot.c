/*
 * boot: (serial boot timing: trigger, base, phases) and transfer: (the SSH
 * transfer rate) of a test.
 */
#include "config/cfg_read.h"
#include "config/config.h"
#include "config/scenario_read.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char *const transfer_keys[] = { "size", "direction", "path", "ciphers", "macs",
					     NULL };
static const char *const direction_names[] = { "both", "up", "down", NULL };
static const char *const boot_keys[] = { "trigger", "timeout", "base", "phases", NULL };
static const char *const phase_keys[] = { "name", "until", "max", NULL };
static const char *const trigger_names[] = { "power-cycle", "reboot", "none", NULL };

/* path: a file name on the board, written as one shell word: no
 * newline, no NUL, not empty. */
static void read_transfer_path(struct cfg *c, const struct ynode *n, char **out)
{
	if (cfg_str(c, n, "path", out) <= 0)
		return;
	if (!**out || strchr(*out, '\n') || strchr(*out, '\r'))
		cfg_error(c, n, "transfer path must be a file name on the board, found '%s'",
			  **out ? *out : "");
}

/* transfer: SIZE, or { size: SIZE, direction: both|up|down, path: FILE,
 * ciphers: LIST, macs: LIST } */
void scenario_read_transfer(struct cfg *c, const struct ynode *n, struct transfer_spec *x)
{
	const struct ynode *size = n;
	int e = 0;
	x->bytes = 64ull << 20;
	if (n->kind == YNODE_MAP) {
		cfg_check_keys(c, n, transfer_keys, "transfer");
		size = ymap_get(n, "size");
		cfg_enum(c, ymap_get(n, "direction"), "direction", direction_names, &e);
		read_transfer_path(c, ymap_get(n, "path"), &x->path);
		cfg_ssh_algos(c, ymap_get(n, "ciphers"), CFG_SSH_CIPHERS, &x->ciphers);
		cfg_ssh_algos(c, ymap_get(n, "macs"), CFG_SSH_MACS, &x->macs);
	}
	x->up = e != 2;
	x->down = e != 1;
	if (size && cfg_size(c, size, "size", &x->bytes) > 0 &&
	    (x->bytes < 1 || x->bytes > (64ull << 30)))
		cfg_error(c, size, "transfer size must be from 1 byte to 64GiB");
}

void scenario_read_boot(struct cfg *c, const struct ynode *n, struct test *t)
{
	char f[96];
	struct boot_spec *b = &t->boot;
	int e;
	b->timeout_ms = t->timeout_ms;
	if (!cfg_want_map(c, n, "boot"))
		return;
	cfg_check_keys(c, n, boot_keys, "boot");
	if (cfg_enum(c, ymap_get(n, "trigger"), "trigger", trigger_names, &e) > 0)
		b->trigger = (enum boot_trigger)e;
	cfg_duration(c, ymap_get(n, "timeout"), "timeout", &b->timeout_ms);
	cfg_regex(c, ymap_get(n, "base"), "base", &b->base_src, &b->base);
	const struct ynode *ph = ymap_get(n, "phases");
	if (!ph) {
		cfg_error(c, n, "boot needs 'phases'");
		return;
	}
	if (!cfg_want_seq(c, ph, "phases"))
		return;
	if (ph->n == 0)
		cfg_error(c, ph, "boot needs at least one phase");
	b->phases = xcalloc(ph->n ? ph->n : 1, sizeof(*b->phases));
	for (size_t i = 0; i < ph->n; i++) {
		const struct ynode *m = ph->items[i];
		if (!cfg_want_map(c, m, "a boot phase"))
			continue;
		struct boot_phase *p = &b->phases[b->n_phases++];
		p->pos = cfg_pos(c, m);
		cfg_check_keys(c, m, phase_keys, "a boot phase");
		const struct ynode *name = ymap_get(m, "name");
		if (!name) {
			cfg_error(c, m, "boot phase needs a 'name'");
		} else if (cfg_str(c, name, "name", &p->name) > 0) {
			if (!cfg_safe_name(p->name))
				cfg_error(c, name,
					  "invalid phase name, found %s (use letters, digits, '.', '_', '-')",
					  cfg_found(name, f, sizeof(f)));
			for (size_t j = 0; j + 1 < b->n_phases; j++)
				if (b->phases[j].name && strcmp(b->phases[j].name, p->name) == 0)
					cfg_error(c, name, "duplicate boot phase %s",
						  cfg_found(name, f, sizeof(f)));
		}
		const struct ynode *until = ymap_get(m, "until");
		if (!until)
			cfg_error(c, m, "boot phase needs 'until'");
		else
			cfg_regex(c, until, "until", &p->until_src, &p->until);
		cfg_duration(c, ymap_get(m, "max"), "max", &p->max_ms);
	}
}

