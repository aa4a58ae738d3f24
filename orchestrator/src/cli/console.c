/* orch console BOARD: the board's serial console at the user's terminal,
 * like picocom or virsh console, through the board link (which takes the
 * console lock) and under the board's lock. The terminal is raw while the
 * session lasts and restored on every way out: the escape key, end of
 * input, a lost console, SIGTERM, SIGHUP, SIGINT. */
#include "cli/cli.h"
#include "cli/common.h"
#include "link/board_link.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#define DEFAULT_ESCAPE 0x1d         /* Ctrl-] */
#define CONSOLE_WRITE_TIMEOUT_MS 5000

static const char usage_text[] =
	"usage: orch console BOARD [-i INVENTORY] [--listen] [--escape KEY]\n"
	"\n"
	"Connects the terminal to BOARD's serial console (its serial: section: a\n"
	"device, a pty, tcp:// or rfc2217://), through the board's link: the\n"
	"console's lock is taken, and the board's lock too, so a board a run\n"
	"holds, a console another program has open, or a board another person\n"
	"reserved is refused naming the holder (exit 3).\n"
	"\n"
	"The terminal is raw: every key goes to the board (Ctrl-C too). Then:\n"
	"  Ctrl-] q   (or Ctrl-] .) ends the session\n"
	"  Ctrl-] Ctrl-]  sends one Ctrl-] to the board\n"
	"  Ctrl-] ?   lists these\n"
	"The end of standard input also ends it (except with --listen). The\n"
	"terminal's settings are restored however the session ends.\n"
	"\n"
	"  -i, --inventory FILE  boards file (default: $ORCH_INVENTORY)\n"
	"      --listen          read only: the board's output is shown, nothing\n"
	"                        typed is sent (but the escape key)\n"
	"      --escape KEY      the escape key: ^X for Ctrl-X (e.g. ^A, '^]') or\n"
	"                        one character (default ^])\n"
	"  -h, --help            this text\n"
	"Exit: 0 ended by the escape key or end of input, 2 unknown board or no\n"
	"serial console, 3 console or board held or the console lost, 130 ended\n"
	"by a signal.\n";

struct console_options {
	const char *inventory;
	bool listen;
	unsigned char escape;
};

struct session {
	struct serial_port *port;
	const struct console_options *o;
	bool after_escape;        /* the escape key was the last key */
	bool input_open;          /* standard input not at its end */
	int ended;                /* exit code once the session ends, else -1 */
};

static int signal_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;
	if (write(signal_pipe[1], &c, 1) < 0) {
		/* the pipe is full: a signal is already waiting */
	}
	errno = saved;
}

/* "^]" or "^a" (Ctrl-X) or a single character, into *key. */
static int parse_escape(const char *s, unsigned char *key)
{
	if (s[0] == '^' && s[1] && !s[2]) {
		int c = s[1] >= 'a' && s[1] <= 'z' ? s[1] - 32 : s[1];
		if (c < '@' || c > '_')
			return -1;
		*key = (unsigned char)(c & 0x1f);
		return 0;
	}
	if (s[0] && !s[1]) {
		*key = (unsigned char)s[0];
		return 0;
	}
	return -1;
}

static void key_name(unsigned char key, char *buf, size_t len)
{
	if (key < 0x20)
		snprintf(buf, len, "Ctrl-%c", key + '@');
	else
		snprintf(buf, len, "%c", key);
}

static int parse(int argc, char **argv, struct console_options *o)
{
	enum { OPT_LISTEN = 256, OPT_ESCAPE };
	static const struct option longopts[] = {
		{ "inventory", required_argument, NULL, 'i' },
		{ "listen", no_argument, NULL, OPT_LISTEN },
		{ "escape", required_argument, NULL, OPT_ESCAPE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	o->escape = DEFAULT_ESCAPE;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->inventory = optarg; break;
		case OPT_LISTEN: o->listen = true; break;
		case OPT_ESCAPE:
			if (parse_escape(optarg, &o->escape) < 0)
				return cmd_usage_error("console", "--escape takes ^X (Ctrl-X) or one "
								  "character, found '%s'", optarg);
			break;
		case 'h': fputs(usage_text, stdout); return 1;
		default: return cmd_option_error("console", c, argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error("console", "give exactly one BOARD");
	return 0;
}

/* A line from orch inside the session: raw mode needs the \r. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("\r\n[orch console: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("]\r\n", stderr);
	fflush(stderr);
	va_end(ap);
}

static void say_help(const struct session *s)
{
	char k[16];
	key_name(s->o->escape, k, sizeof(k));
	fprintf(stderr, "\r\n[orch console: %s q or %s . ends the session, %s %s sends %s, "
		"%s ? this help]\r\n", k, k, k, k, k, k);
	fflush(stderr);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The key after the escape key. */
static void escape_command(struct session *s, unsigned char c, char *out, size_t *n)
{
	if (c == 'q' || c == '.' || c == 'Q') {
		s->ended = EXIT_OK;
		return;
	}
	if (c == s->o->escape) {
		if (!s->o->listen)
			out[(*n)++] = (char)c;
		return;
	}
	say_help(s);
}

/* Keys typed: the escape commands taken out, the rest sent to the board
 * (nothing with --listen). */
static void from_terminal(struct session *s)
{
	unsigned char in[512];
	char out[1024];
	ssize_t got = read(STDIN_FILENO, in, sizeof(in));
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (got <= 0) {
		s->input_open = false;
		if (!s->o->listen)
			s->ended = EXIT_OK;
		return;
	}
	size_t n = 0;
	for (ssize_t i = 0; i < got && s->ended < 0; i++) {
		if (s->after_escape) {
			s->after_escape = false;
			escape_command(s, in[i], out, &n);
		} else if (in[i] == s->o->escape) {
			s->after_escape = true;
		} else if (!s->o->listen) {
			out[n++] = (char)in[i];
		}
	}
	char err[512];
	if (n && serial_port_write(s->port, out, n, CONSOLE_WRITE_TIMEOUT_MS, err,
				   sizeof(err)) < 0) {
		say("%s", err);
		s->ended = EXIT_INFRA;
	}
}

/* What the board said, to the terminal. */
static void from_board(struct session *s)
{
	char buf[4096], err[512];
	ssize_t n = serial_port_read(s->port, buf, sizeof(buf), err, sizeof(err));
	if (n < 0) {
		say("the console is gone: %s", err);
		s->ended = EXIT_INFRA;
	} else if (n > 0 && write_all(STDOUT_FILENO, buf, (size_t)n) < 0) {
		s->ended = EXIT_INTERRUPTED;   /* the terminal went away */
	}
}

static void relay(struct session *s)
{
	while (s->ended < 0) {
		struct pollfd p[3] = {
			{ .fd = serial_port_fd(s->port), .events = POLLIN },
			{ .fd = signal_pipe[0], .events = POLLIN },
			{ .fd = s->input_open ? STDIN_FILENO : -1, .events = POLLIN },
		};
		int timeout = serial_port_pending(s->port) ? 0 : -1;
		if (poll(p, 3, timeout) < 0) {
			if (errno == EINTR)
				continue;
			say("poll: %s", strerror(errno));
			s->ended = EXIT_INFRA;
			break;
		}
		if (p[1].revents) {
			unsigned char sig = 0;
			if (read(signal_pipe[0], &sig, 1) == 1)
				say("ended by signal %s", strsignal(sig));
			s->ended = EXIT_INTERRUPTED;
			break;
		}
		if (p[0].revents || serial_port_pending(s->port))
			from_board(s);
		if (s->ended < 0 && p[2].revents)
			from_terminal(s);
	}
}

static const int caught[] = { SIGTERM, SIGHUP, SIGINT, SIGQUIT };
#define N_CAUGHT (sizeof(caught) / sizeof(caught[0]))

/* Signals end the session through signal_pipe. 0, or -1. */
static int catch_signals(struct sigaction *old)
{
	if (pipe(signal_pipe) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		fcntl(signal_pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(signal_pipe[i], F_SETFL, O_NONBLOCK);
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_CAUGHT; i++)
		sigaction(caught[i], &sa, &old[i]);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void release_signals(const struct sigaction *old)
{
	for (size_t i = 0; i < N_CAUGHT; i++)
		sigaction(caught[i], &old[i], NULL);
	close(signal_pipe[0]);
	close(signal_pipe[1]);
	signal_pipe[0] = signal_pipe[1] = -1;
}

/* The session on an open console: terminal raw, relay, terminal back. */
static int session_run(struct serial_port *port, const struct console_options *o,
		       const char *board)
{
	struct sigaction old[N_CAUGHT];
	if (catch_signals(old) < 0) {
		fprintf(stderr, "orch console: pipe: %s\n", strerror(errno));
		return EXIT_INFRA;
	}
	struct termios saved, raw;
	bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
	char k[16];
	key_name(o->escape, k, sizeof(k));
	fprintf(stderr, "orch console: %s on %s%s; %s q ends the session, %s ? for help\n",
		board, serial_port_describe(port), o->listen ? ", read only" : "", k, k);
	if (tty) {
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSADRAIN, &raw);
	}
	struct session s = { .port = port, .o = o, .input_open = true, .ended = -1 };
	relay(&s);
	if (tty)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &saved);
	release_signals(old);
	fprintf(stderr, "\norch console: %s: session ended\n", board);
	return s.ended;
}

/* The board's lock, then its console through its link, then the session. */
static int console_board(const struct inventory *inv, const struct board *b,
			 const struct console_options *o)
{
	if (!b->serial.present) {
		fprintf(stderr, "orch console: %s: board %s has no serial: console\n", inv->path,
			b->name);
		return EXIT_USAGE;
	}
	char *note = xasprintf("orch console %s", b->name);
	struct manual_board m;
	int ret = cmd_manual_take("console", inv, b, note, false, &m);
	free(note);
	if (ret != EXIT_OK)
		return ret;
	struct serial_port *port;
	char err[1024];
	if (board_link_console(m.link, &port, err, sizeof(err)) < 0) {
		fprintf(stderr, "orch console: %s: %s\n", b->name, err);
		ret = EXIT_INFRA;
	} else {
		ret = session_run(port, o, b->name);
	}
	cmd_manual_release(&m);
	return ret;
}

int cmd_console(int argc, char **argv)
{
	struct console_options o = { 0 };
	int ret = parse(argc, argv, &o);
	if (ret)
		return ret == 1 ? EXIT_OK : ret;
	const struct board **boards = NULL;
	size_t nb = 0;
	struct inventory *inv = NULL;
	ret = cmd_manual_select("console", o.inventory, argv + optind, 1, &boards, &nb, &inv);
	if (ret == EXIT_OK && nb != 1)
		ret = cmd_usage_error("console", "'%s' selects %zu boards; give one", argv[optind],
				      nb);
	if (ret == EXIT_OK)
		ret = console_board(inv, boards[0], &o);
	free(boards);
	inventory_free(inv);
	return ret;
}
