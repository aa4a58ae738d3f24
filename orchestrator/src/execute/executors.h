#ifndef ORCH_EXECUTE_EXECUTORS_H
#define ORCH_EXECUTE_EXECUTORS_H
/*
 * The executors, one per test kind (run.c, bench.c, boot.c, transfer.c,
 * multi.c); execute_item (execute.h) repeats one and judges the result.
 * Each is one run (one repeat) into tr; all outcomes are in tr->status and
 * tr->message.
 */
#include "execute/context.h"
#include "result/result.h"

/* The executors, one per test kind; each is one run (one repeat). */
int execute_run(struct exec_context *ctx, struct test_result *tr);
int execute_bench(struct exec_context *ctx, struct test_result *tr);
int execute_boot(struct exec_context *ctx, struct test_result *tr);
int execute_transfer(struct exec_context *ctx, struct test_result *tr);
int execute_multi(struct exec_context *ctx, struct test_result *tr);

#endif
