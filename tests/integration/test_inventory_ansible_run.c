/*
 * A run against real sshd boards (tests/lab/sshd-lab.sh on 127.0.225.x)
 * whose inventory is an Ansible inventory as a lab has it, INI and YAML:
 * hosts reached through ansible_host/ansible_port/ansible_user/
 * ansible_ssh_private_key_file and the known_hosts of
 * ansible_ssh_common_args, a group's boards selected by its name, group
 * and host vars in the commands, passwords never in the run folder.
 */
#include "testsupport.h"
#include "lab.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LAB_BASE "127.0.225"

static struct lab *lab;
static char *dir;

static int setup(void **state)
{
	if (lab_group_up(&lab, LAB_BASE, 3, 0, false) < 0)
		return -1;
	dir = ts_mkdtemp("inventory-ansible");
	chmod(dir, 0755);
	char *locks = xasprintf("%s/locks", dir);
	mkdir(locks, 0755);
	setenv("ORCH_LOCK_DIR", locks, 1);
	free(locks);
	unsetenv("ORCH_INVENTORY");
	return 0;
}

static int teardown(void **state)
{
	lab_group_down(&lab);
	return ts_rmrf_free(&dir);
}

static const char scenario[] =
	"name: %s\n"
	"boards: [\"%s\"]\n"
	"defaults: { timeout: 60s }\n"
	"tests:\n"
	"  - name: where\n"
	"    run: \"echo site={vars.site} role={vars.role} user=$(id -un) addr=$SSH_CONNECTION\"\n";

/* Runs scenario NAME on selector with inventory file INV; returns the
 * where test's stdout on board (caller frees). */
static char *run_on(const char *name, const char *inv, const char *selector, const char *board)
{
	char *text = xasprintf(scenario, name, selector);
	char *file = xasprintf("%s.yaml", name);
	char *sc = ts_write_file(dir, file, text);
	char *out = NULL;
	int rc = ts_run(&out, "cd '%s' && %s --color=never run %s -i %s 2>&1", dir, ORCH_BIN, sc,
			inv);
	if (rc != 0)
		fail_msg("orch run %s -i %s: exit %d:\n%s", name, inv, rc, out);
	free(out);
	char *log = xasprintf("%s/runs/%s/latest/%s/where/stdout.log", dir, name, board);
	char *got = ts_read_file(log);
	if (!got)
		fail_msg("no %s", log);
	TS_FREE(log, file, sc, text);
	return got;
}

/* Nothing of the run folder holds the password of the inventory. */
static void no_secret(const char *name)
{
	char *out = NULL;
	int rc = ts_run(&out, "grep -rl 'hunter2' '%s/runs/%s' 2>/dev/null", dir, name);
	if (rc == 0)
		fail_msg("the password is in %s", out);
	free(out);
}

static void test_ini_inventory_runs(void **state)
{
	char *text = xasprintf(
		"# the lab, as Ansible has it\n"
		"[rack]\n"
		"b1 ansible_host=" LAB_BASE ".1\n"
		"b2 ansible_host=" LAB_BASE ".2 role=second\n"
		"\n"
		"[spare]\n"
		"b3 ansible_host=" LAB_BASE ".3\n"
		"\n"
		"[lab:children]\n"
		"rack\n"
		"spare\n"
		"\n"
		"[lab:vars]\n"
		"ansible_port=%d\n"
		"ansible_user=%s\n"
		"ansible_ssh_private_key_file=%s\n"
		"ansible_ssh_common_args='-o UserKnownHostsFile=%s'\n"
		"ansible_password=hunter2\n"
		"role=first\n"
		"\n"
		"[all:vars]\n"
		"site=lab\n",
		LAB_PORT, lab->user, lab->identity, lab->known_hosts);
	free(ts_write_file(dir, "hosts", text));
	free(text);
	char *out = run_on("ini", "hosts", "rack", "b1");
	TS_ASSERT_HAS(out, "site=lab role=first user=");
	TS_ASSERT_HAS(out, " " LAB_BASE ".1 ");
	free(out);
	char *log = xasprintf("%s/runs/ini/latest/b2/where/stdout.log", dir);
	out = ts_read_file(log);
	assert_non_null(out);
	TS_ASSERT_HAS(out, "role=second");
	TS_ASSERT_HAS(out, " " LAB_BASE ".2 ");
	TS_FREE(out, log);
	/* the spare group is not selected */
	log = xasprintf("%s/runs/ini/latest/b3", dir);
	struct stat st;
	assert_int_not_equal(stat(log, &st), 0);
	free(log);
	no_secret("ini");
}

static void test_yaml_inventory_runs(void **state)
{
	char *text = xasprintf(
		"all:\n"
		"  vars:\n"
		"    site: yaml-lab\n"
		"    ansible_ssh_common_args: '-o UserKnownHostsFile=%s'\n"
		"  children:\n"
		"    rack:\n"
		"      vars:\n"
		"        ansible_port: %d\n"
		"        ansible_user: %s\n"
		"        ansible_ssh_private_key_file: %s\n"
		"        ansible_become_password: hunter2\n"
		"        role: racked\n"
		"      hosts:\n"
		"        b3:\n"
		"          ansible_host: " LAB_BASE ".3\n",
		lab->known_hosts, LAB_PORT, lab->user, lab->identity);
	free(ts_write_file(dir, "hosts.yml", text));
	free(text);
	char *out = run_on("yaml", "hosts.yml", "group:rack", "b3");
	TS_ASSERT_HAS(out, "site=yaml-lab role=racked user=");
	TS_ASSERT_HAS(out, " " LAB_BASE ".3 ");
	free(out);
	no_secret("yaml");
}

TS_MAIN(setup, teardown, test_ini_inventory_runs, test_yaml_inventory_runs)
