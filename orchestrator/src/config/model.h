#ifndef ORCH_CONFIG_MODEL_H
#define ORCH_CONFIG_MODEL_H
/*
 * The typed model of an inventory (boards) and a scenario (tests), as loaded
 * and validated from YAML (docs/orch-inventory.5.md, docs/orch-scenario.5.md). Loaded models
 * own every string; the planner, scheduler and executors borrow them. All
 * defaults are already applied and paths already resolved: nothing below the
 * loader looks at YAML or fills in a default again.
 */

/* Bytes kept per log file of a test unless log_limit: says otherwise. */
#define LOG_LIMIT_DEFAULT (64ull << 20)
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/regex.h"

/* Where a thing was written, for messages that point at the user's file. */
struct src_pos {
	const char *file;   /* borrowed from the owning inventory/scenario */
	int line;
	int col;
};

/* One entry of vars: or env: (NAME: value). */
struct var {
	char *name;
	char *value;
	bool test_level;          /* a test's vars: its own (else the scenario's) */
	struct src_pos pos;
};

enum host_key_policy {
	HOST_KEY_STRICT = 0,   /* known_hosts must hold a matching key */
	HOST_KEY_ACCEPT_NEW,   /* unknown hosts are added; a changed key is refused */
	HOST_KEY_OFF,          /* no check at all; warned about on every run */
};

struct board_ssh {
	bool present;             /* the board has an ssh: section */
	char *host;               /* NULL: the board name is used (may be a ~/.ssh/config alias) */
	int port;                 /* 0: from ~/.ssh/config, else 22 */
	char *user;               /* NULL: from ~/.ssh/config, else the local user */
	char *identity;           /* resolved path, or NULL */
	struct src_pos identity_pos;  /* where identity was written (board, group or defaults) */
	char *password_env;       /* name of the variable holding the password, or NULL */
	enum host_key_policy host_key;
	char *known_hosts;        /* resolved path; default ~/.ssh/known_hosts */
	int64_t connect_timeout_ms;  /* default 10 s */
	char *ciphers;            /* cipher names, first preferred; NULL: orch's order by arch */
	int64_t send_window;      /* bytes sent ahead of the board's acks; 0: its whole window */
	bool no_runner;           /* runner: false: every command on a channel of its own */
};

/* ssh: send_window: unless the inventory says otherwise (orch-inventory(5)) */
#define BOARD_SSH_SEND_WINDOW_DEFAULT (384 * 1024)

enum serial_parity { PARITY_NONE = 0, PARITY_ODD, PARITY_EVEN };
enum serial_flow { FLOW_NONE = 0, FLOW_RTSCTS, FLOW_XONXOFF };

struct board_serial {
	bool present;
	char *port;               /* device path (resolved like identity), or NULL */
	char *usb;                /* "VID:PID[:SERIAL]", or NULL */
	char *url;                /* "tcp://host:port" or "rfc2217://host:port", or NULL */
	int baud;                 /* default 115200 */
	int data_bits;            /* default 8 */
	enum serial_parity parity;
	int stop_bits;            /* default 1 */
	enum serial_flow flow;
	/* serial as a command transport */
	char *login_user;         /* default "root" */
	char *password_env;
	int64_t char_delay_us;    /* per-character delay when typing; default 0 */
};

struct board_power {
	char *on;                 /* shell commands run on the controller, or NULL */
	char *off;
	char *cycle;
};

enum board_transport {
	TRANSPORT_KIND_SSH = 0,
	TRANSPORT_KIND_SERIAL,
	TRANSPORT_KIND_LOCAL,
	TRANSPORT_KIND_NONE,      /* neither ssh nor serial nor local: only power */
};

/* health: of a board (inventory, per board or in defaults:): checks run
 * when a run first takes the board, each a test as in a scenario (run:,
 * boot:, bench: with expect:); shared between the boards that inherit it
 * (refs), freed with the last. */
struct test;
struct board_health {
	int refs;
	struct test *checks;
	size_t n_checks;
};

struct board {
	char *name;
	char *arch;               /* NULL: detected with uname -m when needed */
	char **tags;
	size_t n_tags;
	bool local;               /* runs on the controller, no SSH */
	char **controllers;       /* the controllers that reach it (joined runs); none: all */
	size_t n_controllers;
	char *workdir;            /* default "/tmp/orch" */
	enum board_transport transport;  /* for commands: explicit, else ssh > local > serial */
	struct board_ssh ssh;
	struct board_serial serial;
	struct board_power power;
	struct board_health *health;  /* NULL: no health checks */
	int offline_after;        /* offline after this many infrastructure errors in a row; 0: never */
	struct var *vars;         /* vars: {board.X} and {vars.X}, groups' and defaults' merged in */
	size_t n_vars;
	char **groups;            /* the groups it is in (through child groups too), as they apply */
	size_t n_groups;
	struct src_pos pos;
};

struct inventory {
	char *path;               /* as given; src_pos.file points here */
	char *dir;                /* directory of path, for resolving */
	struct board *boards;
	size_t n_boards;
	char **groups;            /* every group's name, in document order */
	size_t n_groups;
};

enum metric_better { BETTER_HIGHER = 0, BETTER_LOWER };
enum metric_from { METRIC_FROM_STDOUT = 0, METRIC_FROM_STDERR, METRIC_FROM_FILE };

struct metric_spec {          /* metrics: pulled out of a command's output */
	char *name;
	char *regex_src;
	struct orch_regex regex;
	int value_group;          /* group "value", else 1, else 0 (the whole match) */
	int unit_group;           /* 0, or the group whose text is the value's unit */
	char *unit;               /* "" when unitless; with unit_group, values convert to it */
	enum metric_better better;  /* better:, else from the unit or name (units.h) */
	bool better_guessed;      /* neither better: nor unit nor name said: higher assumed */
	enum metric_from from;
	char *from_file;          /* METRIC_FROM_FILE: path relative to the test's folder */
	bool optional;            /* optional: true: no value is recorded, not a failure */
	bool has_threshold;       /* threshold: of its own (percent), over the run's */
	double threshold_pct;
	/* settle: N, against the history a step either way is the new normal
	 * after N runs (0: a regression waits for orch history ack) */
	int settle;
	/* no regex: a metric a bench: program or parse: prints, named here for
	 * its threshold: alone (it reads nothing, is never missing) */
	bool bench_override;
	/* rate_of: SIZE, a rate computed from the time the test's command took
	 * (execute/timing.h) and this many bytes; 0: a metric read from output */
	uint64_t rate_bytes;
	struct src_pos pos;
};

struct expectation {          /* expect: { metric: { min: X, max: Y } } */
	char *metric;
	bool has_min;
	bool has_max;
	double min;
	double max;
	char *unit;               /* unit written with the bound, "" if none */
	struct src_pos pos;
	struct src_pos unit_pos;  /* the bound whose unit that is */
};

/* One text or pattern of an output check (expect: { stdout: { contains: X } }). */
struct output_pattern {
	char *src;                /* the text, or the regex as written */
	struct orch_regex regex;  /* matches: only */
	struct src_pos pos;
};

/* expect: { stdout: {...} } or { stderr: {...} }: checks on a stream's
 * whole lines. Each contains: text is in some line, no line holds a
 * not_contains: text, each matches: regex matches some line (searched in
 * the line; ^ and $ are its ends), and the stream has lines: min..max lines. */
struct stream_expect {
	bool present;
	struct output_pattern *contains;
	size_t n_contains;
	struct output_pattern *not_contains;
	size_t n_not_contains;
	struct output_pattern *matches;
	size_t n_matches;
	bool has_lines_min;
	bool has_lines_max;
	uint64_t lines_min;
	uint64_t lines_max;
	struct src_pos pos;
};

/* The output checks of a test or of a multi-host step. */
struct output_expect {
	struct stream_expect streams[2];  /* [0] stdout, [1] stderr */
	int *exit_codes;          /* expect: { exit_code: N or [N, ...] }; none: 0 */
	size_t n_exit_codes;
	struct src_pos exit_code_pos;
};

/* Names expect: keeps for output checks: never a metric's name. */
extern const char *const output_expect_reserved[];

enum boot_trigger { BOOT_TRIGGER_POWER_CYCLE = 0, BOOT_TRIGGER_REBOOT, BOOT_TRIGGER_NONE };

struct boot_phase {
	char *name;
	char *until_src;
	struct orch_regex until;
	int64_t max_ms;           /* 0: no budget */
	struct src_pos pos;
};

struct boot_spec {
	enum boot_trigger trigger;
	int64_t timeout_ms;       /* default: the test's timeout */
	char *base_src;           /* time base pattern, or NULL: the trigger instant */
	struct orch_regex base;
	struct boot_phase *phases;
	size_t n_phases;
};

struct role {                 /* roles: { server: vm, client: each } */
	char *name;               /* "server" */
	char *selector;           /* "vm", "tag:x", or "each" */
	bool each;                /* each selected board in turn */
	struct src_pos pos;
};

/* push: { src, dest, mode } / fetch: { src, dest } */
struct artifact {
	char *src;                /* push: resolved local path; fetch: path on the board */
	char *dest;               /* push: path on the board; fetch: path in the test's folder */
	int mode;                 /* push: permissions; -1: the local file's */
	struct src_pos pos;
};

struct step {
	char *on;                 /* role name */
	char *run;                /* command, with {role.field} substitutions */
	char *bench;              /* or a remote-bench program */
	char **args;
	size_t n_args;
	bool background;
	char *ready_src;          /* regex on a background step's output, or NULL */
	struct orch_regex ready;
	int64_t ready_timeout_ms; /* default 30 s */
	int64_t timeout_ms;       /* default: the test's timeout */
	char *parse;              /* "iperf3-json", "remote-bench", or NULL */
	struct var *env;          /* env: for this step (after the test's) */
	size_t n_env;
	struct artifact *push;    /* sent to each of the role's boards before the step */
	size_t n_push;
	struct artifact *fetch;   /* brought back after it (a background step's: at the end) */
	size_t n_fetch;
	struct output_expect output;  /* expect: of a foreground step */
	struct src_pos pos;
};


enum test_kind { TEST_RUN = 0, TEST_BENCH, TEST_BOOT, TEST_MULTI, TEST_TRANSFER };

/* transfer: { size, direction, path, ciphers, macs }: the board's SSH
 * transfer rate, optionally through a file on the board's file system */
struct transfer_spec {
	uint64_t bytes;           /* each way */
	bool up;                  /* controller to board (transfer.up) */
	bool down;                /* board to controller (transfer.down) */
	char *path;               /* the file (or an existing folder for it) on the board
				     written and read, or NULL: nothing written there */
	char *ciphers;            /* libssh cipher names for this test's own session,
				     first preferred, or NULL: the board's */
	char *macs;               /* libssh MAC names for it, or NULL: libssh's */
};

#define RETRY_INFRA_MAX 10
#define RETRY_BACKOFF_DEFAULT_MS 5000

struct test {
	char *name;
	char **tags;              /* tags: (for -t tag:T), or NULL */
	size_t n_tags;
	enum test_kind kind;
	char *run;                /* TEST_RUN: shell command */
	char *bench;              /* TEST_BENCH: program name (cpu, mem, ...) */
	char **args;              /* TEST_BENCH arguments */
	size_t n_args;
	char *parse;              /* TEST_RUN: "iperf3-json", "remote-bench" (JSON lines) or NULL */
	int repeat;               /* >= 1; with repeat_auto: the runs always made, min(3, repeat_max) */
	bool repeat_auto;         /* repeat: auto, up to repeat_max */
	int repeat_max;           /* cap for auto; default 10 */
	int64_t timeout_ms;
	uint64_t log_limit;       /* bytes kept per log file; default 64 MiB */
	bool leftovers_fail;      /* leftovers: fail (processes a step left running fail
				     the test); default warn: they are stopped and reported */
	int retry_infra;          /* retry: { infra: N }: tries after an infrastructure error */
	int64_t retry_backoff_ms; /* retry: { backoff }: pause before each; default 5 s */
	struct metric_spec *metrics;
	size_t n_metrics;
	struct expectation *expects;
	size_t n_expects;
	struct output_expect output;  /* expect: { stdout:, stderr:, exit_code: } */
	struct boot_spec boot;    /* TEST_BOOT */
	struct transfer_spec transfer;  /* TEST_TRANSFER */
	struct role *roles;       /* TEST_MULTI */
	size_t n_roles;
	struct step *steps;
	size_t n_steps;
	struct var *vars;         /* the scenario's vars:, then the test's own over them */
	size_t n_vars;
	struct var *env;          /* env: exported to the test's commands */
	size_t n_env;
	struct artifact *push;    /* files sent to the board before the command */
	size_t n_push;
	struct artifact *fetch;   /* files brought back into the test's folder after it */
	size_t n_fetch;
	char **board_selectors;   /* boards: of this test (narrows the scenario's), or NULL */
	size_t n_board_selectors;
	struct src_pos *board_selector_pos;
	struct src_pos pos;
};

/* facts: { NAME: "command" }: more facts gathered with the built-in ones. */
struct fact_spec {
	char *name;
	char *command;            /* first line of its stdout is the value */
	struct src_pos pos;
};

/* The facts every board reports (execute/facts.c gathers them), NULL-ended. */
extern const char *const scenario_builtin_facts[];

struct scenario {
	char *path;
	char *dir;
	char *name;
	char *inventory_path;     /* resolved against dir, or NULL */
	char **board_selectors;   /* default: ["all"] */
	size_t n_board_selectors;
	struct src_pos *board_selector_pos;  /* where each was written (0:0 for the default) */
	int64_t default_timeout_ms;  /* default 5 min */
	uint64_t default_log_limit;  /* default 64 MiB (LOG_LIMIT_DEFAULT) */
	bool default_leftovers_fail; /* defaults: { leftovers: fail } */
	int default_repeat;
	int default_retry_infra;     /* defaults: { retry: { infra: N } }; 0 */
	int64_t default_retry_backoff_ms;  /* defaults: { retry: { backoff } }; 5 s */
	char *baseline;           /* run folder, "latest", "history", or NULL */
	double threshold_pct;     /* regression threshold; default 5 */
	struct fact_spec *facts;  /* facts: */
	size_t n_facts;
	char *label;              /* label: "text", or NULL */
	char *label_fact;         /* label: { fact: NAME }, or NULL */
	struct test *tests;
	size_t n_tests;
	struct var *vars;         /* the scenario's vars: */
	size_t n_vars;
	char **files;             /* included files (src_pos.file may point at these) */
	size_t n_files;
};

#endif
