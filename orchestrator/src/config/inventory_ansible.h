#ifndef ORCH_CONFIG_INVENTORY_ANSIBLE_H
#define ORCH_CONFIG_INVENTORY_ANSIBLE_H
/*
 * An Ansible inventory, YAML (all:, hosts:, vars:, children:) or INI
 * ([group], [group:vars], [group:children], host NAME=VALUE...), read as
 * it is and turned into the tree of an orch inventory (defaults:,
 * groups:, boards:) whose nodes keep the places in the Ansible file, so
 * every later message points at the user's text (orch-inventory(5)
 * ANSIBLE INVENTORIES). all's vars become defaults:, every other group an
 * orch group tagged with its name, every host a board with an ssh:
 * section; ansible_host, ansible_port, ansible_user,
 * ansible_ssh_private_key_file and ansible_connection become board keys,
 * passwords are dropped, and other vars with a plain value become vars.
 * Private to config/.
 */
#include <stdbool.h>
#include <stddef.h>

#include "config/cfg_read.h"

/* Whether data reads as an INI inventory: its first line that is not
 * blank or a comment is a [section], or a host line (starts with a
 * letter, digit, '_' or '.' and has no ':'). */
bool ansible_ini_detect(const char *data, size_t len);
/* Whether root is an Ansible YAML inventory: a mapping with all: and
 * without boards:. */
bool ansible_yaml_detect(const struct ynode *root);
/* The orch tree (caller frees with ynode_free) of an Ansible YAML
 * document or INI text; problems are reported through c (INI syntax at
 * its line:col). Nodes name c->file, which must outlive the tree. */
struct ynode *ansible_from_yaml(struct cfg *c, const struct ynode *root);
struct ynode *ansible_from_ini(struct cfg *c, const char *data, size_t len);

/* What both readers collect (inventory_ansible.c, inventory_ansible_ini.c):
 * hosts and groups with their vars in file order; the nodes are borrowed
 * from the YAML tree or made by the INI reader (a->pool owns those). */
struct ansible_var {
	const struct ynode *key;
	const struct ynode *value;
};
struct ansible_host {
	const struct ynode *name;    /* without a ":PORT" suffix */
	struct ansible_var *vars;
	size_t n_vars;
};
struct ansible_group {
	const struct ynode *name;
	const struct ynode **hosts;  /* name nodes as written (":PORT" stripped) */
	size_t n_hosts;
	const struct ynode **children;
	size_t n_children;
	struct ansible_var *vars;
	size_t n_vars;
};
struct ansible_inv {
	struct ansible_host *hosts;
	size_t n_hosts;
	struct ansible_group *groups;
	size_t n_groups;
	struct ynode **pool;
	size_t n_pool;
};

/* A scalar node at file:line:col, owned by a->pool. */
struct ynode *ansible_scalar(struct ansible_inv *a, const char *file, int line, int col,
			     const char *value, size_t len);
/* The group called name->value (made on first use); an index into a->groups. */
size_t ansible_group(struct ansible_inv *a, const struct ynode *name);
/* Adds host name ("NAME" or "NAME:PORT") to group gi (SIZE_MAX: none);
 * returns the host's index. */
size_t ansible_add_host(struct cfg *c, struct ansible_inv *a, size_t gi, const struct ynode *name);
void ansible_add_var(struct ansible_var **v, size_t *n, const struct ynode *key,
		     const struct ynode *value);
/* The orch tree of what was collected; caller frees. */
struct ynode *ansible_emit(struct cfg *c, const struct ansible_inv *a, const struct ynode *at);
void ansible_inv_release(struct ansible_inv *a);

#endif
