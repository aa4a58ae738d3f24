#include "transport/serial_port.h"
#include "transport/serial_port_sp.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <libserialport.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *serial_sp_error(void)
{
	char *m = sp_last_error_message();
	char *copy = xstrdup(m ? m : "unknown error");
	sp_free_error_message(m);
	size_t n = strlen(copy);
	while (n > 0 && (copy[n - 1] == '\n' || copy[n - 1] == '.'))
		copy[--n] = '\0';
	return copy;
}

static char *by_id_link(const char *dev)
{
	DIR *d = opendir("/dev/serial/by-id");
	char real_dev[PATH_MAX], real[PATH_MAX];
	char *found = NULL;
	if (!d || !realpath(dev, real_dev)) {
		if (d)
			closedir(d);
		return NULL;
	}
	struct dirent *e;
	while (!found && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *path = xasprintf("/dev/serial/by-id/%s", e->d_name);
		if (realpath(path, real) && strcmp(real, real_dev) == 0)
			found = path;
		else
			free(path);
	}
	closedir(d);
	return found;
}

int serial_port_list(struct serial_port_info **out, size_t *n, char *err, size_t errlen)
{
	struct sp_port **ports = NULL;
	*out = NULL;
	*n = 0;
	if (sp_list_ports(&ports) != SP_OK) {
		char *why = serial_sp_error();
		snprintf(err, errlen, "cannot list serial ports: %s", why);
		free(why);
		return -1;
	}
	size_t count = 0;
	while (ports[count])
		count++;
	struct serial_port_info *list = xcalloc(count ? count : 1, sizeof(*list));
	for (size_t i = 0; i < count; i++) {
		struct sp_port *sp = ports[i];
		struct serial_port_info *pi = &list[i];
		pi->name = xstrdup(sp_get_port_name(sp));
		pi->description = xstrdup(sp_get_port_description(sp));
		enum sp_transport tr = sp_get_port_transport(sp);
		pi->transport = xstrdup(tr == SP_TRANSPORT_USB ? "usb" :
					tr == SP_TRANSPORT_BLUETOOTH ? "bluetooth" : "native");
		pi->usb_vid = pi->usb_pid = -1;
		if (tr == SP_TRANSPORT_USB) {
			if (sp_get_port_usb_vid_pid(sp, &pi->usb_vid, &pi->usb_pid) != SP_OK)
				pi->usb_vid = pi->usb_pid = -1;
			pi->manufacturer = xstrdup(sp_get_port_usb_manufacturer(sp));
			pi->product = xstrdup(sp_get_port_usb_product(sp));
			pi->serial = xstrdup(sp_get_port_usb_serial(sp));
		}
		pi->by_id = by_id_link(pi->name);
	}
	sp_free_port_list(ports);
	*out = list;
	*n = count;
	return 0;
}

void serial_port_list_free(struct serial_port_info *list, size_t n)
{
	if (!list)
		return;
	for (size_t i = 0; i < n; i++) {
		free(list[i].name);
		free(list[i].description);
		free(list[i].transport);
		free(list[i].manufacturer);
		free(list[i].product);
		free(list[i].serial);
		free(list[i].by_id);
	}
	free(list);
}

static int parse_usb_spec(const char *spec, int *vid, int *pid, const char **serial)
{
	char *end;
	errno = 0;
	long v = strtol(spec, &end, 16);
	if (end == spec || *end != ':' || v < 0 || v > 0xffff)
		return -1;
	const char *p2 = end + 1;
	long p = strtol(p2, &end, 16);
	if (end == p2 || (*end != ':' && *end != '\0') || p < 0 || p > 0xffff)
		return -1;
	*vid = (int)v;
	*pid = (int)p;
	*serial = *end == ':' && end[1] ? end + 1 : NULL;
	return 0;
}

int serial_port_find_usb(const char *spec, char **path, char *err, size_t errlen)
{
	int vid, pid;
	const char *want_serial;
	*path = NULL;
	if (parse_usb_spec(spec, &vid, &pid, &want_serial) < 0) {
		snprintf(err, errlen, "invalid usb '%s': expected VID:PID[:SERIAL] in hex", spec);
		return -1;
	}
	struct serial_port_info *list;
	size_t n;
	if (serial_port_list(&list, &n, err, errlen) < 0)
		return -1;
	struct strbuf seen = STRBUF_INIT;
	int matches = 0;
	for (size_t i = 0; i < n; i++) {
		if (list[i].usb_vid < 0)
			continue;
		strbuf_printf(&seen, "%s%04x:%04x%s%s on %s", seen.len ? ", " : "",
			      list[i].usb_vid, list[i].usb_pid, list[i].serial ? ":" : "",
			      list[i].serial ? list[i].serial : "", list[i].name);
		if (list[i].usb_vid != vid || list[i].usb_pid != pid)
			continue;
		if (want_serial && (!list[i].serial || strcmp(list[i].serial, want_serial) != 0))
			continue;
		if (matches++ == 0)
			*path = xstrdup(list[i].name);
	}
	int ret = 0;
	if (matches == 0) {
		snprintf(err, errlen, "no USB serial adapter %s (seen: %s)", spec,
			 seen.len ? strbuf_str(&seen) : "none");
		ret = -1;
	} else if (matches > 1) {
		snprintf(err, errlen, "%d USB serial adapters match %s: add the serial number "
			 "(seen: %s)", matches, spec, strbuf_str(&seen));
		free(*path);
		*path = NULL;
		ret = -1;
	}
	strbuf_release(&seen);
	serial_port_list_free(list, n);
	return ret;
}
