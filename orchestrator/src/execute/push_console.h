#ifndef ORCH_EXECUTE_PUSH_CONSOLE_H
#define ORCH_EXECUTE_PUSH_CONSOLE_H
/*
 * Pushing a file through a shell on a console, for boards whose only way
 * in is a serial console (a command transport that cannot take stdin).
 *
 * The board is asked once what it can decode: `base64 -d` (or `busybox
 * base64 -d`), and `gzip -dc`/`gunzip -c`/`zcat` (or busybox's). The file is
 * gzipped here (zlib, level 9) when the board can unpack it, then typed as
 * commands of at most CONSOLE_PUSH_LINE characters that each append one
 * chunk to a part file: `printf %s B64|base64 -d>>PART`, or, on a board
 * without base64, `printf 'OCTAL ESCAPES'>>PART` (printable bytes as they
 * are, the rest as \NNN). Each chunk is its own command, so the board
 * acknowledges every ~3 KB and a console without flow control never
 * overflows its 4 KB input buffer. The part file is then unpacked, made
 * executable and renamed over the target; on any failure it is removed.
 *
 * The caller checks the result like any other push (execute/artifact.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link/board_link.h"

/* Characters of one typed chunk command, the transport's wrapper aside:
 * well inside the 4095 of a canonical tty line. */
#define CONSOLE_PUSH_LINE 3000

enum console_encoding { CONSOLE_ENC_BASE64, CONSOLE_ENC_PRINTF };

struct console_push_stats {
	enum console_encoding encoding;
	bool gzip;                 /* sent gzipped, unpacked on the board */
	size_t file_bytes;         /* the file */
	size_t payload_bytes;      /* what was encoded (gzipped size with gzip) */
	size_t typed_chars;        /* chunk commands typed, wrapper excluded */
	unsigned chunks;
	int64_t duration_us;       /* probe excluded */
};

/*
 * Pushes local to remote on the board behind t (mkdir -p of its folder,
 * mode 755), all of it within timeout_ms (<= 0: each command its own).
 * force_encoding < 0: what the board has; else that encoding (tests).
 * Returns 0 and fills st (may be NULL), or -1 with the reason in err; a
 * transport failure (console gone) is -2.
 */
int console_push_within(struct transport *t, const char *local, const char *remote,
			int force_encoding, int64_t timeout_ms, struct console_push_stats *st,
			char *err, size_t errlen);

/* Appends len bytes as printf format text (octal escapes) to out; next is
 * the byte that will follow them in the same format (-1: none), so an
 * escape is never shortened in front of a digit. */
struct strbuf;
void console_push_printf_escape(struct strbuf *out, const unsigned char *data, size_t len,
				int next);

#endif
