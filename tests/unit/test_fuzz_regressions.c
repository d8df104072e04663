/* test_fuzz_regressions.c - what the fuzz targets (tests/fuzz) found, each
 * reduced to its essence. Most are client-controlled times far apart or
 * out of range: they enter the model within the +-2^47 ns a trace holds
 * (model_time keeps one outside at the nearest end, a failure), and the
 * arithmetic on them wraps instead of overflowing (undefined behaviour,
 * which the sanitizer builds report). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "proto.h"
#include "unit.h"
#include "writer.h"

typedef struct {
    queryq_t q;
    model_t m;
} fixture_t;

static void setup(fixture_t *f, double timer_mul, int64_t base)
{
    queryq_init(&f->q, 1000, NULL, NULL);
    model_init(&f->m, &f->q);
    const welcome_t w = { .timer_mul = timer_mul, .init_begin = base, .init_end = base };
    model_welcome(&f->m, &w);
}

static void teardown(fixture_t *f)
{
    model_free(&f->m);
    queryq_free(&f->q);
}

/* A hardware sample whose time does not fit in int64 once scaled: kept at
 * the end of the range, a failure for each time outside it. */
START_TEST(time_out_of_range_is_kept_at_the_end_of_the_range)
{
    fixture_t f;
    setup(&f, 1e6, 0);      /* the coarsest clock taken */
    const int64_t far = INT64_C(1) << 40;
    const uint64_t welcome_failures = f.m.failures;
    ck_assert_int_eq(model_time(&f.m, far), MODEL_TIME_MAX);
    ck_assert_int_eq(model_time(&f.m, -far), -MODEL_TIME_MAX);
    ck_assert_int_eq(model_time(&f.m, 0), 0);
    model_hw_sample(&f.m, 0, 0x1234, far);
    ck_assert_uint_eq(f.m.hw.n, 1);
    ck_assert_int_eq(f.m.hw.v[0].v[0].v[0], MODEL_TIME_MAX);
    ck_assert_uint_eq(f.m.failures, welcome_failures + 3);
    ck_assert_ptr_nonnull(strstr(f.m.first_failure, "outside the +-2^47 ns"));
    teardown(&f);
    /* ticks - base wraps */
    setup(&f, 1.0, -10);
    ck_assert_int_eq(model_time(&f.m, INT64_MAX), -MODEL_TIME_MAX);
    ck_assert_int_eq(model_time(&f.m, (INT64_C(1) << 47) - 11), MODEL_TIME_MAX);
    ck_assert_uint_eq(f.m.failures, 1);
    teardown(&f);
}
END_TEST

/* A GPU time far beyond the range (the client's GPU ticks): kept at its
 * end, a failure. */
START_TEST(gpu_time_out_of_range_is_kept_at_the_end_of_the_range)
{
    fixture_t f;
    setup(&f, 1.0, 0);
    model_gpu_new_context(&f.m, 100, 100, 0, 1.0f, 0, 0, 1);
    model_gpu_zone_begin(&f.m, 200, 1000, 5, 0, 0x1000, false, false, false);
    model_gpu_time(&f.m, INT64_C(1) << 60, 5, 0);
    ck_assert_uint_eq(f.m.gpu_order.n, 1);
    ck_assert_int_eq(f.m.gpu_order.v[0]->zones.v[0].gpu_start, MODEL_TIME_MAX);
    ck_assert_uint_eq(f.m.failures, 1);
    ck_assert_ptr_nonnull(strstr(f.m.first_failure, "a GPU time of 1152921504606846976 GPU ticks"));
    teardown(&f);
}
END_TEST

/* A welcome timer multiplier that is not a finite positive number: ticks
 * are taken as ns, one failure. */
START_TEST(timer_multiplier_not_finite_and_positive_is_taken_as_one)
{
    const double bad[] = { NAN, INFINITY, -INFINITY, 0.0, -1.0 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fixture_t f;
        setup(&f, bad[i], 100);
        ck_assert(f.m.timer_mul == 1.0);
        ck_assert_int_eq(model_time(&f.m, 1100), 1000);
        ck_assert_uint_eq(f.m.failures, 1);
        ck_assert_ptr_nonnull(strstr(f.m.first_failure, "is not a finite positive number"));
        teardown(&f);
    }
    /* beyond a millisecond per tick, no clock's: the same */
    const double huge[] = { 1e6 * 1.01, 1e30, DBL_MAX };
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        fixture_t f;
        setup(&f, huge[i], 100);
        ck_assert(f.m.timer_mul == 1.0);
        ck_assert_uint_eq(f.m.failures, 1);
        ck_assert_ptr_nonnull(strstr(f.m.first_failure, "is beyond any clock's"));
        teardown(&f);
    }
    fixture_t f;
    setup(&f, 1e6, 100);    /* a millisecond per tick is kept */
    ck_assert(f.m.timer_mul == 1e6);
    ck_assert_uint_eq(f.m.failures, 0);
    teardown(&f);
}
END_TEST

/* A lock event 1.6e19 ns before the one before it: both times kept at the
 * ends of the range, the warning states the distance without overflowing,
 * and the time is kept monotonic. */
START_TEST(lock_time_going_far_back_is_reported_without_overflow)
{
    fixture_t f;
    setup(&f, 1.0, 0);
    model_lock_announce(&f.m, 1, 0, 0x1000, 0);
    model_lock_event(&f.m, 1, 7, 6917634582619387904LL, 0, true);
    model_lock_event(&f.m, 1, 7, -9223231296967486464LL, 1, true);
    ck_assert_uint_eq(f.m.locks.n, 1);
    ck_assert_uint_eq(f.m.locks.v[0].events.n, 2);
    ck_assert_int_eq(f.m.locks.v[0].events.v[1].time, f.m.locks.v[0].events.v[0].time);
    ck_assert_uint_eq(f.m.failures, 3);
    ck_assert_ptr_nonnull(strstr(f.m.first_failure, "outside the +-2^47 ns"));
    f.m.failures = 0;
    model_lock_event(&f.m, 1, 7, -(INT64_C(1) << 46), 1, true);
    ck_assert_ptr_nonnull(strstr(f.m.first_failure, "goes back 211106232532991 ns"));
    teardown(&f);
}
END_TEST

/* A thread switched in at -6e18 ns and out at +6e18 ns: kept at the ends
 * of the range. */
START_TEST(context_switch_running_time_wraps)
{
    fixture_t f;
    setup(&f, 1.0, 0);
    const int64_t in = -6000000000000000000, out = 6000000000000000000;
    model_context_switch(&f.m, in, 0, 7, 0, 0, 0);
    model_context_switch(&f.m, out, 7, 0, 0, 0, 0);
    uint64_t *v = hmap_get(&f.m.switch_map, 7);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(f.m.switches.v[*v].running_time, 2 * MODEL_TIME_MAX);
    teardown(&f);
}
END_TEST

/* Two power reports of one name 2^63 + 4.7e16 ns apart: kept at the ends
 * of the range. */
START_TEST(power_plot_interval_wraps)
{
    fixture_t f;
    setup(&f, 1.0, 0);
    model_sys_power(&f.m, INT64_MIN, 10, 0x99);
    model_sys_power(&f.m, 46795508789073352, 10, 0x99);
    const uint64_t *v = hmap_get(&f.m.power_map, 0x99);
    ck_assert_ptr_nonnull(v);
    const plot_t *p = f.m.plots[*v];
    ck_assert_uint_eq(p->points.n, 1);
    ck_assert(p->points.v[0].val == 10 * 1000.0 / (double)(2 * MODEL_TIME_MAX));
    teardown(&f);
}
END_TEST

/* A 65535x65535 frame image with 8 bytes of data would have been padded
 * to 2 GiB by the writer: it is dropped as malformed instead. */
START_TEST(frame_image_shorter_than_its_size_is_dropped)
{
    fixture_t f;
    setup(&f, 1.0, 0);
    const uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    model_frame_image_data(&f.m, data, sizeof data);
    model_frame_image(&f.m, 3, 65535, 65535, 0);
    ck_assert_uint_eq(f.m.images.n, 0);
    ck_assert_uint_eq(f.m.failures, 1);
    model_frame_image_data(&f.m, data, sizeof data);
    model_frame_image(&f.m, 3, 4, 4, 0);
    ck_assert_uint_eq(f.m.images.n, 1);
    teardown(&f);
}
END_TEST

/* Symbol code of 0 bytes (kept as a NULL buffer) is written as an empty blob. */
START_TEST(empty_symbol_code_is_written)
{
    fixture_t f;
    setup(&f, 1.0, 0);
    model_symbol_code(&f.m, 0x1000, (const uint8_t *)"", 0);
    ck_assert_uint_eq(f.m.symbol_code.n, 1);
    ck_assert_ptr_null(f.m.symbol_code.v[0].p);
    model_finish(&f.m);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    tfile_t t;
    ck_assert_int_eq(tfile_open(&t, fp, 1, 0, 0), 0);
    writer_write_trace(&f.m, file_format_default(), &t);
    ck_assert_int_eq(tfile_close(&t), 0);
    fclose(fp);
    ck_assert_uint_gt(len, 6);
    free(buf);
    teardown(&f);
}
END_TEST

Suite *fuzz_regressions_suite(void)
{
    Suite *s = suite_create("fuzz regressions");
    TCase *tc = tcase_create("fuzz regressions");
    tcase_add_test(tc, time_out_of_range_is_kept_at_the_end_of_the_range);
    tcase_add_test(tc, timer_multiplier_not_finite_and_positive_is_taken_as_one);
    tcase_add_test(tc, gpu_time_out_of_range_is_kept_at_the_end_of_the_range);
    tcase_add_test(tc, context_switch_running_time_wraps);
    tcase_add_test(tc, power_plot_interval_wraps);
    tcase_add_test(tc, frame_image_shorter_than_its_size_is_dropped);
    tcase_add_test(tc, empty_symbol_code_is_written);
    tcase_add_test(tc, lock_time_going_far_back_is_reported_without_overflow);
    suite_add_tcase(s, tc);
    return s;
}
