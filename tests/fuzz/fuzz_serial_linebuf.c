/*
 * Fuzz target for the console line cutter: the input (after a first byte
 * that picks the chunk sizes) is fed in chunks as reads would deliver it.
 * Every line handed out must be NUL-terminated at its length, free of
 * control characters other than TAB, no longer than the maximum, and
 * stamped with a time no later than the chunk being fed; only the pieces
 * of a line over the cap are flagged too long, and partial lines are short.
 */
#include "transport/serial_capture.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct check {
	int64_t now;
	uint64_t lines;
};

static void on_line(void *ctx, const struct serial_line *l)
{
	struct check *c = ctx;
	if (strlen(l->text) != l->len || l->len > SERIAL_CAPTURE_MAX_LINE)
		abort();
	for (size_t i = 0; i < l->len; i++) {
		unsigned char ch = (unsigned char)l->text[i];
		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			abort();
	}
	if (l->mono_us > c->now || l->wall_us != l->mono_us + 1000)
		abort();
	if (l->cont && (!l->too_long || l->partial))
		abort();
	if (l->partial && (l->too_long || l->len > SERIAL_CAPTURE_MAX_PARTIAL))
		abort();
	if (!l->partial && !l->cont)
		c->lines++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct serial_linebuf lb;
	struct check c = { 0, 0 };

	if (size < 1 || size > 64 * 1024)
		return 0;
	unsigned seed = data[0];
	data++;
	size--;
	serial_linebuf_init(&lb);
	size_t off = 0;
	while (off < size) {
		seed = seed * 1103515245u + 12345u;
		size_t n = 1 + (seed >> 16) % (seed & 1 ? 7 : 257);
		if (n > size - off)
			n = size - off;
		c.now += 10;
		serial_linebuf_feed(&lb, (const char *)data + off, n, c.now, c.now + 1000,
				    on_line, &c);
		off += n;
	}
	serial_linebuf_flush(&lb, on_line, &c);
	if (c.lines != lb.lines)
		abort();
	serial_linebuf_release(&lb);
	return 0;
}
