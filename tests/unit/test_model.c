/* test_model.c - unit tests of the trace model's upstream-mirroring rules:
 * source-location ids, FIFO matching of SourceLocation answers, thread
 * numbering, message order on equal times, frame-set merging, the
 * end-of-session conditions, zone texts joined from many parts, the
 * memory the model says it holds (model_memory), and each rule by which
 * the releases' servers differ (model_rules_t). */
#include <check.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunkpool.h"
#include "model.h"
#include "proto.h"
#include "unit.h"

typedef struct {
    queryq_t q;
    model_t m;
} fixture_t;

static void setup(fixture_t *f)
{
    queryq_init(&f->q, 1000, NULL, NULL);
    model_init(&f->m, &f->q);
    const welcome_t w = { .timer_mul = 1.0 };
    model_welcome(&f->m, &w);
}

static void teardown(fixture_t *f)
{
    model_free(&f->m);
    queryq_free(&f->q);
}

START_TEST(srcloc_ids_follow_first_use_and_answers_are_fifo)
{
    fixture_t f;
    setup(&f);
    model_thread_context(&f.m, 5);
    model_lock_announce(&f.m, 1, 0, 0x500, 0);      /* id 1, lock site */
    model_zone_begin(&f.m, 10, 0x600, false);        /* id 2 */
    model_zone_begin(&f.m, 20, 0x500, false);        /* reuses id 1 */
    ck_assert_uint_eq(f.m.srcloc_expand.n, 3);
    ck_assert_uint_eq(f.m.srcloc_expand.v[1], 0x500);
    ck_assert_uint_eq(f.m.srcloc_expand.v[2], 0x600);
    ck_assert_uint_eq(f.q.issued[SQ_SOURCE_LOCATION], 2);
    /* Answers carry no address: the first answers the first question. */
    model_source_location(&f.m, 0, 0x1001, 0x1002, 11, 1, 2, 3);
    model_source_location(&f.m, 0x1003, 0x1001, 0x1002, 22, 0, 0, 0);
    const srcloc_static_t *a = &f.m.srclocs.v[*hmap_get(&f.m.srcloc_map, 0x500)];
    const srcloc_static_t *b = &f.m.srclocs.v[*hmap_get(&f.m.srcloc_map, 0x600)];
    ck_assert_uint_eq(a->line, 11);
    ck_assert_uint_eq(a->color, 0x030201);
    ck_assert_uint_eq(b->line, 22);
    ck_assert_uint_eq(b->name, 0x1003);
    /* string pointers are asked for once each */
    ck_assert_uint_eq(f.q.issued[SQ_STRING], 3);
    /* an answer to no question is walked over */
    model_source_location(&f.m, 0, 0, 0, 1, 0, 0, 0);
    ck_assert_uint_eq(f.m.failures, 1);
    teardown(&f);
}
END_TEST

START_TEST(dynamic_srclocs_dedup_by_content_including_color)
{
    fixture_t f;
    setup(&f);
    uint8_t p[64];
    uint32_t color = 0x112233, line = 100;
    memcpy(p, &color, 4);
    memcpy(p + 4, &line, 4);
    memcpy(p + 8, "fn\0file.c\0name", 15);
    model_source_location_payload(&f.m, p, 23);
    ck_assert_int_eq(f.m.pending_payload_srcloc, -1);
    f.m.pending_payload_srcloc = 0;
    model_source_location_payload(&f.m, p, 23);
    ck_assert_int_eq(f.m.pending_payload_srcloc, -1);
    f.m.pending_payload_srcloc = 0;
    color = 0x112234;
    memcpy(p, &color, 4);
    model_source_location_payload(&f.m, p, 23);
    ck_assert_int_eq(f.m.pending_payload_srcloc, -2);
    ck_assert_uint_eq(f.m.srcloc_payloads.v[1].color, 0x342211);
    /* no name part: name unset */
    f.m.pending_payload_srcloc = 0;
    model_source_location_payload(&f.m, p, 18);
    ck_assert_int_eq(f.m.srcloc_payloads.v[2].name, -1);
    teardown(&f);
}
END_TEST

START_TEST(only_the_upstream_call_sites_number_threads)
{
    fixture_t f;
    setup(&f);
    model_thread_context(&f.m, 100);
    model_zone_begin(&f.m, 10, 0x600, false);
    model_zone_end(&f.m, 20);
    ck_assert_uint_eq(f.m.local_threads.n, 1);       /* zones do not register */
    ck_assert_uint_eq(f.m.nthreads, 1);               /* but create the thread */
    model_mem_alloc(&f.m, 30, 200, 0x10, 8, false, false);
    model_mem_free(&f.m, 40, 300, 0x99, false, false); /* unknown pointer: no */
    model_single_string(&f.m, (const uint8_t *)"m", 1);
    model_message(&f.m, 50, 0, false, 0xFFFFFFFF, 0, false);
    ck_assert_uint_eq(f.m.local_threads.n, 3);
    ck_assert_uint_eq(f.m.local_threads.v[1], 200);
    ck_assert_uint_eq(f.m.local_threads.v[2], 100);
    teardown(&f);
}
END_TEST

START_TEST(equal_message_times_keep_reverse_arrival_order)
{
    fixture_t f;
    setup(&f);
    model_thread_context(&f.m, 1);
    const char *texts[] = { "a", "b", "c" };
    const int64_t times[] = { 100, 100, 50 };
    for (int i = 0; i < 3; i++) {
        model_single_string(&f.m, (const uint8_t *)texts[i], 1);
        model_message(&f.m, times[i], 0, false, 0xFFFFFFFF, 0, false);
    }
    ck_assert_uint_eq(f.m.message_order.n, 3);
    ck_assert_uint_eq(f.m.message_order.v[0], 2);    /* c at 50 */
    ck_assert_uint_eq(f.m.message_order.v[1], 1);    /* b before a */
    ck_assert_uint_eq(f.m.message_order.v[2], 0);
    teardown(&f);
}
END_TEST

START_TEST(frame_sets_with_the_same_name_merge)
{
    fixture_t f;
    setup(&f);
    model_frame_mark(&f.m, 300, 0xA);
    model_frame_mark(&f.m, 100, 0xB);
    model_frame_mark(&f.m, 200, 0xA);
    ck_assert_uint_eq(f.q.issued[SQ_FRAME_NAME], 2);
    model_frame_name(&f.m, 0xA, (const uint8_t *)"Render", 6);
    model_frame_name(&f.m, 0xB, (const uint8_t *)"Render", 6);
    ck_assert_uint_eq(f.m.frame_disc.order.n, 2);     /* base + Render */
    const frameset_t *r = f.m.framesets[f.m.frame_disc.order.v[1]];
    ck_assert_uint_eq(r->frames.n, 3);
    ck_assert_int_eq(r->frames.v[0].start, 100);
    ck_assert_int_eq(r->frames.v[2].start, 200);
    ck_assert_str_eq(model_ptr_string(&f.m, 0), "Frame");
    teardown(&f);
}
END_TEST

START_TEST(end_of_session_waits_for_answers_and_open_zones)
{
    fixture_t f;
    setup(&f);
    model_thread_context(&f.m, 9);
    model_zone_begin(&f.m, 10, 0x600, false);
    char why[256];
    ck_assert(model_pending_work(&f.m, true, false, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "1 source locations"));
    ck_assert_ptr_nonnull(strstr(why, "1 thread names"));
    ck_assert_ptr_nonnull(strstr(why, "1 open zones"));
    ck_assert_ptr_nonnull(strstr(why, "queries not yet sent"));
    queryq_flush(&f.q);
    model_source_location(&f.m, 0, 0, 0, 1, 0, 0, 0);
    model_thread_name(&f.m, 9, (const uint8_t *)"main", 4);
    ck_assert(model_pending_work(&f.m, true, false, why, sizeof why));
    ck_assert_msg(!model_pending_work(&f.m, false, false, why, sizeof why), "still: %s", why);
    teardown(&f);
}
END_TEST

/* Allocations sealed into the compact stream come back as they were,
 * including frees that arrive after sealing. */
START_TEST(memory_events_survive_sealing)
{
    memlog_t l = {0};
    const uint64_t n = 400000;
    for (uint64_t i = 0; i < n; i++) {
        mem_event_t e = { .ptr = 0x100000 + (i * 7919 % 50000) * 64, .size = i % 4096 + 1, .cs_alloc = (uint32_t)(i % 13),
                          .time_alloc = (int64_t)(i * 1000), .time_free = -1, .thread_alloc = (uint16_t)(i % 3) };
        ck_assert_uint_eq(memlog_alloc(&l, &e), i);
        /* free most right away, some late, some never */
        if (i % 10 != 0) memlog_free_event(&l, i, e.time_alloc + 500, 2, 7);
        if (i >= 40000 && i % 10 == 0 && (i - 40000) % 20 == 0)
            ck_assert_uint_eq(memlog_free_event(&l, i - 40000, (int64_t)(i * 1000), 1, 9), (i - 40000) % 4096 + 1);
    }
    ck_assert_uint_lt(l.bytes + l.window.cap * sizeof(mem_event_t), n * sizeof(mem_event_t) / 2);
    memlog_reader_t r;
    mem_event_t e;
    memlog_reader_init(&r, &l);
    uint64_t i = 0;
    for (; memlog_next(&r, &e); i++) {
        ck_assert_uint_eq(e.ptr, 0x100000 + (i * 7919 % 50000) * 64);
        ck_assert_uint_eq(e.size, i % 4096 + 1);
        ck_assert_int_eq(e.time_alloc, (int64_t)(i * 1000));
        ck_assert_uint_eq(e.cs_alloc, i % 13);
        if (i % 10 != 0) {
            ck_assert_int_eq(e.time_free, e.time_alloc + 500);
            ck_assert_uint_eq(e.cs_free, 7);
        } else if (i + 40000 < n && i % 20 == 0) {
            ck_assert_int_eq(e.time_free, (int64_t)((i + 40000) * 1000));
            ck_assert_uint_eq(e.thread_free, 1);
        } else {
            ck_assert_int_eq(e.time_free, -1);
        }
    }
    ck_assert_uint_eq(i, n);
    memlog_free(&l);
}
END_TEST

/* Every width of number the sealed stream stores: random 64-bit pointers,
 * sizes of every bit length up to 2^64 - 1, times jumping back and forth
 * across 2^62 ns, call stacks and threads at their limits. */
START_TEST(memory_events_of_every_width_survive_sealing)
{
    enum { N = 60000 };
    static mem_event_t ref[N];
    memlog_t l = {0};
    uint64_t x = 0xD1B54A32D192ED03ULL;
    for (uint64_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const unsigned width = (unsigned)(x % 65);      /* 0..64 bits */
        const uint64_t mixed = x * 0x9E3779B97F4A7C15ULL;
        const uint64_t big = width == 0 ? 0 : width == 64 ? mixed : mixed >> (64 - width);
        mem_event_t e = { .ptr = x * 0xBF58476D1CE4E5B9ULL, .size = big,
                          .cs_alloc = (uint32_t)(i % 7 == 0 ? 0xFFFFFF : i % 5),
                          .time_alloc = i % 11 == 0 ? (int64_t)i : (int64_t)(x >> 2),
                          .time_free = -1, .thread_alloc = (uint16_t)(i % 3 == 0 ? 0xFFFF : i % 4) };
        ck_assert_uint_eq(memlog_alloc(&l, &e), i);
        ref[i] = e;
        if (i % 3 != 0) {
            const int64_t t = i % 6 == 1 ? INT64_MAX : e.time_alloc + (int64_t)(x % 1000000);
            const uint16_t th = (uint16_t)(i % 4 == 1 ? 0xFFFE : e.thread_alloc);
            memlog_free_event(&l, i, t, th, (uint32_t)(i % 9 == 0 ? 0xFFFFFF : 3));
            ref[i].time_free = t;
            ref[i].thread_free = th;
            ref[i].cs_free = (uint32_t)(i % 9 == 0 ? 0xFFFFFF : 3);
        }
    }
    memlog_reader_t r;
    mem_event_t e;
    memlog_reader_init(&r, &l);
    uint64_t i = 0;
    for (; memlog_next(&r, &e); i++) {
        ck_assert_uint_eq(e.ptr, ref[i].ptr);
        ck_assert_uint_eq(e.size, ref[i].size);
        ck_assert_int_eq(e.time_alloc, ref[i].time_alloc);
        ck_assert_uint_eq(e.cs_alloc, ref[i].cs_alloc);
        ck_assert_uint_eq(e.thread_alloc, ref[i].thread_alloc);
        ck_assert_int_eq(e.time_free, ref[i].time_free);
        if (ref[i].time_free >= 0) {
            ck_assert_uint_eq(e.thread_free, ref[i].thread_free);
            ck_assert_uint_eq(e.cs_free, ref[i].cs_free);
        }
    }
    ck_assert_uint_eq(i, N);
    memlog_free(&l);
}
END_TEST

/* The text of the innermost open zone of thread 5, as the file will hold it. */
static const char *zone_text_of(const model_t *m, const open_zone_t *z)
{
    const uint32_t text = m->zone_extras.v[z->extra].text;
    ck_assert_uint_ne(text, 0);
    ck_assert_uint_eq(text & TEXT_BUILDING, 0);
    return strtab_get(&m->strings, text - 1);
}

/* A zone's texts and values are joined with newlines, as upstream joins
 * them (texts up to their first NUL), and the join is interned once: 3000
 * values add one string, not 3000 ever longer ones. A zone still open when
 * the capture ends keeps its joined text too. */
START_TEST(zone_text_parts_are_joined_and_interned_once)
{
    fixture_t f;
    setup(&f);
    model_thread_context(&f.m, 5);
    model_zone_begin(&f.m, 10, 0x600, false);
    model_single_string(&f.m, (const uint8_t *)"first\0hidden", 12);
    model_zone_text(&f.m);
    for (uint64_t v = 0; v < 3000; v++) model_zone_value(&f.m, v);
    model_single_string(&f.m, (const uint8_t *)"last", 4);
    model_zone_text(&f.m);
    const size_t strings = f.m.strings.n;
    const open_zone_t *z = &f.m.threads[0]->stack.v[0];
    const uint32_t extra = z->extra;
    model_zone_end(&f.m, 20);
    ck_assert_uint_eq(f.m.strings.n, strings + 1);
    static char want[3000 * 24 + 16];
    size_t n = (size_t)snprintf(want, sizeof want, "first");
    for (uint64_t v = 0; v < 3000; v++) n += (size_t)snprintf(want + n, sizeof want - n, "\n%lu [0x%lx]", (unsigned long)v, (unsigned long)v);
    snprintf(want + n, sizeof want - n, "\nlast");
    ck_assert_str_eq(strtab_get(&f.m.strings, f.m.zone_extras.v[extra].text - 1), want);
    /* one part only: the string itself, NULs and all */
    model_zone_begin(&f.m, 30, 0x600, false);
    model_single_string(&f.m, (const uint8_t *)"only\0one", 8);
    model_zone_text(&f.m);
    ck_assert_uint_eq(strtab_len(&f.m.strings, f.m.zone_extras.v[f.m.threads[0]->stack.v[0].extra].text - 1), 8);
    /* an open zone with several parts, and its open child with several */
    model_zone_value(&f.m, 7);
    model_zone_begin(&f.m, 40, 0x600, false);
    model_zone_value(&f.m, 8);
    model_zone_value(&f.m, 9);
    model_finish(&f.m);
    ck_assert_str_eq(zone_text_of(&f.m, &f.m.threads[0]->stack.v[0]), "only\n7 [0x7]");
    ck_assert_str_eq(zone_text_of(&f.m, &f.m.threads[0]->stack.v[1]), "8 [0x8]\n9 [0x9]");
    ck_assert_uint_eq(f.m.failures, 0);
    teardown(&f);
}
END_TEST

/* What malloc has handed out and not taken back (glibc 2.33+; 0 where
 * unknown, as under a sanitizer, whose allocator glibc does not see). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEAP_UNSEEN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define HEAP_UNSEEN 1
#endif
#endif
#if !defined(__GLIBC__) || __GLIBC__ < 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ < 33)
#define HEAP_UNSEEN 1
#endif

static size_t heap_in_use(void)
{
#ifdef HEAP_UNSEEN
    return 0;
#else
    const struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
#endif
}

/* model_memory grows with what each feature adds (within a factor of its
 * payload), agrees with malloc's own count within a factor of 1.5, and
 * gives back what a joined zone text no longer holds. */
START_TEST(model_memory_follows_what_the_model_holds)
{
    fixture_t f;
    setup(&f);
    model_thread_context(&f.m, 5);
    model_zone_begin(&f.m, 1, 0x600, false);
    model_zone_end(&f.m, 2);
    const size_t heap0 = heap_in_use(), mem0 = model_memory(&f.m);
    ck_assert_uint_gt(mem0, sizeof f.m);

    /* zones: a few bytes each in the log */
    enum { ZONES = 400000, MESSAGES = 50000, STRINGS = 100000 };
    for (int64_t i = 0; i < ZONES; i++) {
        model_zone_begin(&f.m, 10 + 4 * i, 0x600, false);
        model_zone_end(&f.m, 12 + 4 * i);
    }
    const size_t mem1 = model_memory(&f.m);
    ck_assert_uint_ge(mem1 - mem0, (size_t)ZONES * 2);
    ck_assert_uint_le(mem1 - mem0, (size_t)ZONES * 2 * 4);

    /* messages, each with a text of its own */
    char text[64];
    for (int i = 0; i < MESSAGES; i++) {
        const int n = snprintf(text, sizeof text, "message number %d", i);
        model_single_string(&f.m, (const uint8_t *)text, (size_t)n);
        model_message(&f.m, 2000000 + i, 0, false, 0, 0, false);
    }
    const size_t mem2 = model_memory(&f.m);
    const size_t message_payload = (size_t)MESSAGES * (sizeof(message_t) + 2 * sizeof(uint32_t) + 20);
    ck_assert_uint_ge(mem2 - mem1, message_payload);
    ck_assert_uint_le(mem2 - mem1, message_payload * 4);

    /* strings */
    size_t string_bytes = 0;
    for (int i = 0; i < STRINGS; i++) {
        const int n = snprintf(text, sizeof text, "a string of its own, %d", i);
        model_store_string(&f.m, text, (size_t)n);
        string_bytes += (size_t)n;
    }
    const size_t mem3 = model_memory(&f.m);
    ck_assert_uint_ge(mem3 - mem2, string_bytes);
    ck_assert_uint_le(mem3 - mem2, string_bytes * 5);

    const size_t heap3 = heap_in_use();
    if (heap3) {
        const double grown = (double)(heap3 - heap0), said = (double)(mem3 - mem0);
        ck_assert_msg(said > grown / 1.5 && said < grown * 1.5, "model_memory grew %.0f bytes, malloc's count %.0f",
                      said, grown);
    }

    /* a zone text joined from many parts: held while the zone is open,
     * given back (but for its string) when it ends */
    const uint64_t blocks = f.m.block_bytes;
    model_zone_begin(&f.m, 4000000, 0x600, false);
    model_single_string(&f.m, (const uint8_t *)"first", 5);
    model_zone_text(&f.m);
    for (uint64_t v = 0; v < 20000; v++) model_zone_value(&f.m, v);
    ck_assert_uint_ge(f.m.block_bytes - blocks, 20000 * 10);
    ck_assert_uint_ge(model_memory(&f.m), mem3 + 20000 * 10);
    model_zone_end(&f.m, 4000001);
    ck_assert_uint_eq(f.m.block_bytes, blocks);

    /* call stacks: a block each */
    uint8_t payload[8 * 4];
    for (uint64_t i = 0; i < 1000; i++) {
        for (uint64_t k = 0; k < 4; k++) {
            const uint64_t addr = 0x400000 + 16 * (4 * i + k);
            memcpy(payload + 8 * k, &addr, 8);
        }
        model_callstack_payload(&f.m, payload, sizeof payload);
        f.m.pending_callstack = 0;
    }
    ck_assert_uint_ge(f.m.block_bytes - blocks, 1000 * 5 * 8);
    ck_assert_uint_eq(f.m.failures, 0);
    teardown(&f);
}
END_TEST

/* With its thread, the pool fills itself after takes; freeing it stops
 * the thread and frees the chunks still ready. */
START_TEST(chunk_pool_thread_fills_it_after_takes)
{
    chunkpool_t *p = chunkpool_new(4096, 4);
    ck_assert_int_eq(chunkpool_start(p), 0);
    void *got[6] = { 0 };
    int n = 0;
    for (int i = 0; i < 4000 && n < 6; i++) {
        got[n] = chunkpool_take(p);
        if (got[n]) {
            memset(got[n], 0xA5, 4096);
            n++;
        } else {
            usleep(1000);
        }
    }
    ck_assert_int_eq(n, 6);
    for (int i = 0; i < 2000 && chunkpool_memory(p) < sizeof(void *) + 4 * 4096; i++) usleep(1000);
    ck_assert_uint_ge(chunkpool_memory(p), 4 * 4096);   /* refilled to its depth, 4 */
    for (int i = 0; i < 6; i++) free(got[i]);
    chunkpool_free(p);
}
END_TEST

START_TEST(chunk_pool_deepens_only_when_takes_find_it_empty)
{
    chunkpool_t *p = chunkpool_new(4096, 4);
    ck_assert_ptr_null(chunkpool_take(p));      /* nothing refilled yet: depth 1 -> 2 */
    chunkpool_refill(p);
    void *a = chunkpool_take(p), *b = chunkpool_take(p);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_null(chunkpool_take(p));      /* depth 2 -> 4 */
    chunkpool_refill(p);
    void *c[5];
    for (int i = 0; i < 5; i++) c[i] = chunkpool_take(p);
    for (int i = 0; i < 4; i++) ck_assert_ptr_nonnull(c[i]);
    ck_assert_ptr_null(c[4]);                   /* capped at the maximum, 4 */
    chunkpool_refill(p);
    void *d[5];
    for (int i = 0; i < 5; i++) d[i] = chunkpool_take(p);
    ck_assert_ptr_nonnull(d[3]);
    ck_assert_ptr_null(d[4]);
    free(a);
    free(b);
    for (int i = 0; i < 4; i++) free(c[i]), free(d[i]);
    chunkpool_free(p);
}
END_TEST

/* ---- the rules of each release's server (model_rules_t) -------------------- */

/* A model with protocol 82's rules but `on` for the rule `field`,
 * welcomed with w. */
#define RULE_SETUP(f, field, on, w)                      \
    do {                                                 \
        queryq_init(&(f)->q, 1000, NULL, NULL);          \
        model_init(&(f)->m, &(f)->q);                    \
        (f)->m.rules.field = (on);                       \
        model_welcome(&(f)->m, (w));                     \
    } while (0)

static const welcome_t plain_welcome = { .timer_mul = 1.0 };

START_TEST(rule_zone_value_hex)
{
    for (int on = 0; on < 2; on++) {
        fixture_t f;
        RULE_SETUP(&f, zone_value_hex, on, &plain_welcome);
        model_thread_context(&f.m, 5);
        model_zone_begin(&f.m, 10, 0x600, false);
        model_zone_value(&f.m, 26);
        model_zone_end(&f.m, 20);
        ck_assert_str_eq(strtab_get(&f.m.strings, f.m.zone_extras.v[1].text - 1), on ? "26 [0x1a]" : "26");
        teardown(&f);
    }
}
END_TEST

/* Payloads name their stacks however many there are and in whatever
 * order they come: the cache of recent stacks ahead of the keyed look-up
 * (a cheap signature's slot, a miss or another stack there) never names a
 * wrong one, kernel frames (their top bits set: not the stored ids'
 * bytes) included. */
START_TEST(callstack_payloads_find_their_stacks)
{
    fixture_t f;
    setup(&f);
    enum { STACKS = 3000, LOOKUPS = 40000, MAXN = 24 };
    static uint64_t frames[STACKS][MAXN];
    static size_t len[STACKS];
    static uint32_t idx[STACKS];
    uint64_t rng = 0x5eed;
    for (int i = 0; i < STACKS; i++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        len[i] = 1 + (size_t)(rng >> 59) % MAXN;
        for (size_t k = 0; k < len[i]; k++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            /* few addresses: stacks share frames, prefixes and lengths */
            frames[i][k] = 0x401000 + ((rng >> 58) << 4);
            if ((rng >> 20) % 97 == 0) frames[i][k] |= 0xFFFF800000000000ULL;   /* kernel */
        }
        frames[i][len[i] - 1] ^= (uint64_t)i << 12;      /* every stack distinct */
        model_callstack_payload(&f.m, (const uint8_t *)frames[i], len[i] * 8);
        idx[i] = f.m.pending_callstack;
        f.m.pending_callstack = 0;
    }
    /* (counted, not asserted one by one: Check records every assertion) */
    int same = 0, wrong = 0;
    for (int i = 0; i < STACKS; i++)
        for (int j = 0; j < i; j++) same += idx[i] == idx[j];
    for (int n = 0; n < LOOKUPS; n++) {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        const int i = (int)((rng >> 33) % STACKS);
        model_callstack_payload(&f.m, (const uint8_t *)frames[i], len[i] * 8);
        wrong += f.m.pending_callstack != idx[i];
        f.m.pending_callstack = 0;
    }
    ck_assert_int_eq(same, 0);
    ck_assert_int_eq(wrong, 0);
    ck_assert_uint_eq(f.m.callstacks.n, STACKS + 1);
    for (int i = 0; i < STACKS; i++) wrong += idx[i] == 0;
    ck_assert_int_eq(wrong, 0);
    ck_assert_uint_eq(f.m.failures, 0);
    teardown(&f);
}
END_TEST

/* A stack with the same address twice (recursion): 76+ ask once; before,
 * every time it is met unanswered, and a second answer is walked over. */
START_TEST(rule_frame_query_once)
{
    for (int on = 0; on < 2; on++) {
        fixture_t f;
        RULE_SETUP(&f, frame_query_once, on, &plain_welcome);
        const uint64_t stack[3] = { 0x401000, 0x402000, 0x401000 };
        model_callstack_payload(&f.m, (const uint8_t *)stack, sizeof stack);
        ck_assert_uint_eq(f.q.issued[SQ_CALLSTACK_FRAME], on ? 2 : 3);
        ck_assert_uint_eq(f.m.pending_frames, on ? 2 : 3);
        for (int k = 0; k < (on ? 2 : 3); k++) {
            model_callstack_frame_size(&f.m, stack[k == 1], 1);
            model_callstack_frame(&f.m, 10 + k, 0, 0);
        }
        ck_assert_uint_eq(f.m.pending_frames, 0);
        ck_assert_uint_eq(f.m.frame_data.n, 2);          /* the second answer to 0x401000: not kept */
        ck_assert_uint_eq(f.m.frame_data.v[0].frames[0].line, 10);
        ck_assert_uint_eq(f.m.failures, 0);
        /* an empty answer: before 76 the address is asked again */
        const uint64_t lone = 0x403000;
        model_callstack_payload(&f.m, (const uint8_t *)&lone, 8);
        model_callstack_frame_size(&f.m, lone, 0);
        const uint64_t again[2] = { 0x403000, 0x401000 };
        model_callstack_payload(&f.m, (const uint8_t *)again, sizeof again);
        ck_assert_uint_eq(f.q.issued[SQ_CALLSTACK_FRAME], on ? 3 : 5);
        teardown(&f);
    }
}
END_TEST

/* 76 also asks for an allocated call stack's own frames, by their ids. */
START_TEST(rule_query_alloc_frames)
{
    for (int on = 0; on < 2; on++) {
        fixture_t f;
        RULE_SETUP(&f, query_alloc_frames, on, &plain_welcome);
        const uint8_t payload[] = { 1, 7, 0, 0, 0, 2, 0, 'f', 'n', 2, 0, 'a', '.' };
        model_callstack_alloc_payload(&f.m, payload, sizeof payload);
        ck_assert_uint_eq(f.q.issued[SQ_CALLSTACK_FRAME], on ? 1 : 0);
        ck_assert_uint_eq(f.m.callstacks.n, 2);
        teardown(&f);
    }
}
END_TEST

/* FrameMarkMsgEnd of a name never started: 64 creates the set and asks its
 * name; the others create nothing. Both fail (no OnDemand). */
START_TEST(rule_frame_end_creates_set)
{
    for (int on = 0; on < 2; on++) {
        fixture_t f;
        RULE_SETUP(&f, frame_end_creates_set, on, &plain_welcome);
        const size_t sets = f.m.nframesets;
        model_frame_mark_end(&f.m, 100, 0xF00);
        ck_assert_uint_eq(f.m.nframesets, sets + (on ? 1 : 0));
        ck_assert_uint_eq(f.q.issued[SQ_FRAME_NAME], on ? 1 : 0);
        ck_assert_uint_eq(f.m.failures, 1);
        teardown(&f);
    }
}
END_TEST

START_TEST(rule_on_demand_ignores_frame_end)
{
    const welcome_t od = { .timer_mul = 1.0, .on_demand = true };
    for (int on = 0; on < 2; on++) {
        fixture_t f;
        RULE_SETUP(&f, on_demand_ignores_frame_end, on, &od);
        model_frame_mark_end(&f.m, 100, 0xF00);
        ck_assert_uint_eq(f.m.failures, on ? 0 : 1);
        teardown(&f);
    }
}
END_TEST

/* 64 kept the last time of samples (call stack, hardware) to itself. */
START_TEST(rule_samples_raise_time)
{
    for (int on = 0; on < 2; on++) {
        fixture_t f;
        RULE_SETUP(&f, samples_raise_time, on, &plain_welcome);
        const uint64_t stack[1] = { 0x401000 };
        model_callstack_payload(&f.m, (const uint8_t *)stack, sizeof stack);
        model_callstack_sample(&f.m, 3, 5000, false);
        ck_assert_int_eq(f.m.last_time, on ? 5000 : 0);
        model_hw_sample(&f.m, 0, 0x401000, 7000);
        ck_assert_int_eq(f.m.last_time, on ? 7000 : 0);
        ck_assert_uint_eq(f.m.samples_total, 1);
        teardown(&f);
    }
}
END_TEST

/* A wakeup of a thread still running: 74+ keep it for the next switch-in
 * (with its cpu); before, it is dropped and the new record's wakeup is
 * the switch-in, its wakeup cpu the switch-in's cpu. */
START_TEST(rule_pending_wakeup)
{
    for (int on = 0; on < 2; on++) {
        fixture_t f;
        RULE_SETUP(&f, pending_wakeup, on, &plain_welcome);
        model_context_switch(&f.m, 100, 0, 55, 1, 0, 0);     /* 55 runs on cpu 1 */
        model_thread_wakeup(&f.m, 150, 55, 3);               /* woken while running */
        model_context_switch(&f.m, 200, 55, 0, 1, 0, 0);     /* switched out */
        model_context_switch(&f.m, 300, 0, 55, 2, 0, 0);     /* in again on cpu 2 */
        const thread_switches_t *ts = &f.m.switches.v[*hmap_get(&f.m.switch_map, 55)];
        ck_assert_uint_eq(ts->v.n, 2);
        ck_assert_int_eq(ts->v.v[1].wakeup, on ? 150 : 300);
        ck_assert_uint_eq(ts->v.v[1].wakeup_cpu, on ? 3 : 2);
        ck_assert_uint_eq(ts->v.v[1].cpu, 2);
        /* a wakeup of a thread not running makes a record in both */
        model_context_switch(&f.m, 400, 55, 0, 2, 0, 0);
        model_thread_wakeup(&f.m, 450, 55, 4);
        model_context_switch(&f.m, 500, 0, 55, 0, 0, 0);
        ck_assert_uint_eq(ts->v.n, 3);
        ck_assert_int_eq(ts->v.v[2].wakeup, 450);
        ck_assert_uint_eq(ts->v.v[2].wakeup_cpu, on ? 4 : 0);
        teardown(&f);
    }
}
END_TEST

START_TEST(rule_keep_die)
{
    for (int on = 0; on < 2; on++) {
        fixture_t f;
        RULE_SETUP(&f, keep_die, on, &plain_welcome);
        model_cpu_topology(&f.m, 1, 2, 3, 4);
        ck_assert_uint_eq(f.m.topology.v[1], on ? 2 : 0);
        ck_assert_uint_eq(f.m.topology.v[2], 3);
        teardown(&f);
    }
}
END_TEST

/* With IgnoreMemFaults, 82 takes a second allocation of a live address
 * (the first is freed); before, it is a failure whatever the flags. */
START_TEST(rule_mem_alloc_twice_ok)
{
    const welcome_t ign = { .timer_mul = 1.0, .ignore_mem_faults = true };
    for (int on = 0; on < 2; on++) {
        fixture_t f;
        RULE_SETUP(&f, mem_alloc_twice_ok, on, &ign);
        model_mem_alloc(&f.m, 10, 1, 0x1000, 64, false, false);
        model_mem_alloc(&f.m, 20, 1, 0x1000, 32, false, false);
        ck_assert_uint_eq(f.m.failures, on ? 0 : 1);
        ck_assert_uint_eq(memlog_count(&f.m.pools.v[0].events), on ? 2 : 1);
        teardown(&f);
    }
}
END_TEST

/* A source file becomes known from a client without CodeTransfer: 82 does
 * not ask for it, the releases before do (the executable time is known). */
START_TEST(rule_source_needs_code_transfer)
{
    const welcome_t nocode = { .timer_mul = 1.0, .exec_time = 1700000000 };
    for (int on = 0; on < 2; on++) {
        fixture_t f;
        RULE_SETUP(&f, source_needs_code_transfer, on, &nocode);
        const uint8_t payload[] = { 0, 0, 0, 0, 7, 0, 0, 0, 'f', 0, 'a', '.', 'c', 0 };
        model_source_location_payload(&f.m, payload, sizeof payload);
        ck_assert_uint_eq(f.q.issued[SQ_SOURCE_CODE], on ? 0 : 1);
        ck_assert_uint_eq(f.q.issued[SQ_DATA_TRANSFER], on ? 0 : 1);
        teardown(&f);
    }
}
END_TEST

Suite *model_suite(void)
{
    Suite *s = suite_create("trace model");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, srcloc_ids_follow_first_use_and_answers_are_fifo);
    tcase_add_test(tc, dynamic_srclocs_dedup_by_content_including_color);
    tcase_add_test(tc, only_the_upstream_call_sites_number_threads);
    tcase_add_test(tc, equal_message_times_keep_reverse_arrival_order);
    tcase_add_test(tc, frame_sets_with_the_same_name_merge);
    tcase_add_test(tc, end_of_session_waits_for_answers_and_open_zones);
    tcase_add_test(tc, memory_events_survive_sealing);
    tcase_add_test(tc, memory_events_of_every_width_survive_sealing);
    tcase_add_test(tc, chunk_pool_deepens_only_when_takes_find_it_empty);
    tcase_add_test(tc, chunk_pool_thread_fills_it_after_takes);
    tcase_add_test(tc, zone_text_parts_are_joined_and_interned_once);
    tcase_add_test(tc, model_memory_follows_what_the_model_holds);
    tcase_add_test(tc, rule_zone_value_hex);
    tcase_add_test(tc, rule_frame_query_once);
    tcase_add_test(tc, callstack_payloads_find_their_stacks);
    tcase_add_test(tc, rule_query_alloc_frames);
    tcase_add_test(tc, rule_frame_end_creates_set);
    tcase_add_test(tc, rule_on_demand_ignores_frame_end);
    tcase_add_test(tc, rule_samples_raise_time);
    tcase_add_test(tc, rule_pending_wakeup);
    tcase_add_test(tc, rule_keep_die);
    tcase_add_test(tc, rule_mem_alloc_twice_ok);
    tcase_add_test(tc, rule_source_needs_code_transfer);
    suite_add_tcase(s, tc);
    return s;
}
