#include "util/secret.h"
#include "util/strbuf.h"

#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

struct secret {
	char *name;
	char *value;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct secret *secrets;
static size_t n_secrets;
static struct rlimit core_limit;
static bool core_limit_saved;

void secret_protect_process(void)
{
	if (getrlimit(RLIMIT_CORE, &core_limit) == 0) {
		core_limit_saved = true;
		struct rlimit none = { 0, core_limit.rlim_max };
		setrlimit(RLIMIT_CORE, &none);
	}
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

void secret_child_restore(void)
{
	if (core_limit_saved)
		setrlimit(RLIMIT_CORE, &core_limit);
}

static struct secret *find(const char *name)
{
	for (size_t i = 0; i < n_secrets; i++)
		if (!strcmp(secrets[i].name, name))
			return &secrets[i];
	return NULL;
}

static void add_locked(const char *name, const char *value)
{
	secrets = xrealloc(secrets, (n_secrets + 1) * sizeof(*secrets));
	secrets[n_secrets].name = xstrdup(name);
	secrets[n_secrets++].value = xstrdup(value);
}

void secret_take(const char *name)
{
	pthread_mutex_lock(&lock);
	char *value = getenv(name);
	if (value && !find(name))
		add_locked(name, value);
	if (value) {
		explicit_bzero(value, strlen(value));
		unsetenv(name);
	}
	pthread_mutex_unlock(&lock);
}

void secret_known(const char *value)
{
	if (!value || !*value)
		return;
	pthread_mutex_lock(&lock);
	bool seen = false;
	for (size_t i = 0; i < n_secrets && !seen; i++)
		seen = !strcmp(secrets[i].value, value);
	if (!seen)
		add_locked("", value);
	pthread_mutex_unlock(&lock);
}

void secret_known_url(const char *url)
{
	const char *s = url ? strstr(url, "://") : NULL;
	if (!s)
		return;
	s += 3;
	const char *at = strchr(s, '@');
	const char *slash = strchr(s, '/');
	if (!at || (slash && slash < at))
		return;
	const char *colon = memchr(s, ':', (size_t)(at - s));
	if (!colon || colon + 1 == at)
		return;
	char *pw = xstrndup(colon + 1, (size_t)(at - colon - 1));
	secret_known(pw);
	explicit_bzero(pw, strlen(pw));
	free(pw);
}

const char *secret_get(const char *name)
{
	pthread_mutex_lock(&lock);
	struct secret *s = find(name);
	const char *value = s ? s->value : NULL;
	pthread_mutex_unlock(&lock);
	return value;
}

void secret_wipe_all(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n_secrets; i++) {
		explicit_bzero(secrets[i].value, strlen(secrets[i].value));
		free(secrets[i].value);
		free(secrets[i].name);
	}
	free(secrets);
	secrets = NULL;
	n_secrets = 0;
	pthread_mutex_unlock(&lock);
}

/* Where a password prompt in line [p, end) ends (after its ':'), or NULL. */
static char *prompt_end(char *p, char *end)
{
	static const char *const words[] = { "password", "passphrase", "passcode", "pin:" };
	for (char *c = p; c < end; c++) {
		for (size_t w = 0; w < sizeof(words) / sizeof(*words); w++) {
			size_t n = strlen(words[w]);
			if ((size_t)(end - c) < n || strncasecmp(c, words[w], n) != 0)
				continue;
			char *colon = memchr(c, ':', (size_t)(end - c));
			if (colon)
				return colon + 1;
		}
	}
	return NULL;
}

static void cut_prompts(char *text)
{
	char *w = text, *p = text;
	while (*p) {
		char *end = p + strcspn(p, "\r\n");
		char *cut = prompt_end(p, end);
		size_t n = (size_t)((cut ? cut : end) - p);
		memmove(w, p, n);
		w += n;
		p = end;
		size_t nl = strspn(p, "\r\n");
		memmove(w, p, nl);
		w += nl;
		p += nl;
	}
	*w = '\0';
}

static void mask_values(char *text)
{
	for (size_t i = 0; i < n_secrets; i++) {
		size_t n = strlen(secrets[i].value);
		if (n < 3)
			continue;   /* too short to tell from ordinary text */
		char *hit = text;
		while ((hit = strstr(hit, secrets[i].value)) != NULL) {
			memcpy(hit, "***", 3);
			memmove(hit + 3, hit + n, strlen(hit + n) + 1);
			hit += 3;
		}
	}
}

void secret_mask(char *text)
{
	if (!text)
		return;
	pthread_mutex_lock(&lock);
	mask_values(text);
	pthread_mutex_unlock(&lock);
}

void secret_redact(char *text)
{
	if (!text)
		return;
	pthread_mutex_lock(&lock);
	mask_values(text);
	pthread_mutex_unlock(&lock);
	cut_prompts(text);
}
