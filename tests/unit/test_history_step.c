/* history_find_step: a lasting step is found at its first point, noise and
 * a lone outlier are not steps, and the direction decides "worse". */
#include "testsupport.h"
#include "history/history.h"

static void test_step_found(void **state)
{
	double v[] = { 100.9, 98.8, 101.4, 99.6, 100.2, 78.9, 80.7, 81.3, 79.2, 80.3 };
	struct history_step st;
	for (size_t n = 6; n <= 10; n++) {
		assert_true(history_find_step(v, n, true, 5, &st));
		assert_int_equal(st.at, 5);
		assert_true(st.worse);
		assert_true(st.change_pct < -15 && st.change_pct > -25);
	}
	/* lower is better: the same drop is an improvement */
	assert_true(history_find_step(v, 10, false, 5, &st));
	assert_false(st.worse);
}

static void test_noise_is_no_step(void **state)
{
	double v[] = { 100.9, 98.8, 101.4, 99.6, 100.2, 98.9, 101.7 };
	struct history_step st;
	for (size_t n = 1; n <= 7; n++)
		assert_false(history_find_step(v, n, true, 5, &st));
	/* one outlier in the middle, back to normal after */
	double w[] = { 100.9, 98.8, 101.4, 70.0, 100.2, 98.9, 101.7 };
	assert_false(history_find_step(w, 7, true, 5, &st));
	/* a change smaller than the threshold is not reported, however clean */
	double x[] = { 100, 100, 100, 100, 97, 97, 97 };
	assert_false(history_find_step(x, 7, true, 5, &st));
	assert_true(history_find_step(x, 7, true, 2, &st));
	assert_int_equal(st.at, 4);
	/* two points before the step are the least it needs */
	double y[] = { 100, 101, 80 };
	assert_true(history_find_step(y, 3, true, 5, &st));
	assert_false(history_find_step(y + 1, 2, true, 5, &st));
}

/* The threshold is the one compare uses: a step of exactly the threshold is
 * not beyond it, judged on exact values (1000 -> 950 and 0.3 -> 0.285 alike,
 * although the doubles give 0.3 -> 0.285 as 5.0000000000000018%). */
static void test_threshold_is_strict(void **state)
{
	(void)state;
	struct history_step st;
	double a[] = { 1000, 1000, 1000, 950 };
	assert_false(history_find_step(a, 4, true, 5, &st));
	double b[] = { 0.3, 0.3, 0.3, 0.285 };
	assert_false(history_find_step(b, 4, true, 5, &st));
	double c[] = { 0.3, 0.3, 0.3, 0.2849 };
	assert_true(history_find_step(c, 4, true, 5, &st));
	double d[] = { 1000, 1000, 1000, 949.9 };
	assert_true(history_find_step(d, 4, true, 5, &st));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_found),
		cmocka_unit_test(test_noise_is_no_step),
		cmocka_unit_test(test_threshold_is_strict),
	};
	return ts_run_group(tests, NULL, NULL);
}
