/*
 * `boot:` tests: listen to the serial console from before the trigger
 * (power cycle, reboot over the command transport, or none), stamp every
 * console line at its first byte, and time the ordered phases from the time
 * base (the trigger instant, or the first line matching `base:`).
 *
 * The trigger instant is when the power command (the `on` command for
 * off-then-on) has returned, or when `reboot` was sent. A phase's `max:`
 * budget applies to its duration, from the previous phase (or the base).
 *
 * The kernel's clock: a line that starts with a printk stamp
 * ("[    0.234567] ...") is placed at its stamp, not at its arrival. The
 * kernel replays what it logged before its console was enabled in one
 * burst, so those lines ("Linux version" among them) arrive 0.2 s late or
 * more; the lines logged after it arrive as they are printed. The stamp is
 * put on orch's clock with the smallest (arrival - stamp) of the boot's
 * stamped lines: the line that waited least, a live one. Lines without a
 * stamp (the firmware's, user space's "login:") keep their arrival.
 *
 * The kernel's clock can go back early in a boot, when it switches its
 * clock source (in a VM without KVM: "[0.064000] tsc: Detected ..." then
 * "[0.000507] clocksource: tsc-early ..."): a stamp more than 10 ms below
 * the one before starts the offset again, on the clock that runs from there
 * on, and the stamps before the switch are placed on it as they are. When
 * the stamp before was 1 s or more, it is a new kernel (the old system's
 * last words came first): phases ended by the old kernel's lines keep
 * their arrival.
 */
#include <stddef.h>
#include "execute/context.h"
#include "execute/executors.h"
#include "execute/metrics.h"
#include "execute/output.h"
#include "link/board_link.h"
#include "util/log_dir.h"
#include "util/secret.h"
#include "util/deadline.h"
#include "util/interrupt.h"
#include "util/log.h"
#include "util/shquote.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


struct phase_seen {
	bool reached;
	int64_t mono_us;              /* the line's arrival */
	int64_t kernel_us;            /* its printk stamp, when it has one ... */
	unsigned boot;                /* ... of this kernel (kclock.boot) */
	bool has_kernel;
	char *line;
};

/* The kernel's clock against orch's, from the printk stamps seen. */
struct kernel_clock {
	unsigned boot;                /* kernels seen before this one */
	bool any;                     /* a stamped line on the current clock was seen */
	int64_t last_us;              /* the last stamp */
	int64_t offset_us;            /* min(arrival - stamp) on the current clock */
};

struct boot_watch {
	pthread_mutex_t mu;
	const struct boot_spec *spec;
	struct serial_capture *cap;   /* set once started */
	bool base_found;
	int64_t base_mono_us;
	struct phase_seen base_seen;  /* the `base:` line (a phase_seen for its stamp) */
	struct kernel_clock kclock;
	size_t next;                  /* first phase not reached */
	struct phase_seen *seen;
	char last_line[512];
	struct metric_collector mc;   /* the test's metrics: on console lines */
	int64_t metrics_from_us;      /* lines from here on (the trigger) give metrics */
};

/* Whether text starts with a printk stamp "[    0.234567]"; *us its value. */
static bool printk_stamp(const char *text, int64_t *us)
{
	const char *p = text;
	if (*p++ != '[')
		return false;
	while (*p == ' ')
		p++;
	int64_t s = 0, frac = 0;
	int ns = 0, nf = 0;
	for (; *p >= '0' && *p <= '9' && ns < 12; p++, ns++)
		s = s * 10 + (*p - '0');
	if (!ns || *p++ != '.')
		return false;
	for (; *p >= '0' && *p <= '9' && nf < 9; p++, nf++)
		frac = frac * 10 + (*p - '0');
	if (nf < 6 || *p != ']')
		return false;
	for (; nf > 6; nf--)
		frac /= 10;
	*us = s * 1000000 + frac;
	return true;
}

/* Notes l's printk stamp, if any, in w->kclock and in ps. */
static void kernel_clock_line(struct boot_watch *w, const struct serial_line *l,
			      struct phase_seen *ps)
{
	int64_t k;
	if (!printk_stamp(l->text, &k))   /* a partial line too: a phase may end on one */
		return;
	struct kernel_clock *kc = &w->kclock;
	if (kc->any && k + 10000 < kc->last_us) {
		if (kc->last_us >= 1000000)
			kc->boot++;
		kc->any = false;
	}
	if (!kc->any || l->mono_us - k < kc->offset_us)
		kc->offset_us = l->mono_us - k;
	kc->any = true;
	kc->last_us = k;
	ps->has_kernel = true;
	ps->kernel_us = k;
	ps->boot = kc->boot;
}

/* The instant of a seen line on orch's clock: its stamp on the kernel's
 * clock where it has one of the last kernel, else its arrival. */
static int64_t seen_instant(const struct boot_watch *w, const struct phase_seen *ps, bool *kernel)
{
	*kernel = ps->has_kernel && ps->boot == w->kclock.boot && w->kclock.any;
	return *kernel ? w->kclock.offset_us + ps->kernel_us : ps->mono_us;
}

static void watch_line(void *ctx, const struct serial_line *l)
{
	struct boot_watch *w = ctx;
	pthread_mutex_lock(&w->mu);
	struct phase_seen stamp = { 0 };
	kernel_clock_line(w, l, &stamp);
	if (l->len > 0)
		snprintf(w->last_line, sizeof(w->last_line), "%s", l->text);
	if (l->too_long) {
		/* a piece of a line over the cap: no pattern sees it */
		pthread_mutex_unlock(&w->mu);
		return;
	}
	if (!l->partial && l->mono_us >= w->metrics_from_us)
		metric_collector_line(&w->mc, TRANSPORT_STDOUT, l->text);
	if (!w->base_found && w->spec->base_src &&
	    orch_regex_match(&w->spec->base, l->text, NULL, 0)) {
		w->base_found = true;
		w->base_mono_us = l->mono_us;
		w->base_seen = stamp;
		w->base_seen.reached = true;
		w->base_seen.mono_us = l->mono_us;
		if (w->cap)
			serial_capture_set_base(w->cap, l->mono_us);
	}
	while (w->base_found && w->next < w->spec->n_phases &&
	       orch_regex_match(&w->spec->phases[w->next].until, l->text, NULL, 0)) {
		struct phase_seen *ps = &w->seen[w->next++];
		*ps = stamp;
		ps->reached = true;
		ps->mono_us = l->mono_us;
		ps->line = xstrndup(l->text, l->len);
	}
	pthread_mutex_unlock(&w->mu);
}

static int trigger_power(struct exec_context *ctx, int64_t timeout_ms, char *err, size_t errlen)
{
	return board_link_power(ctx->link, POWER_CYCLE, timeout_ms, err, errlen);
}

static void fill_results(struct boot_watch *w, const struct boot_spec *spec,
			 struct test_result *tr, size_t *over)
{
	tr->phases = xcalloc(spec->n_phases ? spec->n_phases : 1, sizeof(*tr->phases));
	tr->n_phases = spec->n_phases;
	bool kernel;
	int64_t base = w->base_seen.reached ? seen_instant(w, &w->base_seen, &kernel)
					    : w->base_mono_us;
	int64_t prev = base;
	*over = spec->n_phases;
	for (size_t i = 0; i < spec->n_phases; i++) {
		struct phase_result *pr = &tr->phases[i];
		const struct boot_phase *ph = &spec->phases[i];
		pr->name = xstrdup(ph->name);
		pr->max_s = (double)ph->max_ms / 1000.0;
		if (!w->seen[i].reached)
			continue;
		pr->reached = true;
		int64_t at = seen_instant(w, &w->seen[i], &pr->kernel_clock);
		if (at < prev)
			at = prev;   /* never before the phase before it */
		pr->offset_s = (double)(at - base) / 1e6;
		pr->duration_s = (double)(at - prev) / 1e6;
		pr->line = xstrdup(w->seen[i].line);
		prev = at;
		if (ph->max_ms > 0 && pr->duration_s * 1000.0 > (double)ph->max_ms) {
			pr->over_budget = true;
			if (*over == spec->n_phases)
				*over = i;
		}
		char *metric = xasprintf("boot.%s", ph->name);
		test_result_add_sample(tr, metric, "s", false, pr->duration_s);
		free(metric);
	}
	if (spec->n_phases && w->seen[spec->n_phases - 1].reached)
		test_result_add_sample(tr, "boot.total", "s", false,
				       tr->phases[spec->n_phases - 1].offset_s);
}

static void fail_message(struct boot_watch *w, const struct boot_spec *spec,
			 struct test_result *tr, int64_t timeout_ms, uint64_t long_lines)
{
	char dur[32];
	units_format_duration(timeout_ms, dur, sizeof(dur));
	struct strbuf m = STRBUF_INIT;
	if (!w->base_found)
		strbuf_printf(&m, "time base '%s' not seen within %s", spec->base_src, dur);
	else
		strbuf_printf(&m, "phase '%s' ('%s') not reached within %s",
			      spec->phases[w->next].name, spec->phases[w->next].until_src, dur);
	if (w->next > 0)
		strbuf_printf(&m, "; last phase reached: '%s' at %.3fs",
			      spec->phases[w->next - 1].name,
			      (double)(w->seen[w->next - 1].mono_us - w->base_mono_us) / 1e6);
	else
		strbuf_puts(&m, "; no phase reached");
	strbuf_printf(&m, "; last line: '%s'", w->last_line);
	if (long_lines) {
		char t[128];
		output_long_lines_text(long_lines, t, sizeof(t));
		strbuf_printf(&m, "; %s", t);
	}
	test_result_set_message(tr, "%s", strbuf_str(&m));
	strbuf_release(&m);
}

/* Sets tr to an error with the message fmt: -1. */
static int boot_error(struct test_result *tr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int boot_error(struct test_result *tr, const char *fmt, ...)
{
	struct strbuf m = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&m, fmt, ap);
	va_end(ap);
	tr->status = STATUS_ERROR;
	test_result_set_message(tr, "%s", strbuf_str(&m));
	strbuf_release(&m);
	return -1;
}

/* boot.log and boot.raw in the test's folder, emptied. 0, or -1 + err. */
static int open_console_logs(const char *dir, struct serial_capture_options *opt, char *err,
			     size_t errlen)
{
	opt->log = log_dir_fopen(dir, LOG_DIR_BOOT_LOG, LOG_DIR_TRUNCATE, err, errlen);
	if (!opt->log)
		return -1;
	opt->raw = log_dir_fopen(dir, LOG_DIR_BOOT_RAW, LOG_DIR_TRUNCATE, err, errlen);
	if (!opt->raw) {
		fclose(opt->log);
		opt->log = NULL;
		return -1;
	}
	return 0;
}

/* Listens to the console (after rebooting a board whose console is its
 * command transport): 0 with *cap, or -1 with tr an error. */
static int boot_listen(struct exec_context *ctx, struct boot_watch *w,
		       struct serial_capture **cap, struct test_result *tr)
{
	const struct board *b = ctx->item->board;
	const struct boot_spec *spec = w->spec;
	char err[512] = "";
	struct serial_port *port = NULL;
	if (spec->trigger == BOOT_TRIGGER_REBOOT && b->transport == TRANSPORT_KIND_SERIAL &&
	    board_link_reboot(ctx->link, err, sizeof(err)) < 0) {
		return boot_error(tr, "reboot: %s", err);
	}
	if (board_link_console(ctx->link, &port, err, sizeof(err)) < 0) {
		return boot_error(tr, "serial console of %s: %s", b->name, err);
	}
	struct serial_capture_options opt = { .on_line = watch_line, .ctx = w };
	if (open_console_logs(ctx->test_dir, &opt, err, sizeof(err)) < 0) {
		return boot_error(tr, "console capture: %s", err);
	}
	w->base_mono_us = clock_mono_us();
	w->base_found = spec->base_src == NULL;
	*cap = serial_capture_start(port, &opt, err, sizeof(err));
	if (!*cap) {
		return boot_error(tr, "console capture: %s", err);
	}
	pthread_mutex_lock(&w->mu);
	w->cap = *cap;
	pthread_mutex_unlock(&w->mu);
	tr->console_sched = xstrdup(serial_capture_sched(*cap));
	if (strncmp(tr->console_sched, "SCHED_FIFO", 10) != 0)
		log_warn("%s: console stamps with %s (docs/console-timing.md: how to grant it)",
			 b->name, tr->console_sched);
	return 0;
}

/* Triggers the boot and sets the time base: 0, or -1 with tr an error. */
static int boot_trigger(struct exec_context *ctx, struct boot_watch *w, struct serial_capture *cap,
			int64_t timeout_ms, struct test_result *tr)
{
	const struct board *b = ctx->item->board;
	const struct boot_spec *spec = w->spec;
	char err[512] = "";
	pthread_mutex_lock(&w->mu);
	if (w->metrics_from_us)
		w->metrics_from_us = clock_mono_us();   /* the old system's last words give none */
	pthread_mutex_unlock(&w->mu);
	int trig = 0;
	if (spec->trigger == BOOT_TRIGGER_POWER_CYCLE)
		trig = trigger_power(ctx, timeout_ms, err, sizeof(err));
	else if (spec->trigger == BOOT_TRIGGER_REBOOT && b->transport != TRANSPORT_KIND_SERIAL)
		trig = board_link_reboot(ctx->link, err, sizeof(err));
	if (trig < 0)
		return boot_error(tr, "%s", err);
	int64_t trigger_us = clock_mono_us();
	pthread_mutex_lock(&w->mu);
	if (!spec->base_src) {
		w->base_mono_us = trigger_us;
		serial_capture_set_base(cap, trigger_us);
	}
	pthread_mutex_unlock(&w->mu);
	return 0;
}

/* Waits until every phase is reached (true), or the timeout, an interrupt
 * or the console's loss (*lost, with why in err). */
static bool boot_wait(struct boot_watch *w, struct serial_capture *cap, int64_t timeout_ms,
		      bool *lost, char *err, size_t errlen)
{
	int64_t deadline = deadline_in_ms(timeout_ms);
	bool done = false;
	*lost = false;
	while (!done) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&w->mu);
		done = w->next >= w->spec->n_phases && w->base_found;
		pthread_mutex_unlock(&w->mu);
		if (done || interrupt_requested() || deadline_expired(deadline))
			break;
		if (serial_capture_port_lost(cap, err, errlen)) {
			*lost = true;
			break;
		}
	}
	return done;
}

/* The verdict from what the watch saw (w->mu held). */
static void boot_judge(struct boot_watch *w, struct test_result *tr, bool done, bool lost,
		       const char *lost_why, int64_t timeout_ms, uint64_t long_lines)
{
	const struct boot_spec *spec = w->spec;
	size_t over;
	fill_results(w, spec, tr, &over);
	if (done && over < spec->n_phases) {
		tr->status = STATUS_FAIL;
		test_result_set_message(tr, "phase '%s' took %.3fs, over its %.3fs budget",
					tr->phases[over].name, tr->phases[over].duration_s,
					tr->phases[over].max_s);
	} else if (done) {
		tr->status = STATUS_PASS;
	} else if (interrupt_requested()) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "interrupted");
	} else if (lost) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "serial console lost: %s; last line: '%s'", lost_why,
					w->last_line);
	} else {
		tr->status = STATUS_FAIL;
		fail_message(w, spec, tr, timeout_ms, long_lines);
	}
	if (tr->status == STATUS_PASS || tr->status == STATUS_FAIL) {
		bool passed = tr->status == STATUS_PASS;
		if (metric_collector_commit(&w->mc, tr) < 0 && passed)
			tr->status = STATUS_FAIL;   /* a metric that could not be read */
	}
}

/* Waits for the phases, stops the capture and judges. */
static void boot_finish(struct exec_context *ctx, struct boot_watch *w, struct serial_capture *cap,
			int64_t timeout_ms, struct test_result *tr)
{
	char err[512] = "";
	bool lost;
	bool done = boot_wait(w, cap, timeout_ms, &lost, err, sizeof(err));
	struct serial_capture_stats cst;
	char cerr[256] = "";
	int cret = serial_capture_stop(cap, &cst, cerr, sizeof(cerr));
	if (w->spec->trigger == BOOT_TRIGGER_NONE && w->next > 0)
		board_link_mark_booting(ctx->link);   /* it rebooted: any session is stale */

	pthread_mutex_lock(&w->mu);
	tr->long_lines += cst.long_lines;
	free(tr->console_sched);   /* with the reader's waits, if it had to */
	tr->console_sched = xstrdup(cst.sched);
	tr->last_line = xstrdup(w->last_line);
	secret_redact(tr->last_line);
	boot_judge(w, tr, done, lost, err, timeout_ms, cst.long_lines);
	pthread_mutex_unlock(&w->mu);
	if (cret < 0 && tr->status == STATUS_PASS) {
		tr->status = STATUS_ERROR;
		test_result_set_message(tr, "%s", cerr);
	} else if (cst.dropped_bytes > 0 && tr->status == STATUS_PASS) {
		test_result_set_message(tr, "%llu console bytes not written to %s: the disk was "
					"too slow", (unsigned long long)cst.dropped_bytes,
					LOG_DIR_BOOT_LOG);
	}
}

int execute_boot(struct exec_context *ctx, struct test_result *tr)
{
	const struct test *test = ctx->item->test;
	const struct boot_spec *spec = &test->boot;
	int64_t timeout_ms = spec->timeout_ms > 0 ? spec->timeout_ms : test->timeout_ms;
	char err[512] = "";
	struct serial_capture *cap = NULL;
	struct boot_watch w = { .spec = spec };
	pthread_mutex_init(&w.mu, NULL);
	w.seen = xcalloc(spec->n_phases ? spec->n_phases : 1, sizeof(*w.seen));
	metric_collector_init(&w.mc, test, false);
	w.metrics_from_us = spec->trigger == BOOT_TRIGGER_NONE ? 0 : INT64_MAX;
	tr->exit_code = -1;

	if (boot_listen(ctx, &w, &cap, tr) == 0 &&
	    boot_trigger(ctx, &w, cap, timeout_ms, tr) == 0) {
		boot_finish(ctx, &w, cap, timeout_ms, tr);
		cap = NULL;   /* stopped */
	}
	serial_capture_stop(cap, NULL, err, sizeof(err));
	for (size_t i = 0; i < spec->n_phases; i++)
		free(w.seen[i].line);
	free(w.seen);
	metric_collector_release(&w.mc);
	pthread_mutex_destroy(&w.mu);
	return 0;
}
