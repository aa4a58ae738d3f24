#include "config/caps.h"

#include <string.h>

void board_caps_of(const struct board *b, struct board_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->ssh = b->ssh.present || b->transport == TRANSPORT_KIND_SSH;
	caps->local = b->transport == TRANSPORT_KIND_LOCAL;
	caps->console = b->serial.present;
	caps->power = b->power.cycle || b->power.on;
	caps->commands = b->transport != TRANSPORT_KIND_NONE;
	caps->arch_known = b->arch != NULL;
}

static const char *boot_unsupported(const struct board_caps *caps, const struct boot_spec *spec)
{
	if (!caps->console)
		return "the board has no serial console to time the boot on";
	if (spec->trigger == BOOT_TRIGGER_POWER_CYCLE && !caps->power)
		return "the board has no power commands for a power-cycle (power: cycle, or on)";
	if (spec->trigger == BOOT_TRIGGER_REBOOT && !caps->commands)
		return "the board has no shell to send reboot through (no ssh, serial or local)";
	return NULL;
}

const char *test_unsupported(const struct board *b, const struct test *t)
{
	struct board_caps caps;
	board_caps_of(b, &caps);
	switch (t->kind) {
	case TEST_BOOT:
		return boot_unsupported(&caps, &t->boot);
	case TEST_BENCH:
		return caps.commands ? NULL
				     : "the board has no way to receive remote-bench (no ssh, serial or local)";
	case TEST_TRANSFER:
		return caps.ssh || caps.local ? NULL
		       : "a transfer test needs the board's SSH session (or a local board)";
	case TEST_RUN:
	case TEST_MULTI:
		return caps.commands ? NULL : "the board has no way to run commands (no ssh, serial or local)";
	}
	return NULL;
}
