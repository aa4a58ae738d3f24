#include "execute/fetch_console.h"

#include <stdlib.h>
#include <string.h>

#define BEGIN_TAG "ORCH-FETCH-BEGIN "
#define END_TAG "ORCH-FETCH-END"
#define TEXT_MAX 4096

uint64_t console_fetch_max(void)
{
	const char *v = getenv("ORCH_CONSOLE_FETCH_MAX");
	char *end = NULL;
	unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
	return end && !*end && n > 0 ? n : CONSOLE_FETCH_MAX_DEFAULT;
}

char *console_fetch_command(const char *qsrc, uint64_t cap)
{
	return xasprintf(
		"f=%s; [ -f \"$f\" ] || { echo \"no such file\"; exit 2; }; "
		"[ -r \"$f\" ] || { echo \"not readable\"; exit 2; }; "
		"command -v od >/dev/null 2>&1 || { echo \"the board has no od\"; exit 2; }; "
		"n=$(($(wc -c < \"$f\"))); [ \"$n\" -le %llu ] || { echo \"too large for a "
		"console fetch: $n bytes, the cap is %llu (ORCH_CONSOLE_FETCH_MAX)\"; exit 2; }; "
		"C=; S=; command -v cksum >/dev/null 2>&1 && C=cksum; "
		"command -v sha256sum >/dev/null 2>&1 && S=sha256sum; "
		"echo \"" BEGIN_TAG "$n\"; od -An -tx1 -v < \"$f\" || exit 1; echo " END_TAG "; "
		"if [ -n \"$C\" ]; then set -- $($C < \"$f\"); k=\"cksum $1\"; "
		"elif [ -n \"$S\" ]; then h=$($S < \"$f\"); k=\"sha256 ${h%%%% *}\"; "
		"else k=\"size $n\"; fi; set -- $(ls -ld \"$f\"); echo \"ORCH-MODE $1\"; "
		"echo \"ORCH-CHECK $k $n\"",
		qsrc, (unsigned long long)cap, (unsigned long long)cap);
}

void console_fetch_init(struct console_fetch *cf, FILE *file, struct cksum *ck,
			struct strbuf *text)
{
	memset(cf, 0, sizeof(*cf));
	cf->file = file;
	cf->ck = ck;
	cf->text = text;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One dump line: bytes as pairs of hex digits between blanks. */
static void dump_line(struct console_fetch *cf, const char *l)
{
	unsigned char bytes[64];
	size_t n = 0;
	while (*l) {
		if (*l == ' ' || *l == '\t') {
			l++;
			continue;
		}
		int hi = hex(l[0]), lo = hi >= 0 ? hex(l[1]) : -1;
		if (lo < 0 || (l[2] && l[2] != ' ' && l[2] != '\t') || n == sizeof(bytes)) {
			cf->garbled = true;
			return;
		}
		bytes[n++] = (unsigned char)(hi << 4 | lo);
		l += 2;
	}
	if (n && fwrite(bytes, 1, n, cf->file) != n)
		cf->write_failed = true;
	cksum_update(cf->ck, bytes, n);
}

static void keep_text(struct console_fetch *cf, const char *l)
{
	if (cf->text->len < TEXT_MAX) {
		strbuf_puts(cf->text, l);
		strbuf_putc(cf->text, '\n');
	}
}

static void take_line(struct console_fetch *cf)
{
	const char *l = strbuf_str(&cf->line);
	if (cf->state == 0 && !strncmp(l, BEGIN_TAG, strlen(BEGIN_TAG)))
		cf->state = 1;
	else if (cf->state == 1 && !strcmp(l, END_TAG))
		cf->state = 2;
	else if (cf->state == 1 && !cf->garbled && !cf->write_failed)
		dump_line(cf, l);
	else if (cf->state != 1)
		keep_text(cf, l);
	strbuf_reset(&cf->line);
}

int console_fetch_output(void *ctx, enum transport_stream stream, const char *data, size_t len)
{
	struct console_fetch *cf = ctx;
	(void)stream;
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\n')
			take_line(cf);
		else if (data[i] != '\r' && cf->line.len < 4096)
			strbuf_putc(&cf->line, data[i]);
	}
	return cf->write_failed ? -1 : 0;
}

int console_fetch_finish(struct console_fetch *cf, char *err, size_t errlen)
{
	if (cf->line.len)
		take_line(cf);
	strbuf_release(&cf->line);
	if (cf->write_failed)
		snprintf(err, errlen, "cannot write the fetched file");
	else if (cf->garbled)
		snprintf(err, errlen, "the board's dump of the file was garbled on the console");
	else if (cf->state == 1)
		snprintf(err, errlen, "the board's dump of the file ended early");
	else
		return 0;
	return -1;
}
