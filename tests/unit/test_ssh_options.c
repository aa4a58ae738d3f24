/*
 * transport/transport_ssh: an option libssh refuses is named in the error
 * with its reason, also when libssh itself gives none (it refuses a host
 * that begins with '-' without a word), so no message ends in ": ".
 * Nothing is contacted: the options are refused before any connect.
 */
#include "testsupport.h"
#include "transport/transport_ssh.h"

#include <string.h>

static void test_refused_host_has_a_reason(void **state)
{
	struct ssh_target t = { .name = "evil", .host = "-oProxyCommand=touch", .user = "u",
				.ssh_config = "" };
	char err[512] = "";
	struct transport *tr = transport_ssh_new(&t, err, sizeof(err));
	assert_null(tr);
	assert_string_equal(err, "ssh options for evil: the host '-oProxyCommand=touch' was "
			    "refused: libssh gave no reason");
}

TS_MAIN(NULL, NULL, test_refused_host_has_a_reason)
