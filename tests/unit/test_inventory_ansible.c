/*
 * An Ansible inventory read as it is (orch-inventory(5) ANSIBLE
 * INVENTORIES): YAML (all:, hosts:, vars:, children:) and INI ([g],
 * [g:vars], [g:children]), told apart without a flag; connection vars to
 * board keys, other vars to vars, groups to groups and tags, passwords
 * never kept; mistakes at their line:col in the Ansible file.
 */
#include "testsupport.h"
#include "ts_config.h"
#include "config/config.h"
#include "config/selector.h"

#include <stdlib.h>
#include <string.h>

#define INV "/lab/hosts"

static const char *var(const struct board *b, const char *name)
{
	const struct var *v = NULL;
	for (size_t i = 0; i < b->n_vars; i++)
		if (strcmp(b->vars[i].name, name) == 0)
			v = &b->vars[i];
	return v ? v->value : NULL;
}

static bool tagged(const struct board *b, const char *tag)
{
	for (size_t i = 0; i < b->n_tags; i++)
		if (strcmp(b->tags[i], tag) == 0)
			return true;
	return false;
}

/* The same lab in both forms; both must read the same. */
static const char ini[] =
	"# the lab\n"
	"localhost ansible_connection=local\n"
	"\n"
	"[rpis]\n"
	"rpi1 ansible_host=10.0.0.11 ansible_user=pi\n"
	"rpi2:2222 ansible_host=10.0.0.12   # the second one\n"
	"\n"
	"[arm:children]\n"
	"rpis\n"
	"\n"
	"[arm:vars]\n"
	"ansible_ssh_private_key_file=keys/id_lab\n"
	"toolchain = \"arm linux\"\n"
	"ansible_password=hunter2\n"
	"\n"
	"[all:vars]\n"
	"ansible_user=root\n"
	"ansible_port=2200\n"
	"site=lab\n";

static const char yaml[] =
	"all:\n"
	"  vars:\n"
	"    ansible_user: root\n"
	"    ansible_port: 2200\n"
	"    site: lab\n"
	"  hosts:\n"
	"    localhost: { ansible_connection: local }\n"
	"  children:\n"
	"    arm:\n"
	"      vars:\n"
	"        ansible_ssh_private_key_file: keys/id_lab\n"
	"        toolchain: arm linux\n"
	"        ansible_password: hunter2\n"
	"        packages: [a, b]\n"
	"      children:\n"
	"        rpis:\n"
	"          hosts:\n"
	"            rpi1: { ansible_host: 10.0.0.11, ansible_user: pi }\n"
	"            rpi2:2222:\n"
	"              ansible_host: 10.0.0.12\n";

static void check_lab(const struct inventory *inv)
{
	assert_int_equal(inv->n_boards, 3);
	const struct board *lh = inventory_find(inv, "localhost");
	const struct board *r1 = inventory_find(inv, "rpi1");
	const struct board *r2 = inventory_find(inv, "rpi2");
	assert_non_null(lh);
	assert_non_null(r1);
	assert_non_null(r2);
	assert_int_equal(lh->transport, TRANSPORT_KIND_LOCAL);
	assert_true(lh->local);
	assert_int_equal(r1->transport, TRANSPORT_KIND_SSH);
	assert_string_equal(r1->ssh.host, "10.0.0.11");
	assert_string_equal(r1->ssh.user, "pi");           /* host over group over all */
	assert_int_equal(r1->ssh.port, 2200);
	assert_string_equal(r1->ssh.identity, "/lab/keys/id_lab");
	assert_string_equal(r2->ssh.user, "root");
	assert_int_equal(r2->ssh.port, 2222);              /* NAME:PORT */
	assert_string_equal(var(r1, "toolchain"), "arm linux");
	assert_string_equal(var(r1, "site"), "lab");
	assert_null(var(r1, "ansible_password"));          /* never kept */
	assert_null(var(r1, "packages"));                  /* not a plain value */
	assert_true(tagged(r1, "arm") && tagged(r1, "rpis"));
	assert_false(tagged(lh, "arm"));
	assert_int_equal(inv->n_groups, 2);
	bool sel[3];
	char err[200];
	const char *s[] = { "arm" };
	assert_int_equal(selector_resolve(inv, s, 1, NULL, 0, sel, err, sizeof(err)), 0);
	assert_false(sel[0]);
	assert_true(sel[1] && sel[2]);
}

static void test_ini(void **state)
{
	struct inventory *inv = ts_inventory_ok(INV, ini);
	check_lab(inv);
	inventory_free(inv);
}

static void test_yaml(void **state)
{
	struct inventory *inv = ts_inventory_ok(INV, yaml);
	check_lab(inv);
	inventory_free(inv);
}

static void test_ini_errors(void **state)
{
	struct diag_list dl = ts_inventory_bad(INV, "[web\n"
						    "h1 ansible_port=abc\n"
						    "[web:hosts]\n"
						    "h2 stray\n"
						    "[web:vars]\n"
						    "novalue\n"
						    "[db]\n"
						    "h3 ansible_connection=docker\n");
	ts_diag_exact(&dl, 1, 5, "a section header needs its ']', found the end of the line");
	ts_diag_exact(&dl, 2, 17, "invalid number for 'port', found 'abc' (use 1..65535)");
	ts_diag_exact(&dl, 3, 6, "unknown section kind 'hosts' (use [GROUP], [GROUP:vars] or "
		  "[GROUP:children])");
	ts_diag_exact(&dl, 4, 4, "expected NAME=VALUE, found 'stray'");
	ts_diag_exact(&dl, 6, 1, "expected NAME=VALUE, found 'novalue'");
	ts_diag_exact(&dl, 8, 23, "ansible_connection 'docker' is not one orch has (ssh, paramiko, "
		  "smart or local)");
	diag_list_release(&dl);
}

static void test_yaml_errors(void **state)
{
	struct diag_list dl = ts_inventory_bad(INV, "all:\n"
						    "  children:\n"
						    "    web:\n"
						    "      host:\n"
						    "        w1:\n"
						    "      vars: [a]\n");
	ts_diag_exact(&dl, 4, 7, "unknown key 'host' in an Ansible group (did you mean 'hosts'?)");
	ts_diag_exact(&dl, 6, 13, "vars must be a mapping, found a list");
	diag_list_release(&dl);
}

/* An orch inventory with a group called all is still orch's. */
static void test_orch_not_ansible(void **state)
{
	struct diag_list dl = ts_inventory_bad(INV, "boards:\n  b: { local: true }\nall: {}\n");
	ts_diag_exact(&dl, 3, 1, "unknown key 'all' in the inventory");
	diag_list_release(&dl);
}

TS_MAIN(NULL, NULL, test_ini, test_yaml, test_ini_errors, test_yaml_errors, test_orch_not_ansible)
