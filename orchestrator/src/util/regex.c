#include "util/regex.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <string.h>

static const char *shorthand_class(char c)
{
	switch (c) {
	case 'd': return "0-9";
	case 's': return "[:space:]";
	case 'w': return "[:alnum:]_";
	default: return NULL;
	}
}

/*
 * Rebuilds a Perl-style bracket expression (p points after '[') as a POSIX
 * one, where backslash is literal, ']' must come first and '-' last.
 * Returns the position after the closing ']', or NULL with err filled.
 */
static const char *translate_bracket(const char *p, struct strbuf *out, char *err, size_t errlen)
{
	struct strbuf items = STRBUF_INIT;
	bool neg = false, lit_close = false, lit_dash = false, lit_caret = false;
	const char *ret = NULL;

	if (*p == '^') {
		neg = true;
		p++;
	}
	if (*p == ']') {
		lit_close = true;
		p++;
	}
	while (*p && *p != ']') {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
			char term[3] = { p[1], ']', '\0' };
			const char *e = strstr(p + 2, term);
			if (!e) {
				snprintf(err, errlen, "unterminated [%c class", p[1]);
				goto out;
			}
			strbuf_append(&items, p, (size_t)(e + 2 - p));
			p = e + 2;
			continue;
		}
		char c;
		if (*p == '\\') {
			char e = p[1];
			if (e == '\0') {
				snprintf(err, errlen, "trailing backslash");
				goto out;
			}
			if (e == 'D' || e == 'S' || e == 'W') {
				snprintf(err, errlen, "\\%c is not supported inside [...]", e);
				goto out;
			}
			const char *cls = shorthand_class(e);
			p += 2;
			if (cls) {
				strbuf_puts(&items, cls);
				continue;
			}
			c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
		} else {
			c = *p++;
		}
		if (*p == '-' && p[1] && p[1] != ']') {
			char hi;
			if (p[1] == '\\' && p[2]) {
				hi = p[2];
				p += 3;
			} else {
				hi = p[1];
				p += 2;
			}
			strbuf_putc(&items, c);
			strbuf_putc(&items, '-');
			strbuf_putc(&items, hi);
			continue;
		}
		if (c == ']')
			lit_close = true;
		else if (c == '-')
			lit_dash = true;
		else if (c == '^')
			lit_caret = true;
		else
			strbuf_putc(&items, c);
	}
	if (*p != ']') {
		snprintf(err, errlen, "unmatched [");
		goto out;
	}
	if (!neg && !lit_close && !lit_dash && items.len == 0 && lit_caret) {
		strbuf_puts(out, "\\^");
	} else {
		strbuf_putc(out, '[');
		if (neg)
			strbuf_putc(out, '^');
		if (lit_close)
			strbuf_putc(out, ']');
		strbuf_append(out, strbuf_str(&items), items.len);
		if (lit_caret)
			strbuf_putc(out, '^');
		if (lit_dash)
			strbuf_putc(out, '-');
		strbuf_putc(out, ']');
	}
	ret = p + 1;
out:
	strbuf_release(&items);
	return ret;
}

/*
 * glibc's regcomp() copies a repeated subexpression once per repetition,
 * so stacked quantifiers ("a++++") and large nested bounds grow its memory
 * without limit. Patterns in a config file are kept well below that.
 */
#define REGEX_MAX_LEN 1024
#define REGEX_MAX_COST 4000000.0

/* glibc also reads "{,m}" as a bound, "{0,m}" */
static bool is_quant_start(const char *p)
{
	const char *digit = p[1] == ',' ? p + 2 : p + 1;
	return *p == '*' || *p == '+' || *p == '?' || (*p == '{' && *digit >= '0' && *digit <= '9');
}

/* A bound "{n}", "{n,}", "{n,m}" at p: its length and how many copies it
 * costs. regcomp() turns "{n,m}" into m - n nested optional copies whose
 * closures take memory quadratic in m - n, so a range counts for more. */
static size_t bound_len(const char *p, double *max)
{
	const char *q = p + 1;
	double lo = 0, hi = -1;
	while (*q >= '0' && *q <= '9' && lo < 1e6)
		lo = lo * 10 + (*q++ - '0');
	if (*q == ',') {
		q++;
		if (*q >= '0' && *q <= '9') {
			hi = 0;
			while (*q >= '0' && *q <= '9' && hi < 1e6)
				hi = hi * 10 + (*q++ - '0');
		} else {
			hi = lo + 1;
		}
	}
	if (*q != '}')
		return 0;
	*max = hi > lo ? hi + (hi - lo) * (hi - lo) / 16 : lo;
	return (size_t)(q + 1 - p);
}

/* Perl shorthands to POSIX ERE; 0, or -1 with err filled. */
static int translate(const char *pattern, struct strbuf *out, char *err, size_t errlen)
{
	const char *p = pattern;
	bool after_quant = false;
	double cost = 1;

	if (strlen(pattern) > REGEX_MAX_LEN) {
		snprintf(err, errlen, "pattern longer than %d characters", REGEX_MAX_LEN);
		return -1;
	}
	while (*p) {
		if (is_quant_start(p)) {
			if (after_quant) {
				snprintf(err, errlen, "'%c' right after a repetition at offset %d "
					 "(lazy or possessive forms like '*?' are not supported)",
					 *p, (int)(p - pattern));
				return -1;
			}
			after_quant = true;
			if (*p == '{') {
				double max = 0;
				size_t n = bound_len(p, &max);
				if (n > 0) {
					cost *= max > 1 ? max : 1;
					if (cost * (double)strlen(pattern) > REGEX_MAX_COST) {
						snprintf(err, errlen, "repetition counts too large at offset %d",
							 (int)(p - pattern));
						return -1;
					}
					strbuf_append(out, p, n);
					p += n;
					continue;
				}
			}
			strbuf_putc(out, *p++);
			continue;
		}
		after_quant = false;
		if (*p == '[') {
			p = translate_bracket(p + 1, out, err, errlen);
			if (!p)
				return -1;
			continue;
		}
		if (*p != '\\') {
			strbuf_putc(out, *p++);
			continue;
		}
		char e = p[1];
		switch (e) {
		case 'd': strbuf_puts(out, "[0-9]"); break;
		case 'D': strbuf_puts(out, "[^0-9]"); break;
		case 's': strbuf_puts(out, "[[:space:]]"); break;
		case 'S': strbuf_puts(out, "[^[:space:]]"); break;
		case 'w': strbuf_puts(out, "[[:alnum:]_]"); break;
		case 'W': strbuf_puts(out, "[^[:alnum:]_]"); break;
		case 't': strbuf_putc(out, '\t'); break;
		case 'n': strbuf_putc(out, '\n'); break;
		case 'r': strbuf_putc(out, '\r'); break;
		case '\0':
			snprintf(err, errlen, "trailing backslash");
			return -1;
		default:
			strbuf_putc(out, '\\');
			strbuf_putc(out, e);
			break;
		}
		p += 2;
	}
	return 0;
}

int orch_regex_compile(struct orch_regex *rx, const char *pattern, char *err, size_t errlen)
{
	struct strbuf ere = STRBUF_INIT;
	int ret = -1;
	char dummy[8];

	if (!err || errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	memset(rx, 0, sizeof(*rx));
	if (!pattern) {
		snprintf(err, errlen, "no pattern");
		goto out;
	}
	if (translate(pattern, &ere, err, errlen) < 0)
		goto out;
	int rc = regcomp(&rx->re, strbuf_str(&ere), REG_EXTENDED | REG_NEWLINE);
	if (rc != 0) {
		char msg[128];
		regerror(rc, &rx->re, msg, sizeof(msg));
		for (char *c = msg; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		snprintf(err, errlen, "%s", msg);
		goto out;
	}
	rx->compiled = true;
	rx->n_groups = rx->re.re_nsub;
	ret = 0;
out:
	strbuf_release(&ere);
	return ret;
}

bool orch_regex_match(const struct orch_regex *rx, const char *text, char *group1, size_t group1_len)
{
	regmatch_t m[2];
	if (!rx || !rx->compiled || !text)
		return false;
	if (regexec(&rx->re, text, 2, m, 0) != 0)
		return false;
	if (group1 && group1_len > 0) {
		regmatch_t g = rx->n_groups >= 1 ? m[1] : m[0];
		size_t n = 0;
		if (g.rm_so >= 0 && g.rm_eo >= g.rm_so) {
			n = (size_t)(g.rm_eo - g.rm_so);
			if (n > group1_len - 1)
				n = group1_len - 1;
			memcpy(group1, text + g.rm_so, n);
		}
		group1[n] = '\0';
	}
	return true;
}

void orch_regex_free(struct orch_regex *rx)
{
	if (!rx || !rx->compiled)
		return;
	regfree(&rx->re);
	rx->compiled = false;
}
