/* orch ports: the serial ports libserialport sees, for writing inventories. */
#include "cli/cli.h"
#include "cli/common.h"
#include "link/board_link.h"
#include "util/strbuf.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: orch ports [--format json]\n"
	"\n"
	"Lists the serial ports of this machine: device, description, transport\n"
	"(native, usb, bluetooth), USB VID:PID, manufacturer, product, serial number\n"
	"and the /dev/serial/by-id link. An inventory can name a USB adapter as\n"
	"  serial: { usb: \"VID:PID:SERIAL\" }  or by its by-id path.\n"
	"      --format json      machine-readable, on stdout\n"
	"Exit: 0; 3 when the ports cannot be listed; 2 bad usage.\n";

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void print_json(const struct serial_port_info *list, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct serial_port_info *p = &list[i];
		json_t *o = json_object();
		json_object_set_new(o, "port", json_string(p->name));
		json_object_set_new(o, "description", p->description ? json_string(p->description)
								     : json_null());
		json_object_set_new(o, "transport", json_string(p->transport));
		if (p->usb_vid >= 0) {
			char id[16];
			snprintf(id, sizeof(id), "%04x:%04x", p->usb_vid, p->usb_pid);
			json_object_set_new(o, "usb", json_string(id));
		} else {
			json_object_set_new(o, "usb", json_null());
		}
		json_object_set_new(o, "manufacturer", p->manufacturer ? json_string(p->manufacturer)
								       : json_null());
		json_object_set_new(o, "product", p->product ? json_string(p->product) : json_null());
		json_object_set_new(o, "serial", p->serial ? json_string(p->serial) : json_null());
		json_object_set_new(o, "by_id", p->by_id ? json_string(p->by_id) : json_null());
		json_array_append_new(arr, o);
	}
	char *text = json_dumps(arr, JSON_INDENT(2));
	printf("%s\n", text);
	free(text);
	json_decref(arr);
}

/* The list is what the command is for: on stdout, like `orch boards`; only
 * the note that there is none goes to stderr. */
static void print_table(const struct serial_port_info *list, size_t n)
{
	if (n == 0) {
		fprintf(stderr, "no serial ports found (is the USB adapter plugged in? "
				"ptys and ser2net consoles are not listed)\n");
		return;
	}
	size_t wname = 4, wdesc = 11;
	for (size_t i = 0; i < n; i++) {
		size_t a = strlen(list[i].name), b = strlen(or_dash(list[i].description));
		wname = a > wname ? a : wname;
		wdesc = b > wdesc ? b : wdesc;
	}
	if (wdesc > 40)
		wdesc = 40;
	printf("%-*s  %-*s  %-9s  %-9s  %-20s  %s\n", (int)wname, "PORT", (int)wdesc,
		"DESCRIPTION", "TRANSPORT", "USB", "MANUFACTURER/PRODUCT", "SERIAL");
	for (size_t i = 0; i < n; i++) {
		const struct serial_port_info *p = &list[i];
		char usb[16] = "-";
		if (p->usb_vid >= 0)
			snprintf(usb, sizeof(usb), "%04x:%04x", p->usb_vid, p->usb_pid);
		char *mp = xasprintf("%s%s%s", p->manufacturer ? p->manufacturer : "",
				     p->manufacturer && p->product ? " " : "",
				     p->product ? p->product : "");
		printf("%-*s  %-*.*s  %-9s  %-9s  %-20s  %s\n", (int)wname, p->name,
			(int)wdesc, (int)wdesc, or_dash(p->description), p->transport, usb,
			or_dash(mp), or_dash(p->serial));
		if (p->by_id)
			printf("%*s  by-id: %s\n", (int)wname, "", p->by_id);
		free(mp);
	}
}

int cmd_ports(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "json") != 0)
				return cmd_usage_error("ports", "unknown format '%s' (json)", optarg);
			json = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			return cmd_option_error("ports", c, argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cmd_usage_error("ports", "unexpected argument '%s'", argv[optind]);
	struct serial_port_info *list;
	size_t n;
	char err[256];
	if (serial_port_list(&list, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch: error: %s\n", err);
		return EXIT_INFRA;
	}
	if (json)
		print_json(list, n);
	else
		print_table(list, n);
	serial_port_list_free(list, n);
	return EXIT_OK;
}
