/*
 * ciphers: and macs: (the inventory's ssh section, a transfer test): SSH
 * algorithm lists, each name one that libssh 0.10 (OpenSSL) offers, kept
 * as one comma-separated string, first preferred.
 */
#include "config/cfg_read.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char *const cipher_names[] = {
	"aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "chacha20-poly1305@openssh.com",
	"aes128-ctr", "aes192-ctr", "aes256-ctr", "aes128-cbc", "aes192-cbc", "aes256-cbc", NULL,
};
static const char *const mac_names[] = {
	"hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com",
	"hmac-sha1-etm@openssh.com", "hmac-sha2-256", "hmac-sha2-512", "hmac-sha1", NULL,
};

static bool name_in(const char *w, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (strcmp(w, names[i]) == 0)
			return true;
	return false;
}

/* A close name from names, or the one that is w with "@openssh.com". */
static const char *algo_suggest(const char *w, const char *const *names)
{
	const char *s = cfg_suggest(w, names);
	for (size_t k = 0; !s && names[k]; k++)
		if (strncmp(names[k], w, strlen(w)) == 0 && names[k][strlen(w)] == '@')
			s = names[k];
	return s;
}

void cfg_ssh_algos(struct cfg *c, const struct ynode *n, enum cfg_ssh_algo kind, char **out)
{
	const char *key = kind == CFG_SSH_MACS ? "macs" : "ciphers";
	const char *const *names = kind == CFG_SSH_MACS ? mac_names : cipher_names;
	const char *what = kind == CFG_SSH_MACS ? "MAC" : "cipher";
	const char *offers = kind == CFG_SSH_MACS
		? "hmac-sha2-256-etm@openssh.com, hmac-sha2-512-etm@openssh.com, "
		  "hmac-sha1-etm@openssh.com, hmac-sha2-256, hmac-sha2-512, hmac-sha1"
		: "aes128-gcm@openssh.com, aes256-gcm@openssh.com, chacha20-poly1305@openssh.com, "
		  "aes{128,192,256}-ctr, aes{128,192,256}-cbc";
	char **v = NULL;
	size_t nv = 0;
	if (cfg_str_list(c, n, key, &v, &nv, NULL) <= 0)
		return;
	struct strbuf sb = STRBUF_INIT;
	bool ok = nv > 0;
	for (size_t i = 0; i < nv; i++) {
		char *save = NULL;
		for (char *w = strtok_r(v[i], ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
			if (!name_in(w, names)) {
				const char *s = algo_suggest(w, names);
				cfg_error(c, n->kind == YNODE_SEQ ? n->items[i] : n,
					  "unknown %s '%s'%s%s%s (orch offers: %s)", what, w,
					  s ? ", did you mean '" : "", s ? s : "", s ? "'?" : "",
					  offers);
				ok = false;
			}
			strbuf_printf(&sb, "%s%s", sb.len ? "," : "", w);
		}
	}
	if (ok && sb.len) {
		free(*out);
		*out = strbuf_detach(&sb);
	} else {
		if (ok)
			cfg_error(c, n, "'%s' must name at least one %s", key, what);
		strbuf_release(&sb);
	}
	cfg_strv_free(v, nv);
}
