/* unit.h - the unit test suites (Check), one per module under test. */
#ifndef TC_UNIT_H
#define TC_UNIT_H

#include <check.h>

Suite *frame_suite(void);
Suite *event_suite(void);
Suite *query_suite(void);
Suite *tfile_suite(void);
Suite *model_suite(void);
Suite *fuzz_regressions_suite(void);
Suite *netdec_suite(void);
Suite *util_suite(void);
Suite *lookup_suite(void);
Suite *format_suite(void);
Suite *infer_suite(void);
Suite *announce_suite(void);
Suite *names_suite(void);
Suite *listen_suite(void);
Suite *pool_suite(void);
Suite *fileopts_suite(void);
Suite *families_suite(void);

#endif
