/* test_query.c - unit tests of the query queue: priority order, the query
 * space limit and credits, packet encoding and upstream's space formula. */
#include <check.h>
#include <string.h>

#include "proto.h"
#include "query.h"
#include "unit.h"

typedef struct {
    uint8_t b[13 * 64];
    size_t n;
} wire_t;

static void sink(void *ctx, const uint8_t *p, size_t n)
{
    wire_t *w = ctx;
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

START_TEST(priority_queries_go_first_within_the_space)
{
    wire_t w = {0};
    queryq_t q;
    queryq_init(&q, 3, sink, &w);
    queryq_push(&q, SQ_CALLSTACK_FRAME, 0x10, 0);
    queryq_push(&q, SQ_STRING, 0x20, 0);
    queryq_push(&q, SQ_SYMBOL_CODE, 0x30, 77);
    queryq_push(&q, SQ_SOURCE_LOCATION, 0x40, 0);
    ck_assert_uint_eq(w.n, 0);                 /* nothing leaves before a flush */
    queryq_flush(&q);
    ck_assert_uint_eq(w.n, 3 * 13);            /* space 3 */
    ck_assert_int_eq(w.b[0], SQ_STRING);
    ck_assert_int_eq(w.b[13], SQ_SOURCE_LOCATION);
    ck_assert_int_eq(w.b[26], SQ_CALLSTACK_FRAME);
    ck_assert_int_eq(q.space, 0);
    ck_assert_uint_eq(queryq_waiting(&q), 1);
    queryq_flush(&q);
    ck_assert_uint_eq(w.n, 3 * 13);            /* no space, nothing sent */
    query_credit(&q);
    queryq_flush(&q);
    ck_assert_uint_eq(w.n, 4 * 13);
    uint64_t ptr;
    uint32_t extra;
    memcpy(&ptr, w.b + 39 + 1, 8);
    memcpy(&extra, w.b + 39 + 9, 4);
    ck_assert_int_eq(w.b[39], SQ_SYMBOL_CODE);
    ck_assert_uint_eq(ptr, 0x30);
    ck_assert_uint_eq(extra, 77);
    ck_assert_uint_eq(queryq_waiting(&q), 0);
    ck_assert_uint_eq(q.issued[SQ_STRING], 1);
    queryq_free(&q);
}
END_TEST

START_TEST(space_formula_matches_upstream)
{
    ck_assert_int_eq(query_space_for_sndbuf(16384), 1256);
    ck_assert_int_eq(query_space_for_sndbuf(106496), 8188);
    ck_assert_int_eq(query_space_for_sndbuf(4 << 20), 8188);
}
END_TEST

START_TEST(fifo_order_survives_many_partial_flushes)
{
    wire_t w;
    queryq_t q;
    queryq_init(&q, 0, sink, &w);
    for (uint64_t i = 0; i < 10000; i++) queryq_push(&q, SQ_SOURCE_LOCATION, i, 0);
    uint64_t expect = 0;
    while (queryq_waiting(&q)) {
        w.n = 0;
        q.space += 7;
        queryq_flush(&q);
        for (size_t k = 0; k < w.n; k += 13) {
            uint64_t ptr;
            memcpy(&ptr, w.b + k + 1, 8);
            ck_assert_uint_eq(ptr, expect++);
        }
    }
    ck_assert_uint_eq(expect, 10000);
    queryq_free(&q);
}
END_TEST

Suite *query_suite(void)
{
    Suite *s = suite_create("query queue");
    TCase *tc = tcase_create("queries");
    tcase_add_test(tc, priority_queries_go_first_within_the_space);
    tcase_add_test(tc, space_formula_matches_upstream);
    tcase_add_test(tc, fifo_order_survives_many_partial_flushes);
    suite_add_tcase(s, tc);
    return s;
}
