/* tu_main.c — the main() of every Criterion test program (linked in by hipdnn_add_test).
 *
 * Criterion's own runner, with an exit status ctest can trust: 0 when at least one test ran and
 * every test that ran passed; 77 (the programs' SKIP_RETURN_CODE) when none failed and at least
 * one was skipped (cr_skip_test: no GPU, no compiler), so a skip is never counted as a pass; 1
 * when a test failed or crashed, and also when no test ran at all (a filter that matched
 * nothing). The names of skipped tests and their reasons go to stderr. `--list` and `--help`
 * exit 0 as Criterion's own main does.
 */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>

/* Counted per test: Criterion's global totals also count the tests a --filter left out as
 * skipped, and those never started. */
static struct {
    bool ran;
    size_t tests, failed, skipped;
} totals;

ReportHook(PRE_INIT)(struct criterion_test *test)
{
    (void)test;
    totals.tests++;
}

ReportHook(POST_TEST)(struct criterion_test_stats *stats)
{
    if (stats->test_status == CR_STATUS_SKIPPED) {
        totals.skipped++;
        fprintf(stderr, "skipped: %s/%s: %s\n", stats->test->category, stats->test->name,
                stats->message != NULL ? stats->message : "(no reason given)");
    }
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    totals.ran = true;
    totals.failed = stats->tests_failed + stats->tests_crashed;
}

int main(int argc, char *argv[])
{
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true))
        result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    if (!totals.ran) /* --list, --help, --version */
        return result;
    if (result != 0 || totals.failed > 0)
        return 1;
    if (totals.tests == 0) {
        fprintf(stderr, "%s: no test ran (a filter that matches nothing?)\n", argv[0]);
        return 1;
    }
    return totals.skipped > 0 ? 77 : 0;
}
