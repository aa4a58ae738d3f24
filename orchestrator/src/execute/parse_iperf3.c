#include "execute/parse_iperf3.h"
#include "util/strbuf.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#define IPERF3_MAX_FILE (64u << 20)

struct iperf3_value {
	const char *name;
	const char *unit;
	bool higher_is_better;
	double value;
	bool present;
};

/* The first non-blank line of text, trimmed to fit buf, for messages. */
static void first_line(const char *text, size_t len, char *buf, size_t buflen)
{
	size_t i = 0;
	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
		i++;
	size_t j = i;
	while (j < len && text[j] != '\n' && text[j] != '\r')
		j++;
	size_t n = j - i;
	if (n >= buflen)
		n = buflen - 1;
	memcpy(buf, text + i, n);
	buf[n] = '\0';
}

static bool get_number(json_t *obj, const char *key, double *out)
{
	json_t *v = obj ? json_object_get(obj, key) : NULL;
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

int parse_iperf3_text(const char *text, size_t len, struct test_result *tr,
		      char *err, size_t errlen)
{
	int ret = -1;
	json_t *root = NULL;
	char line[160];
	first_line(text, len, line, sizeof(line));

	if (line[0] != '{') {
		if (line[0])
			snprintf(err, errlen, "not iperf3 JSON output (was -J given?): %s", line);
		else
			snprintf(err, errlen, "no iperf3 output (empty stdout)");
		goto out;
	}
	json_error_t jerr;
	root = json_loadb(text, len, 0, &jerr);
	if (!json_is_object(root)) {
		snprintf(err, errlen, "not iperf3 JSON output: line %d: %s", jerr.line, jerr.text);
		goto out;
	}
	json_t *error = json_object_get(root, "error");
	if (json_is_string(error)) {
		snprintf(err, errlen, "iperf3: %s", json_string_value(error));
		goto out;
	}
	json_t *end = json_object_get(root, "end");
	json_t *sent = json_object_get(end, "sum_sent");
	json_t *received = json_object_get(end, "sum_received");
	json_t *sum = json_object_get(end, "sum");   /* UDP */

	struct iperf3_value v[] = {
		{ "iperf3.sender_bps", "Mbit/s", true, 0, false },
		{ "iperf3.receiver_bps", "Mbit/s", true, 0, false },
		{ "iperf3.retransmits", "", false, 0, false },
		{ "iperf3.jitter_ms", "ms", false, 0, false },
		{ "iperf3.lost_percent", "%", false, 0, false },
	};
	v[0].present = get_number(sent, "bits_per_second", &v[0].value) ||
		       get_number(sum, "bits_per_second", &v[0].value);
	v[1].present = get_number(received, "bits_per_second", &v[1].value);
	v[2].present = get_number(sent, "retransmits", &v[2].value);
	v[3].present = get_number(sum, "jitter_ms", &v[3].value);
	v[4].present = get_number(sum, "lost_percent", &v[4].value);
	if (!v[0].present && !v[1].present) {
		snprintf(err, errlen, "iperf3 JSON has no end summary (end.sum_sent / end.sum_received)");
		goto out;
	}
	v[0].value /= 1e6;
	v[1].value /= 1e6;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i].present)
			test_result_add_sample(tr, v[i].name, v[i].unit, v[i].higher_is_better,
					       v[i].value);
	ret = 0;
out:
	json_decref(root);
	return ret;
}

int parse_iperf3_file(const char *path, struct test_result *tr, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	size_t n;
	int ret = 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (sb.len + n > IPERF3_MAX_FILE) {
			snprintf(err, errlen, "'%s' is larger than %u MiB: not iperf3 output",
				 path, IPERF3_MAX_FILE >> 20);
			ret = -1;
			break;
		}
		strbuf_append(&sb, buf, n);
	}
	if (ret == 0 && ferror(f)) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		ret = -1;
	}
	fclose(f);
	if (ret == 0)
		ret = parse_iperf3_text(strbuf_str(&sb), sb.len, tr, err, errlen);
	strbuf_release(&sb);
	return ret;
}
