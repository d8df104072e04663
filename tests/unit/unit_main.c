/* unit_main.c - runs every unit test suite. */
#include <stdlib.h>

#include "unit.h"

int main(void)
{
    SRunner *sr = srunner_create(frame_suite());
    srunner_add_suite(sr, event_suite());
    srunner_add_suite(sr, query_suite());
    srunner_add_suite(sr, tfile_suite());
    srunner_add_suite(sr, model_suite());
    srunner_add_suite(sr, fuzz_regressions_suite());
    srunner_add_suite(sr, netdec_suite());
    srunner_add_suite(sr, util_suite());
    srunner_add_suite(sr, lookup_suite());
    srunner_add_suite(sr, format_suite());
    srunner_add_suite(sr, infer_suite());
    srunner_add_suite(sr, announce_suite());
    srunner_add_suite(sr, names_suite());
    srunner_add_suite(sr, listen_suite());
    srunner_add_suite(sr, pool_suite());
    srunner_add_suite(sr, fileopts_suite());
    srunner_add_suite(sr, families_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
