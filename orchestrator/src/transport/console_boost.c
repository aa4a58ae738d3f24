#include "transport/console_boost.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "util/strbuf.h"

#define CPU_DMA_LATENCY "/dev/cpu_dma_latency"
#define KWORKER_SETTING "ORCH_KWORKER_PRIORITY"
#define KWORKER_OLD_SETTING "ORCH_KWORKER_NICE"

/* hold and release, one at a time (the keeper is joined under it) */
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static int refs;
static char said[320];          /* what the first hold got, for every holder */
static int qos_fd = -1;

/* the workers raised, for the keeper and the release */
static pthread_mutex_t kw_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kw_cv = PTHREAD_COND_INITIALIZER;
static bool kw_fifo;            /* SCHED_FIFO 1, or else ... */
static int kw_nice;             /* ... this nice value; 0 while not held */
static pid_t *kw_pids;
static size_t kw_n;
static bool kw_stop;
static bool kw_keeper_on;
static pthread_t kw_keeper;

/* An environment setting: 1 with *value in lo..hi (def when unset), 0 for
 * "off", -1 for anything else. */
static int env_setting(const char *name, long def, long lo, long hi, long *value)
{
	const char *v = getenv(name);
	*value = def;
	if (!v || !*v)
		return 1;
	if (!strcmp(v, "off"))
		return 0;
	char *end;
	errno = 0;
	*value = strtol(v, &end, 10);
	return errno || *end || *value < lo || *value > hi ? -1 : 1;
}

static void qos_request(struct strbuf *how)
{
	long us;
	int set = env_setting("ORCH_CPU_DMA_LATENCY", 0, 0, 1000000, &us);
	if (set <= 0) {
		strbuf_puts(how, set ? ", CPU idle states left alone (ORCH_CPU_DMA_LATENCY is not a "
				       "number of microseconds or off)"
				     : ", CPU idle states left alone (ORCH_CPU_DMA_LATENCY=off)");
		return;
	}
	int fd = open(CPU_DMA_LATENCY, O_WRONLY | O_CLOEXEC);
	int32_t value = (int32_t)us;
	if (fd < 0 || write(fd, &value, sizeof(value)) != (ssize_t)sizeof(value)) {
		strbuf_printf(how, ", CPU idle states left alone (%s: %s)", CPU_DMA_LATENCY,
			      strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	qos_fd = fd;
	strbuf_printf(how, ", CPUs kept from idle states deeper than %ld us (%s)", us,
		      CPU_DMA_LATENCY);
}

/* Whether pid is an unbound kernel worker (kworker/u*, a child of kthreadd). */
static bool is_unbound_kworker(pid_t pid)
{
	char path[64], stat[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return false;
	stat[n] = '\0';
	const char *name = strchr(stat, '(');
	const char *end = strrchr(stat, ')');   /* the name may hold parentheses */
	int ppid = 0;
	return name && end && !strncmp(name + 1, "kworker/u", 9) &&
	       sscanf(end + 1, " %*c %d", &ppid) == 1 && ppid == 2;
}

static bool raised(pid_t pid)
{
	for (size_t i = 0; i < kw_n; i++)
		if (kw_pids[i] == pid)
			return true;
	return false;
}

/* Whether pid's scheduling is nice n of the ordinary policy, or with fifo
 * SCHED_FIFO priority 1. */
static bool kworker_at(pid_t pid, bool fifo, int n)
{
	struct sched_param sp;
	int policy = sched_getscheduler(pid);
	if (fifo)
		return policy == SCHED_FIFO && sched_getparam(pid, &sp) == 0 &&
		       sp.sched_priority == 1;
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, (id_t)pid);
	return policy == SCHED_OTHER && !errno && nice == n;
}

/* Sets pid to SCHED_FIFO 1, or to nice `nice` of the ordinary policy. */
static int kworker_set(pid_t pid, bool fifo, int nice)
{
	struct sched_param sp = { .sched_priority = fifo };
	if (fifo || sched_getscheduler(pid) != SCHED_OTHER)
		if (sched_setscheduler(pid, fifo ? SCHED_FIFO : SCHED_OTHER, &sp) != 0)
			return -1;
	return fifo ? 0 : setpriority(PRIO_PROCESS, (id_t)pid, nice);
}

/* Raises every unbound worker still as the kernel made it (ordinary, nice
 * 0; a worker someone set otherwise is left alone). Returns how many it
 * raised; the first errno of a refusal in *err. Under kw_mu. */
static size_t kworkers_raise(int *err)
{
	DIR *d = opendir("/proc");
	if (!d) {
		*err = errno;
		return 0;
	}
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid <= 2 || raised(pid) || !is_unbound_kworker(pid))
			continue;
		if (!kworker_at(pid, false, 0))
			continue;
		if (kworker_set(pid, kw_fifo, kw_nice) != 0) {
			if (!*err)
				*err = errno;
			continue;
		}
		kw_pids = xrealloc(kw_pids, (kw_n + 1) * sizeof(*kw_pids));
		kw_pids[kw_n++] = pid;
		n++;
	}
	closedir(d);
	return n;
}

/* Puts back the workers still as they were left. Under kw_mu. */
static void kworkers_restore(void)
{
	for (size_t i = 0; i < kw_n; i++)
		if (is_unbound_kworker(kw_pids[i]) && kworker_at(kw_pids[i], kw_fifo, kw_nice))
			kworker_set(kw_pids[i], false, 0);
	free(kw_pids);
	kw_pids = NULL;
	kw_n = 0;
	kw_fifo = false;
	kw_nice = 0;
}

/* Once a second, raises the workers the kernel started since. */
static void *keeper_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "orch-kworkers");
	pthread_mutex_lock(&kw_mu);
	while (!kw_stop) {
		struct timespec at;
		clock_gettime(CLOCK_REALTIME, &at);
		at.tv_sec += 1;
		pthread_cond_timedwait(&kw_cv, &kw_mu, &at);
		int err = 0;
		if (!kw_stop)
			kworkers_raise(&err);
	}
	pthread_mutex_unlock(&kw_mu);
	return NULL;
}

/* A run that ends by exit() with a capture still open puts the workers
 * back too (the QoS request goes with the process). */
static void restore_at_exit(void)
{
	pthread_mutex_lock(&kw_mu);
	kw_stop = true;
	kworkers_restore();
	pthread_mutex_unlock(&kw_mu);
}

static void register_exit(void)
{
	atexit(restore_at_exit);
}

/* ORCH_KWORKER_PRIORITY (or, when unset, ORCH_KWORKER_NICE, its name
 * before the tenth landing, whose values are all still valid) in *name: 1
 * with the setting in *fifo and *nice (SCHED_FIFO 1 when unset), 0 for
 * "off", -1 for anything else. */
static int kworker_setting(const char **name, bool *fifo, int *nice)
{
	*name = getenv(KWORKER_SETTING) || !getenv(KWORKER_OLD_SETTING) ? KWORKER_SETTING
									 : KWORKER_OLD_SETTING;
	const char *v = getenv(*name);
	*fifo = !v || !*v || !strcmp(v, "fifo");
	*nice = 0;
	if (*fifo)
		return 1;
	long n;
	int set = env_setting(*name, 0, -20, -1, &n);
	*nice = (int)n;
	return set;
}

static void kworkers_request(struct strbuf *how)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, register_exit);
	const char *name;
	bool fifo;
	int nice;
	int set = kworker_setting(&name, &fifo, &nice);
	if (set <= 0) {
		strbuf_printf(how, set ? ", the kernel's tty workers left alone (%s is not fifo, a "
					 "nice value from -20 to -1, or off)"
				       : ", the kernel's tty workers left alone (%s=off)", name);
		return;
	}
	pthread_mutex_lock(&kw_mu);
	kw_fifo = fifo;
	kw_nice = nice;
	kw_stop = false;
	int err = 0;
	size_t n = kworkers_raise(&err);
	pthread_mutex_unlock(&kw_mu);
	if (!n && err) {
		strbuf_printf(how, ", the kernel's tty workers left alone (%s: %s)",
			      fifo ? "sched_setscheduler" : "setpriority", strerror(err));
		pthread_mutex_lock(&kw_mu);
		kworkers_restore();
		pthread_mutex_unlock(&kw_mu);
		return;
	}
	kw_keeper_on = pthread_create(&kw_keeper, NULL, keeper_main, NULL) == 0;
	if (fifo)
		strbuf_puts(how, ", the kernel's tty workers at SCHED_FIFO 1");
	else
		strbuf_printf(how, ", the kernel's tty workers at nice %d", nice);
}

void console_boost_hold(char *how, size_t len)
{
	pthread_mutex_lock(&gate);
	if (refs++ == 0) {
		struct strbuf sb = STRBUF_INIT;
		qos_request(&sb);
		kworkers_request(&sb);
		snprintf(said, sizeof(said), "%s", strbuf_str(&sb));
		strbuf_release(&sb);
	}
	snprintf(how, len, "%s", said);
	pthread_mutex_unlock(&gate);
}

void console_boost_release(void)
{
	pthread_mutex_lock(&gate);
	if (refs > 0 && --refs == 0) {
		if (qos_fd >= 0)
			close(qos_fd);   /* closing the file withdraws the request */
		qos_fd = -1;
		if (kw_keeper_on) {
			pthread_mutex_lock(&kw_mu);
			kw_stop = true;
			pthread_cond_signal(&kw_cv);
			pthread_mutex_unlock(&kw_mu);
			pthread_join(kw_keeper, NULL);
			kw_keeper_on = false;
		}
		pthread_mutex_lock(&kw_mu);
		kworkers_restore();
		pthread_mutex_unlock(&kw_mu);
	}
	pthread_mutex_unlock(&gate);
}
