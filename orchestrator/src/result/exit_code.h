#ifndef ORCH_RESULT_EXIT_CODE_H
#define ORCH_RESULT_EXIT_CODE_H
/*
 * orch's exit codes, the one definition every command and stage uses
 * (documented in docs/orch.1.md "EXIT STATUS"). From the code alone CI can
 * route a night: all passed, tests failed on a sound rack, the rack itself
 * broken, input refused, nothing ran, interrupted.
 *
 *   0   something ran and every test passed (a pass after an
 *       infrastructure retry is still 0)
 *   1   a test failed or regressed, and no infrastructure error
 *   2   invalid input (usage, scenario, inventory): nothing ran
 *   3   an infrastructure error (a test ended `error`: board, console or
 *       database unreachable, lost lock), whatever the tests did; also a
 *       run whose results were not all written when it would be 0 or 4
 *   4   nothing ran: every selected test skipped, or an empty plan or
 *       shard (`orch run --allow-empty` makes an empty plan 0)
 *   130 interrupted (partial results kept), before any of the above
 * The ad-hoc verbs (orch exec, copy, fetch; cli/adhoc.h) use 4 for "some
 * board failed and some was not reached" instead.
 */
#define EXIT_OK 0
#define EXIT_TEST_FAILED 1
#define EXIT_USAGE 2
#define EXIT_INFRA 3
#define EXIT_NOTHING_RAN 4
#define EXIT_INTERRUPTED 130

#endif
