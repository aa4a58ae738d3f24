#ifndef ORCH_EXECUTE_EXECUTE_H
#define ORCH_EXECUTE_EXECUTE_H
/*
 * Executing one plan item: a command test, a remote-bench test, a boot test
 * or a multi-host test, on a board reached through its transport. The
 * executor writes the test's logs into ctx->test_dir and fills a
 * test_result; it never decides exit codes or writes run-level files.
 *
 * Everything that reaches a board goes through its board link
 * (link/board_link.h): executors ask it for a transport, the console or a
 * power action, and never open one themselves.
 *
 * Status rules: a command that ran and failed (non-zero exit, timeout,
 * missed expectation, boot phase over budget) is STATUS_FAIL; a board that
 * cannot be reached or stops answering, a push or power command that
 * failed, a serial port that is missing is STATUS_ERROR.
 */
#include <stdbool.h>
#include <stddef.h>

#include "execute/context.h"
#include "execute/executors.h"
#include "result/result.h"

/* Runs ctx->item once per repeat into tr (whose board/test names are set).
 * Returns 0; all outcomes are expressed in tr->status and tr->message. */
int execute_item(struct exec_context *ctx, struct test_result *tr);

#endif
