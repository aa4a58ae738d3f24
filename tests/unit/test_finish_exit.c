/* The exit code, decided in one place (finish_exit_code): from the results
 * alone, then with what the caller knows that the results do not show. */
#include "testsupport.h"
#include "finish/finish.h"
#include "result/exit_code.h"
#include "result/result.h"

static void test_from_the_results(void **state)
{
	struct run_result run = { 0 };
	assert_int_equal(finish_exit_code(&run, NULL), EXIT_NOTHING_RAN);   /* empty plan */
	run_result_add(&run, "a", "t0")->status = STATUS_SKIP;
	assert_int_equal(finish_exit_code(&run, NULL), EXIT_NOTHING_RAN);   /* all skipped */
	run_result_add(&run, "a", "t1");
	run_result_add(&run, "a", "t2")->status = STATUS_SKIP;
	assert_int_equal(finish_exit_code(&run, NULL), EXIT_OK);
	run_result_add(&run, "c", "t1")->status = STATUS_FAIL;
	assert_int_equal(finish_exit_code(&run, NULL), EXIT_TEST_FAILED);
	run_result_add(&run, "b", "t1")->status = STATUS_ERROR;
	assert_int_equal(finish_exit_code(&run, NULL), EXIT_INFRA);   /* 3 whatever the tests did */
	run.interrupted = true;
	assert_int_equal(finish_exit_code(&run, NULL), EXIT_INTERRUPTED);
	run_result_release(&run);

	run_result_add(&run, "a", "t1")->regressed = true;   /* a regression alone is 1 */
	assert_int_equal(finish_exit_code(&run, NULL), EXIT_TEST_FAILED);
	run_result_release(&run);

	run_result_add(&run, "a", "t1")->status = STATUS_ERROR;
	run_result_add(&run, "b", "t1")->regressed = true;
	assert_int_equal(finish_exit_code(&run, NULL), EXIT_INFRA);
	run_result_release(&run);

	run_result_add(&run, "a", "t1")->board_offline = true;   /* the rack's, not the test's */
	assert_int_equal(finish_exit_code(&run, NULL), EXIT_INFRA);
	run_result_release(&run);
}

static void test_with_what_the_caller_knows(void **state)
{
	struct run_result run = { 0 };
	struct finish_options o = { .forced_exit_code = -1 };
	assert_int_equal(finish_exit_code(&run, &o), EXIT_NOTHING_RAN);
	o.allow_empty = true;   /* an empty plan is 0 ... */
	assert_int_equal(finish_exit_code(&run, &o), EXIT_OK);
	run_result_add(&run, "a", "t0")->status = STATUS_SKIP;
	assert_int_equal(finish_exit_code(&run, &o), EXIT_NOTHING_RAN);   /* ... all skipped is not */
	o.allow_empty = false;

	run_result_release(&run);
	run_result_add(&run, "a", "t1");
	o.infra_failed = true;   /* a pass with a broken rack is 3, a failure stays 1 */
	assert_int_equal(finish_exit_code(&run, &o), EXIT_INFRA);
	run_result_add(&run, "a", "t2")->status = STATUS_FAIL;
	assert_int_equal(finish_exit_code(&run, &o), EXIT_TEST_FAILED);
	o.infra_failed = false;

	o.forced_exit_code = EXIT_INFRA;   /* another controller's code for a joined run */
	assert_int_equal(finish_exit_code(&run, &o), EXIT_INFRA);
	run.interrupted = true;   /* ... but never over an interruption */
	assert_int_equal(finish_exit_code(&run, &o), EXIT_INTERRUPTED);
	run_result_release(&run);
}

TS_MAIN(NULL, NULL, test_from_the_results, test_with_what_the_caller_knows)
