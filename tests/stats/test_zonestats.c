/* test_zonestats: Check unit tests of the statistics gathered zone by zone
 * (zonestats.c): sumSq added in upstream's walk order (depth first, a zone
 * before the zones nested in it) although zones end children first, the
 * -u rows in that order, self times, and the zones that do not count. */
#include <check.h>
#include <stdlib.h>

#include "tfmodel.h"
#include "zonestats.h"

/* A model with the tables the statistics read: §5.13/§5.14 sizes, and
 * §5.15 listing ids 1 and 2 (id 3 is not listed). */
typedef struct fixture {
    tf_model m;
    tf_zone_count counts[2];
    tf_stats s;
    load_sink sink;
} fixture;

static void setup_fixture(fixture *f, const stats_options *o)
{
    tf_model_init(&f->m);
    f->counts[0] = (tf_zone_count){ .id = 1, .count = 0 };
    f->counts[1] = (tf_zone_count){ .id = 2, .count = 0 };
    f->m.cpu_counts = f->counts;
    f->m.cpu_count_count = 2;
    f->m.expand_count = 4;
    stats_init(&f->s, o);
    f->sink = stats_sink(&f->s);
    ck_assert_int_eq(f->sink.on_timelines(f->sink.ctx, &f->m), 0);
    ck_assert_int_eq(f->sink.on_thread(f->sink.ctx, 0, 7), 0);
}

static void teardown_fixture(fixture *f)
{
    stats_free(&f->s);
    f->m.cpu_counts = NULL;
    tf_model_free(&f->m);
}

static void begin(fixture *f, int16_t srcloc, int64_t start)
{
    ck_assert_int_eq(f->sink.on_zone_begin(f->sink.ctx, srcloc, start, 0), 0);
}

static void end(fixture *f, int64_t t)
{
    ck_assert_int_eq(f->sink.on_zone_end(f->sink.ctx, t), 0);
}

static const srcloc_stats *record(const fixture *f, int16_t id)
{
    for (size_t i = 0; i < f->s.cpu_count; i++)
        if (f->s.cpu[i].id == id)
            return &f->s.cpu[i];
    return NULL;
}

/* One zone of 2^30 + 1 ns holding 100 of its own srcloc of 15 ns: its
 * square first, then theirs, each rounded to the 256 of a double near
 * 2^60 (each 225 rounds up), is not their sum first (22500 rounds to
 * 22528): the order shows in the result. */
START_TEST(sum_of_squares_in_walk_order)
{
    fixture f;
    setup_fixture(&f, &(stats_options){ 0 });
    const int64_t outer = (INT64_C(1) << 30) + 1;
    begin(&f, 1, 0);
    for (int k = 0; k < 100; k++) {
        begin(&f, 1, 1 + 20 * k);
        end(&f, 1 + 20 * k + 15);
    }
    end(&f, outer);
    double walk = (double)outer * (double)outer, ends_first = 0;
    for (int k = 0; k < 100; k++) {
        walk += 225.0;
        ends_first += 225.0;
    }
    ends_first += (double)outer * (double)outer;
    ck_assert(walk != ends_first);
    const srcloc_stats *r = record(&f, 1);
    ck_assert_ptr_nonnull(r);
    ck_assert(r->sum_sq == walk);
    ck_assert_uint_eq(r->count, 101);
    ck_assert_int_eq(r->min, 15);
    ck_assert_int_eq(r->max, outer);
    ck_assert_int_eq(r->total, outer + 1500);
    ck_assert_int_eq(r->self_total, outer - 1500 + 1500);
    teardown_fixture(&f);
}
END_TEST

/* -u -e rows: the outer zone before its nested ones, zero-length and
 * unfinished zones left out, unclamped children in -e; the statistics'
 * self time clamps a child's negative span at 0. */
START_TEST(rows_in_walk_order_and_self_times)
{
    fixture f;
    setup_fixture(&f, &(stats_options){ .keep_rows = 1, .keep_values = 1, .self_rows = 1 });
    begin(&f, 1, 100);       /* outer: 100..1100 */
    begin(&f, 2, 200);       /*   child of srcloc 2: 100 ns */
    end(&f, 300);
    begin(&f, 1, 400);       /*   nested srcloc 1: 50 ns */
    begin(&f, 1, 410);       /*     zero length: not counted */
    end(&f, 410);
    end(&f, 450);
    begin(&f, 3, 500);       /*   unlisted srcloc: never counted, but a child */
    end(&f, 600);
    begin(&f, 2, 700);       /*   unfinished child: end -1 */
    end(&f, -1);
    end(&f, 1100);
    const srcloc_stats *r = record(&f, 1);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->count, 2);
    /* rows: outer, then nested; the zero-length one dropped */
    size_t live = 0;
    for (size_t i = 0; i < r->row_n; i++)
        if (!r->rows[i].dropped)
            live++;
    ck_assert_uint_eq(live, 2);
    ck_assert_int_eq(r->rows[0].start, 100);
    ck_assert_int_eq(r->rows[0].thread, 7);
    /* -e row: 1000 - (100 + 50 + 100 + (-1 - 700)) unclamped */
    ck_assert_int_eq(r->rows[0].exec, 1000 - (100 + 50 + 100 + (-1 - 700)));
    ck_assert_int_eq(r->rows[1].start, 400);
    ck_assert_int_eq(r->rows[1].exec, 50);
    /* statistics' self: the unfinished child counts 0 */
    ck_assert_int_eq(r->self_max, 1000 - (100 + 50 + 100));
    ck_assert_int_eq(r->self_min, 50);
    ck_assert_uint_eq(r->value_n, 2);
    const srcloc_stats *r2 = record(&f, 2);
    ck_assert_uint_eq(r2->count, 1);
    ck_assert_int_eq(r2->total, 100);
    ck_assert_ptr_null(record(&f, 3));
    teardown_fixture(&f);
}
END_TEST

static Suite *zonestats_suite(void)
{
    Suite *s = suite_create("zonestats");
    TCase *tc = tcase_create("sink");
    tcase_add_test(tc, sum_of_squares_in_walk_order);
    tcase_add_test(tc, rows_in_walk_order_and_self_times);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(zonestats_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
