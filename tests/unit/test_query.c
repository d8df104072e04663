/* test_query.c - unit tests of the query queue: priority order, the query
 * space limit and credits, packet encoding and upstream's space formula;
 * the immediate mode of protocols 64-76 and protocol 64's numbering. */
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

static const uint8_t wire_82[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
/* v0.10's ServerQuery: Disconnect 8, CallstackFrame 9, ExternalName 10. */
static const uint8_t wire_64[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 9, 11, 12, 13, 14, 15 };

/* 64-76: while there is space and nothing waits, a query is taken at once
 * (it leaves ahead of everything queued in the same frame, in issue order);
 * once one had to wait, the next ones queue even with space back. */
START_TEST(immediate_mode_keeps_issue_order_until_a_query_waits)
{
    wire_t w = {0};
    queryq_t q;
    queryq_init(&q, 3, sink, &w);
    queryq_set_protocol(&q, wire_82, true);
    queryq_push(&q, SQ_CALLSTACK_FRAME, 0x10, 0);
    queryq_push(&q, SQ_SYMBOL_CODE, 0x20, 5);
    queryq_push(&q, SQ_STRING, 0x30, 0);
    ck_assert_int_eq(q.space, 0);                  /* taken at once: space counted */
    queryq_push(&q, SQ_SOURCE_LOCATION, 0x40, 0);  /* no space: queued */
    query_credit(&q);
    queryq_push(&q, SQ_CALLSTACK_FRAME, 0x50, 0);  /* space, but one waits: queued */
    ck_assert_uint_eq(w.n, 0);                     /* nothing leaves before the flush */
    ck_assert_uint_eq(queryq_waiting(&q), 2);
    queryq_flush(&q);
    ck_assert_uint_eq(w.n, 4 * 13);
    ck_assert_int_eq(w.b[0], SQ_CALLSTACK_FRAME);  /* normal before priority: issue order */
    ck_assert_int_eq(w.b[13], SQ_SYMBOL_CODE);
    ck_assert_int_eq(w.b[26], SQ_STRING);
    ck_assert_int_eq(w.b[39], SQ_SOURCE_LOCATION);
    ck_assert_int_eq(q.space, 0);
    ck_assert_uint_eq(queryq_waiting(&q), 1);
    ck_assert_uint_eq(q.sent, 4);
    query_credit(&q);
    queryq_flush(&q);
    uint64_t ptr;
    memcpy(&ptr, w.b + 52 + 1, 8);
    ck_assert_uint_eq(ptr, 0x50);
    /* all sent: the next query is taken at once again */
    query_credit(&q);
    queryq_push(&q, SQ_SYMBOL, 0x60, 0);
    ck_assert_uint_eq(queryq_waiting(&q), 0);
    queryq_flush(&q);
    ck_assert_uint_eq(w.n, 6 * 13);
    ck_assert_int_eq(w.b[65], SQ_SYMBOL);
    queryq_free(&q);
}
END_TEST

/* The same pushes without immediate mode (82): priority first. */
START_TEST(without_immediate_mode_priority_goes_first)
{
    wire_t w = {0};
    queryq_t q;
    queryq_init(&q, 3, sink, &w);
    queryq_push(&q, SQ_CALLSTACK_FRAME, 0x10, 0);
    queryq_push(&q, SQ_STRING, 0x30, 0);
    queryq_flush(&q);
    ck_assert_int_eq(w.b[0], SQ_STRING);
    ck_assert_int_eq(w.b[13], SQ_CALLSTACK_FRAME);
    queryq_free(&q);
}
END_TEST

/* Protocol 64 numbers Disconnect 8, CallstackFrame 9, ExternalName 10, and
 * its priority queue takes the wire types below 8: ExternalName is a
 * normal query there. The counts stay by kind. */
START_TEST(protocol_64_numbering_and_priority)
{
    wire_t w = {0};
    queryq_t q;
    queryq_init(&q, 0, sink, &w);
    queryq_set_protocol(&q, wire_64, true);
    queryq_push(&q, SQ_EXTERNAL_NAME, 1, 0);
    queryq_push(&q, SQ_DISCONNECT, 2, 0);
    queryq_push(&q, SQ_CALLSTACK_FRAME, 3, 0);
    queryq_push(&q, SQ_FIBER_NAME, 4, 0);
    queryq_push(&q, SQ_SYMBOL, 5, 0);
    q.space = 10;
    queryq_flush(&q);
    ck_assert_uint_eq(w.n, 5 * 13);
    const uint8_t want[5] = { 7, 10, 8, 9, 11 };
    for (int i = 0; i < 5; i++) ck_assert_int_eq(w.b[13 * i], want[i]);
    ck_assert_uint_eq(q.issued[SQ_EXTERNAL_NAME], 1);
    ck_assert_uint_eq(q.issued[SQ_CALLSTACK_FRAME], 1);
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
    tcase_add_test(tc, immediate_mode_keeps_issue_order_until_a_query_waits);
    tcase_add_test(tc, without_immediate_mode_priority_goes_first);
    tcase_add_test(tc, protocol_64_numbering_and_priority);
    suite_add_tcase(s, tc);
    return s;
}
