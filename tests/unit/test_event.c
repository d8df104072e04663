/* test_event.c - unit tests of the event decoder: fixed sizes and
 * trailers, the compact 16/32/64-bit time forms and their references,
 * the string forms, and errors naming bad events. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csdedup.h"
#include "event.h"
#include "proto.h"
#include "protocols.h"
#include "unit.h"
#include "welcome.h"

typedef struct {
    uint8_t b[4096];
    size_t n;
} ev_buf_t;

static void put(ev_buf_t *e, const void *p, size_t n)
{
    memcpy(e->b + e->n, p, n);
    e->n += n;
}
static void put8(ev_buf_t *e, uint8_t v) { put(e, &v, 1); }
static void put16(ev_buf_t *e, uint16_t v) { put(e, &v, 2); }
static void put32(ev_buf_t *e, uint32_t v) { put(e, &v, 4); }
static void put64(ev_buf_t *e, uint64_t v) { put(e, &v, 8); }

typedef struct {
    queryq_t q;
    model_t m;
    event_decoder_t d;
} fixture_t;

/* A model welcomed with timerMul 1 (ticks are ns) and time origin 1000. */
static void setup(fixture_t *f)
{
    queryq_init(&f->q, 100, NULL, NULL);
    model_init(&f->m, &f->q);
    const welcome_t w = { .timer_mul = 1.0, .init_begin = 1000, .init_end = 2000, .program = "unit" };
    model_welcome(&f->m, &w);
    event_decoder_init(&f->d, &f->m, proto_by_version(82));
}

static void teardown(fixture_t *f)
{
    model_free(&f->m);
    queryq_free(&f->q);
}

static int decode(fixture_t *f, const ev_buf_t *e, char *err)
{
    size_t where;
    char buf[256];
    return event_decode_frame(&f->d, e->b, e->n, &where, err ? err : buf, 256);
}

/* The WelcomeMessage's fields at their protocol-82 offsets, its texts cut
 * at their NUL (or their field's end), its flags as booleans; and the
 * on-demand payload. */
START_TEST(welcome_fields_at_their_offsets)
{
    uint8_t b[PROTO_WELCOME_SIZE + PROTO_ONDEMAND_SIZE];
    memset(b, 'x', sizeof b);
    const double mul = 0.25;
    const int64_t begin = -5, end = 77, period = 123;
    const uint64_t res = 9, ctime = 1700000000, etime = 1699999999, pid = 4242, frames = 17;
    const int64_t conn = 31337;
    const uint32_t cpu_id = 0xA0650;
    memcpy(b + 0, &mul, 8);
    memcpy(b + 8, &begin, 8);
    memcpy(b + 16, &end, 8);
    memcpy(b + 24, &res, 8);
    memcpy(b + 32, &ctime, 8);
    memcpy(b + 40, &etime, 8);
    memcpy(b + 48, &pid, 8);
    memcpy(b + 56, &period, 8);
    b[64] = WF_ON_DEMAND | WF_CODE_TRANSFER | WF_IDENTIFY_SAMPLES;
    b[65] = 2;
    memcpy(b + 66, "GenuineIntel", 12);
    memcpy(b + 78, &cpu_id, 4);
    memcpy(b + 82, "prog\0junk", 9);           /* the rest of the host field stays 'x', unterminated */
    memcpy(b + PROTO_WELCOME_SIZE, &frames, 8);
    memcpy(b + PROTO_WELCOME_SIZE + 8, &conn, 8);
    welcome_t w;
    welcome_parse(proto_by_version(82), b, &w);
    ck_assert(w.timer_mul == mul);
    ck_assert_int_eq(w.init_begin, begin);
    ck_assert_int_eq(w.init_end, end);
    ck_assert_uint_eq(w.resolution, res);
    ck_assert_uint_eq(w.capture_time, ctime);
    ck_assert_uint_eq(w.exec_time, etime);
    ck_assert_uint_eq(w.pid, pid);
    ck_assert_int_eq(w.sampling_period, period);
    ck_assert(w.on_demand && w.code_transfer && w.identify_samples && !w.ignore_mem_faults && !w.combine_samples);
    ck_assert(welcome_on_demand(proto_by_version(82), b));
    ck_assert_uint_eq(w.cpu_arch, 2);
    ck_assert(memcmp(w.cpu_manufacturer, "GenuineIntel", 12) == 0);
    ck_assert_uint_eq(w.cpu_id, cpu_id);
    ck_assert_str_eq(w.program, "prog");
    ck_assert_uint_eq(strlen(w.host_info), 1024);
    on_demand_t od;
    on_demand_parse(b + PROTO_WELCOME_SIZE, &od);
    ck_assert_uint_eq(od.frame_offset, frames);
    ck_assert_int_eq(od.connection_time, conn);
}
END_TEST

START_TEST(compact_time_forms)
{
    fixture_t f;
    setup(&f);
    ev_buf_t e = {0};
    put8(&e, EV_THREAD_CONTEXT); put32(&e, 7);
    /* 16-bit: delta 1500 -> 1500 ticks -> 500 ns after the origin */
    put8(&e, EV_ZONE_BEGIN16); put16(&e, 1500); put64(&e, 0xAAA0);
    /* 32-bit: value + 65536 */
    put8(&e, EV_ZONE_BEGIN32); put32(&e, 10); put64(&e, 0xAAA0);
    /* 64-bit with a non-negative value: + 4295032832 */
    put8(&e, EV_ZONE_END); put64(&e, 5);
    /* 64-bit negative: a plain negative delta */
    put8(&e, EV_ZONE_END); put64(&e, (uint64_t)-100);
    ck_assert_int_eq(decode(&f, &e, NULL), 0);

    thread_t *t = model_find_thread(&f.m, 7);
    ck_assert_ptr_nonnull(t);
    zlog_reader_t r;
    zlog_rec_t rec;
    model_seal_logs(&f.m);
    zlog_reader_init(&r, t->log_head);
    const int64_t expect[4] = { 500, 500 + 65546, 500 + 65546 + 4295032837LL, 500 + 65546 + 4295032837LL - 100 };
    for (int i = 0; i < 4; i++) {
        ck_assert(zlog_next(&r, &rec));
        ck_assert_int_eq(rec.begin, i < 2);
        ck_assert_int_eq(model_time(&f.m, rec.time), expect[i]);
    }
    ck_assert(!zlog_next(&r, &rec));
    ck_assert_int_eq(f.m.last_time, expect[2]);
    teardown(&f);
}
END_TEST

START_TEST(thread_context_resets_the_thread_reference)
{
    fixture_t f;
    setup(&f);
    ev_buf_t e = {0};
    put8(&e, EV_THREAD_CONTEXT); put32(&e, 1);
    put8(&e, EV_ZONE_BEGIN16); put16(&e, 3000); put64(&e, 0xB0);
    put8(&e, EV_THREAD_CONTEXT); put32(&e, 1);      /* same thread: still resets */
    put8(&e, EV_ZONE_END16); put16(&e, 3500);
    /* serial reference is independent and never reset */
    put8(&e, EV_MEM_ALLOC); put64(&e, 2500); put32(&e, 1); put64(&e, 0x1000); put32(&e, 64); put16(&e, 0);
    put8(&e, EV_MEM_FREE); put64(&e, 10); put32(&e, 1); put64(&e, 0x1000);
    ck_assert_int_eq(decode(&f, &e, NULL), 0);
    thread_t *t = model_find_thread(&f.m, 1);
    zlog_reader_t r;
    zlog_rec_t rec;
    model_seal_logs(&f.m);
    zlog_reader_init(&r, t->log_head);
    ck_assert(zlog_next(&r, &rec));
    ck_assert_int_eq(model_time(&f.m, rec.time), 2000);
    ck_assert(zlog_next(&r, &rec));
    ck_assert_int_eq(model_time(&f.m, rec.time), 2500);
    ck_assert_uint_eq(f.m.pools.n, 1);
    memlog_reader_t mr;
    mem_event_t ev;
    memlog_reader_init(&mr, &f.m.pools.v[0].events);
    ck_assert(memlog_next(&mr, &ev));
    ck_assert_int_eq(ev.time_alloc, 1500);
    ck_assert_int_eq(ev.time_free, 1510);
    teardown(&f);
}
END_TEST

START_TEST(string_forms_and_trailers)
{
    fixture_t f;
    setup(&f);
    ev_buf_t e = {0};
    char big[300];
    memset(big, 'x', sizeof big);
    put8(&e, EV_THREAD_CONTEXT); put32(&e, 3);
    /* 8-bit single string + Message */
    put8(&e, EV_SINGLE_STRING_DATA8); put8(&e, 5); put(&e, "hello", 5);
    put8(&e, EV_MESSAGE); put64(&e, 1100); put8(&e, 0x31);
    /* 16-bit form carries len - 256 */
    put8(&e, EV_SINGLE_STRING_DATA); put16(&e, 300 - 256); put(&e, big, 300);
    put8(&e, EV_MESSAGE); put64(&e, 1200); put8(&e, 0);
    /* StringData answer with a u16 trailer */
    put8(&e, EV_STRING_DATA); put64(&e, 0x99); put16(&e, 3); put(&e, "abc", 3);
    ck_assert_int_eq(decode(&f, &e, NULL), 0);
    ck_assert_uint_eq(f.m.messages.n, 2);
    ck_assert_str_eq(strtab_get(&f.m.strings, (uint32_t)f.m.messages.v[0].text), "hello");
    ck_assert_int_eq(f.m.messages.v[0].severity, 3);
    ck_assert_int_eq(f.m.messages.v[0].source, 1);
    ck_assert_uint_eq(strtab_len(&f.m.strings, (uint32_t)f.m.messages.v[1].text), 300);
    teardown(&f);
}
END_TEST

START_TEST(unknown_type_is_named_with_its_offset)
{
    fixture_t f;
    setup(&f);
    ev_buf_t e = {0};
    put8(&e, EV_KEEP_ALIVE);
    put8(&e, EV_THREAD_CONTEXT); put32(&e, 3);
    put8(&e, 201);
    char err[256];
    size_t where = 0;
    ck_assert_int_eq(event_decode_frame(&f.d, e.b, e.n, &where, err, sizeof err), -1);
    ck_assert_uint_eq(where, 6);
    ck_assert_str_eq(err, "event type 201 is not a protocol-82 type");
    /* the client-internal types never appear on the wire */
    e.n = 0;
    put8(&e, EV_SYMBOL_CODE_METADATA);
    ck_assert_int_eq(event_decode_frame(&f.d, e.b, e.n, &where, err, sizeof err), -1);
    teardown(&f);
}
END_TEST

START_TEST(truncated_event_is_an_error)
{
    fixture_t f;
    setup(&f);
    ev_buf_t e = {0};
    put8(&e, EV_ZONE_BEGIN); put32(&e, 1);   /* needs 17 bytes */
    char err[256];
    size_t where = 99;
    ck_assert_int_eq(event_decode_frame(&f.d, e.b, e.n, &where, err, sizeof err), -1);
    ck_assert_uint_eq(where, 0);
    ck_assert_ptr_nonnull(strstr(err, "ZoneBegin"));
    /* a trailer longer than the frame */
    e.n = 0;
    put8(&e, EV_STRING_DATA); put64(&e, 1); put16(&e, 1000); put(&e, "ab", 2);
    ck_assert_int_eq(event_decode_frame(&f.d, e.b, e.n, &where, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "StringData"));
    teardown(&f);
}
END_TEST

START_TEST(every_wire_type_has_a_size)
{
    for (unsigned t = 0; t < EV_TYPE_COUNT; t++) {
        if (t >= EV_EXTERNAL_NAME_METADATA && t <= EV_SOURCE_CODE_METADATA) ck_assert_uint_eq(proto_event_size[t], 0);
        else ck_assert_uint_gt(proto_event_size[t], 0);
        ck_assert_ptr_nonnull(proto_event_name(t));
    }
    ck_assert_uint_eq(proto_event_size[EV_ZONE_BEGIN], 17);
    ck_assert_uint_eq(proto_event_size[EV_SOURCE_LOCATION], 32);
    ck_assert_uint_eq(proto_event_size[EV_GPU_NEW_CONTEXT], 28);
    ck_assert_int_eq(event_delta64(0), 4295032832LL);
    ck_assert_int_eq(event_delta64(-5), -5);
}
END_TEST

START_TEST(fixed_size_table_agrees_with_event_size)
{
    uint8_t ev[64] = {0};
    proto_tables_t tab;
    proto_tables_init(&tab, proto_by_version(82));
    const uint8_t *fixed = tab.fixed;
    for (unsigned t = 0; t < 256; t++) {
        ev[0] = (uint8_t)t;
        const size_t full = event_size(&tab, ev, sizeof ev, NULL, 0);
        if (fixed[t]) ck_assert_uint_eq(fixed[t], full);
        else if (t < EV_TYPE_COUNT && proto_event_size[t]) ck_assert(t >= EV_STRING_DATA || t == EV_SINGLE_STRING_DATA ||
                                                                    t == EV_SECOND_STRING_DATA ||
                                                                    t == EV_SINGLE_STRING_DATA8 ||
                                                                    t == EV_SECOND_STRING_DATA8);
        else ck_assert_uint_eq(full, 0);
    }
    ck_assert_uint_eq(fixed[EV_ZONE_BEGIN], 17);
    ck_assert_uint_eq(fixed[EV_STRING_DATA], 0);
    ck_assert_uint_eq(fixed[201], 0);
}
END_TEST

START_TEST(time_conversion_truncates_like_upstream)
{
    fixture_t f;
    setup(&f);
    f.m.timer_mul = 0.3333333333;
    f.m.base_time = 100;
    ck_assert_int_eq(model_time(&f.m, 100), 0);
    ck_assert_int_eq(model_time(&f.m, 103), 0);      /* 0.9999999999 truncates */
    ck_assert_int_eq(model_time(&f.m, 130), 9);
    ck_assert_int_eq(model_time(&f.m, 70), -9);      /* toward zero */
    teardown(&f);
}
END_TEST

/* CallstackPayload with n frames of base, base+1, ..., then CallstackSerial. */
static void put_payload_serial(ev_buf_t *e, uint64_t client_ptr, uint64_t base, int n)
{
    put8(e, EV_CALLSTACK_PAYLOAD); put64(e, client_ptr); put16(e, (uint16_t)(8 * n));
    for (int i = 0; i < n; i++) put64(e, base + (uint64_t)i);
    put8(e, EV_CALLSTACK_SERIAL);
}

START_TEST(payloads_numbered_ahead_name_the_same_stacks)
{
    fixture_t f;
    setup(&f);
    csdedup_t dd;
    csdedup_init(&dd, proto_by_version(82));
    ev_buf_t e = {0};
    put_payload_serial(&e, 0x7000, 0x401000, 3);        /* A */
    const size_t b_at = e.n;
    put_payload_serial(&e, 0x7100, 0x402000, 5);        /* B */
    const size_t a2_at = e.n;
    put_payload_serial(&e, 0x7200, 0x401000, 3);        /* A again */
    const size_t bad_at = e.n;
    put8(&e, 201);
    /* the walk numbers the payloads (first seen first) and stops at the
     * event it cannot size */
    ck_assert_uint_eq(csdedup_frame(&dd, e.b, e.n), bad_at);
    ck_assert_uint_eq(ld64(e.b + 1), 0);
    ck_assert_uint_eq(ld64(e.b + b_at + 1), 1);
    ck_assert_uint_eq(ld64(e.b + a2_at + 1), 0);
    /* the model takes the numbers: two stacks, the third serial names A */
    f.d.numbered_until = bad_at;
    char err[256];
    size_t where;
    ck_assert_int_eq(event_decode_frame(&f.d, e.b, e.n, &where, err, sizeof err), -1);
    ck_assert_uint_eq(where, bad_at);
    ck_assert_uint_eq(f.m.callstacks.n, 3);             /* [0] unused */
    ck_assert_uint_eq(f.m.serial_callstack, 1);
    ck_assert_uint_eq(f.m.callstacks.v[1][0], 3);
    ck_assert_uint_eq(f.m.callstacks.v[1][1], 0x401000);
    ck_assert_uint_eq(f.m.callstacks.v[2][0], 5);
    /* a frame without payloads is walked, then the next 15 are not */
    ev_buf_t k = {0};
    put8(&k, EV_KEEP_ALIVE);
    ck_assert_uint_eq(csdedup_frame(&dd, k.b, k.n), 1);
    for (int i = 0; i < 15; i++) ck_assert_uint_eq(csdedup_frame(&dd, e.b, e.n), 0);
    ck_assert_uint_eq(csdedup_frame(&dd, e.b, e.n), bad_at);
    csdedup_free(&dd);
    teardown(&f);
}
END_TEST

START_TEST(unnumbered_payloads_find_numbered_stacks)
{
    /* A payload past numbered_until (or from --recover) takes the hashing
     * path and must land on the stack a numbered one interned. */
    fixture_t f;
    setup(&f);
    csdedup_t dd;
    csdedup_init(&dd, proto_by_version(82));
    ev_buf_t e = {0};
    put_payload_serial(&e, 0x7000, 0x401000, 4);
    const size_t first = e.n;
    put_payload_serial(&e, 0x7100, 0x401000, 4);
    csdedup_frame(&dd, e.b, e.n);
    f.d.numbered_until = first;
    char err[256];
    size_t where;
    ck_assert_int_eq(event_decode_frame(&f.d, e.b, e.n, &where, err, sizeof err), 0);
    ck_assert_uint_eq(f.m.callstacks.n, 2);
    ck_assert_uint_eq(f.m.serial_callstack, 1);
    csdedup_free(&dd);
    teardown(&f);
}
END_TEST

START_TEST(instrumentation_failure_names_event_and_place)
{
    fixture_t f;
    setup(&f);
    ev_buf_t e = {0};
    put8(&e, EV_KEEP_ALIVE);
    put8(&e, EV_LOCK_WAIT); put32(&e, 5); put32(&e, 77); put64(&e, 1500);   /* lock 77: never announced */
    put8(&e, EV_LOCK_RELEASE); put32(&e, 77); put64(&e, 1600);
    f.m.frame_base = e.b;
    f.m.at_frame_no = 7;
    f.m.at_stream_offset = 1234;
    ck_assert_int_eq(decode(&f, &e, NULL), 0);
    ck_assert_uint_eq(f.m.failures, 2);
    ck_assert_str_eq(f.m.first_failure, "frame 7 at stream offset 1234, LockWait event at byte 1 of the "
                                         "decompressed frame: lock event for lock 77, which was never announced");
    teardown(&f);
}
END_TEST

/* ---- every protocol ------------------------------------------------------- */

/* Wire numbers transcribed from protocol-older.md section 3 (not from
 * src/), for the events of the frame below; the last one, FiberName, is
 * each protocol's highest type. */
typedef struct {
    uint32_t version;
    uint8_t thread_context, zone_begin, zone_end, zone_value, message, message_literal, single_string,
        string_data, callstack_payload, callstack_sample, fiber_enter, fiber_leave, cpu_topology,
        context_switch, thread_wakeup, keep_alive, fiber_name;
} wire_numbers_t;

static const wire_numbers_t wire_numbers[] = {
    { 64, 59, 15, 17, 65, 2, 74, 95, 98, 102, 12, 55, 56, 94, 46, 47, 58, 110 },
    { 66, 59, 15, 17, 66, 2, 75, 96, 99, 103, 12, 55, 56, 95, 46, 47, 58, 111 },
    { 69, 59, 15, 17, 66, 2, 75, 96, 100, 104, 12, 55, 56, 95, 46, 47, 58, 112 },
    { 72, 61, 15, 17, 68, 2, 77, 98, 102, 106, 12, 57, 58, 97, 48, 49, 60, 114 },
    { 74, 61, 15, 17, 68, 2, 77, 98, 102, 106, 12, 57, 58, 97, 48, 49, 60, 114 },
    { 76, 62, 15, 17, 69, 2, 78, 99, 104, 108, 12, 58, 59, 98, 48, 49, 61, 116 },
    { 82, 75, 19, 25, 82, 2, 91, 114, 119, 123, 12, 68, 69, 111, 58, 59, 74, 131 },
};
#define OFFSET64 4295032832LL   /* what 82 adds to a non-negative 64-bit delta */

/* One frame with an event of each family whose layout or number differs
 * between the protocols, decoded by that protocol's descriptor: zones and
 * the zone value text, a message and a literal message (metadata or the
 * default), a call-stack sample (thread or time first), fibers (group
 * hint), the CPU topology (die), a wakeup and a context switch (wakeup
 * cpu), a string answer; then a type byte past the protocol's last. */
START_TEST(each_protocol_decodes_its_own_frame)
{
    const wire_numbers_t *w = &wire_numbers[_i];
    const proto_desc_t *desc = proto_by_version(w->version);
    ck_assert_ptr_nonnull(desc);
    const bool p82 = w->version == 82;
    fixture_t f;
    queryq_init(&f.q, 100, NULL, NULL);
    model_init(&f.m, &f.q);
    f.m.rules = desc->rules;
    const welcome_t wel = { .timer_mul = 1.0, .init_begin = 1000, .init_end = 2000, .program = "unit" };
    model_welcome(&f.m, &wel);
    event_decoder_init(&f.d, &f.m, desc);

    ev_buf_t e = {0};
    put8(&e, w->thread_context); put32(&e, 7);
    put8(&e, w->zone_begin); put64(&e, 1500); put64(&e, 0xAAA0);
    put8(&e, w->zone_value); put64(&e, 255);
    put8(&e, w->zone_end); put64(&e, 100);
    /* a staged string, then a message */
    if (p82) { put8(&e, w->single_string); put8(&e, 2); }
    else { put8(&e, w->single_string); put16(&e, 2); }
    put(&e, "hi", 2);
    put8(&e, w->message); put64(&e, 1100);
    if (p82) put8(&e, 0x31);
    put8(&e, w->message_literal); put64(&e, 1200); put64(&e, p82 ? (0x5000 << 8) | 0x31 : 0x5000);
    /* a call stack, then a sample of thread 9 */
    put8(&e, w->callstack_payload); put64(&e, 0x7000); put16(&e, 16); put64(&e, 0x401000); put64(&e, 0x401001);
    put8(&e, w->callstack_sample);
    if (p82) { put32(&e, 9); put64(&e, 3000); }
    else { put64(&e, 3000); put32(&e, 9); }
    put8(&e, w->cpu_topology); put32(&e, 1);
    if (w->version >= 69) put32(&e, 2);
    put32(&e, 3); put32(&e, 4);
    /* thread 55 woken on cpu 6 (74+ say so), then switched in on cpu 2 */
    put8(&e, w->thread_wakeup); put64(&e, 1300); put32(&e, 55);
    if (w->version >= 74) { put8(&e, 6); put8(&e, 0); put8(&e, 0); }
    put8(&e, w->context_switch); put64(&e, 10); put32(&e, 0); put32(&e, 55); put8(&e, 2); put8(&e, 0); put8(&e, 0);
    if (w->version >= 74) { put8(&e, 0); put8(&e, 0); put8(&e, 0); }
    put8(&e, w->string_data); put64(&e, 0x5000); put16(&e, 3); put(&e, "lit", 3);
    put8(&e, w->fiber_enter); put64(&e, 2000); put64(&e, 0xF1BE); put32(&e, 7);
    if (w->version >= 69) put32(&e, 3);
    put8(&e, w->fiber_leave); put64(&e, 10); put32(&e, 7);
    put8(&e, w->keep_alive);
    const size_t bad_at = e.n;
    put8(&e, (uint8_t)(w->fiber_name + 1));

    char err[256], want[64];
    size_t where = 0;
    ck_assert_int_eq(event_decode_frame(&f.d, e.b, e.n, &where, err, sizeof err), -1);
    ck_assert_uint_eq(where, bad_at);
    snprintf(want, sizeof want, "event type %u is not a protocol-%u type", w->fiber_name + 1u, w->version);
    ck_assert_str_eq(err, want);
    ck_assert_uint_eq(f.m.failures, 0);

    /* zones: 64-bit deltas as sent, 82 adds its offset */
    thread_t *t = model_find_thread(&f.m, 7);
    ck_assert_ptr_nonnull(t);
    model_seal_logs(&f.m);
    zlog_reader_t r;
    zlog_rec_t rec;
    zlog_reader_init(&r, t->log_head);
    ck_assert(zlog_next(&r, &rec));
    ck_assert_int_eq(model_time(&f.m, rec.time), 500 + (p82 ? OFFSET64 : 0));
    ck_assert(zlog_next(&r, &rec));
    ck_assert_int_eq(model_time(&f.m, rec.time), 600 + (p82 ? 2 * OFFSET64 : 0));
    ck_assert_str_eq(strtab_get(&f.m.strings, f.m.zone_extras.v[1].text - 1),
                     w->version >= 72 ? "255 [0xff]" : "255");
    /* messages: metadata in 82, User/Info before */
    ck_assert_uint_eq(f.m.messages.n, 2);
    ck_assert_str_eq(strtab_get(&f.m.strings, (uint32_t)f.m.messages.v[0].text), "hi");
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(f.m.messages.v[i].severity, p82 ? 3 : 2);
        ck_assert_int_eq(f.m.messages.v[i].source, p82 ? 1 : 0);
    }
    ck_assert(f.m.messages.v[1].text_ptr);
    ck_assert_uint_eq(f.m.messages.v[1].text, 0x5000);
    ck_assert_str_eq(model_ptr_string(&f.m, 0x5000), "lit");
    /* the sample: thread 9 at 3000 ticks (+ the offset in 82) */
    thread_t *s9 = model_find_thread(&f.m, 9);
    ck_assert_ptr_nonnull(s9);
    ck_assert_uint_eq(s9->samples.n, 1);
    ck_assert_int_eq(s9->samples.v[0].time, 2000 + (p82 ? OFFSET64 : 0));
    /* topology: the die from 72 on (69 sends it, keeps 0) */
    ck_assert_uint_eq(f.m.topology.n, 4);
    ck_assert_uint_eq(f.m.topology.v[0], 1);
    ck_assert_uint_eq(f.m.topology.v[1], w->version >= 72 ? 2 : 0);
    ck_assert_uint_eq(f.m.topology.v[2], 3);
    ck_assert_uint_eq(f.m.topology.v[3], 4);
    /* the wakeup record, switched in on cpu 2: its wakeup cpu is the
     * wakeup's (74+) or the switch-in's (before) */
    const thread_switches_t *ts = &f.m.switches.v[*hmap_get(&f.m.switch_map, 55)];
    ck_assert_uint_eq(ts->v.n, 1);
    /* (the sample and the scheduling events share one time reference) */
    ck_assert_int_eq(ts->v.v[0].wakeup, 3300 + (p82 ? OFFSET64 : 0));
    ck_assert_int_eq(ts->v.v[0].start, 3310 + (p82 ? OFFSET64 : 0));
    ck_assert_uint_eq(ts->v.v[0].cpu, 2);
    ck_assert_uint_eq(ts->v.v[0].wakeup_cpu, w->version >= 74 ? 6 : 2);
    /* the fiber's group hint from 69 on */
    thread_t *fib = model_find_thread(&f.m, 1ULL << 32);
    ck_assert_ptr_nonnull(fib);
    ck_assert(fib->is_fiber);
    ck_assert_int_eq(fib->group_hint, w->version >= 69 ? 3 : 0);
    teardown(&f);
}
END_TEST

/* The 1178-byte welcome of 64-74: the delay at 24, every later field 8
 * bytes on (flags at 72); 76 reads the same bytes at 82's offsets. */
START_TEST(welcome_with_the_queue_delay)
{
    uint8_t b[PROTO_WELCOME_MAX];
    memset(b, 0, sizeof b);
    const double mul = 0.5;
    const uint64_t delay = 46, res = 9, pid = 4242;
    memcpy(b + 0, &mul, 8);
    memcpy(b + 24, &delay, 8);
    memcpy(b + 32, &res, 8);
    memcpy(b + 56, &pid, 8);
    b[72] = WF_ON_DEMAND | WF_CODE_TRANSFER;
    b[73] = 2;
    memcpy(b + 74, "AuthenticAMD", 12);
    memcpy(b + 90, "old", 4);
    memcpy(b + 154, "host", 5);
    for (uint32_t v = 64; v <= 74; v++) {
        const proto_desc_t *d = proto_by_version(v);
        if (!d) continue;
        ck_assert_uint_eq(d->welcome_size, 1178);
        ck_assert(welcome_on_demand(d, b));
        welcome_t w;
        welcome_parse(d, b, &w);
        ck_assert(w.timer_mul == mul);
        ck_assert_uint_eq(w.delay, delay);
        ck_assert_uint_eq(w.resolution, res);
        ck_assert_uint_eq(w.pid, pid);
        ck_assert(w.on_demand && w.code_transfer && !w.ignore_mem_faults);
        ck_assert_uint_eq(w.cpu_arch, 2);
        ck_assert(memcmp(w.cpu_manufacturer, "AuthenticAMD", 12) == 0);
        ck_assert_str_eq(w.program, "old");
        ck_assert_str_eq(w.host_info, "host");
    }
    const proto_desc_t *d76 = proto_by_version(76);
    ck_assert_uint_eq(d76->welcome_size, 1170);
    welcome_t w;
    welcome_parse(d76, b, &w);
    ck_assert_uint_eq(w.delay, 0);
    ck_assert_uint_eq(w.resolution, delay);     /* 82's offset 24 */
    ck_assert(!welcome_on_demand(d76, b));      /* byte 64 */
}
END_TEST

/* Each descriptor against facts transcribed from protocol-older.md: the
 * number of types, a few sizes, the welcome, 64's query numbering; and
 * the decoder's tables agree with event_size for every byte. */
START_TEST(descriptor_tables_agree_with_the_spec)
{
    static const struct { uint32_t v; unsigned ntypes; uint8_t msg, ctxsw, wakeup, fiber, topo; } facts[] = {
        { 64, 111, 9, 20, 13, 21, 13 }, { 66, 112, 9, 20, 13, 21, 13 }, { 69, 113, 9, 20, 13, 25, 17 },
        { 72, 115, 9, 20, 13, 25, 17 }, { 74, 115, 9, 23, 16, 25, 17 }, { 76, 117, 9, 23, 16, 25, 17 },
        { 82, 132, 10, 23, 16, 25, 17 },
    };
    size_t n = 0;
    while (proto_all[n]) n++;
    ck_assert_uint_eq(n, 7);     /* newest first: proto_all[6] is 64 */
    for (size_t i = 0; i < 7; i++) {
        const proto_desc_t *d = proto_all[6 - i];
        ck_assert_uint_eq(d->version, facts[i].v);
        ck_assert_uint_eq(d->ntypes, facts[i].ntypes);
        proto_tables_t t;
        proto_tables_init(&t, d);
        ck_assert_uint_eq(t.size[t.wire[EV_MESSAGE]], facts[i].msg);
        ck_assert_uint_eq(t.size[t.wire[EV_CONTEXT_SWITCH]], facts[i].ctxsw);
        ck_assert_uint_eq(t.size[t.wire[EV_THREAD_WAKEUP]], facts[i].wakeup);
        ck_assert_uint_eq(t.size[t.wire[EV_FIBER_ENTER]], facts[i].fiber);
        ck_assert_uint_eq(t.size[t.wire[EV_CPU_TOPOLOGY]], facts[i].topo);
        ck_assert_uint_eq(d->welcome_size, (d->layout & PL_WELCOME_DELAY) ? 1178 : 1170);
        ck_assert_uint_eq(d->welcome_flags_at, (d->layout & PL_WELCOME_DELAY) ? 72 : 64);
        ck_assert(d->query_immediate == (d->version < 82));
        ck_assert_uint_eq(d->query_wire[SQ_DISCONNECT], d->version == 64 ? 8 : 9);
        ck_assert_uint_eq(d->query_wire[SQ_EXTERNAL_NAME], d->version == 64 ? 10 : 8);
        /* the client-internal types never get a wire byte */
        ck_assert_uint_eq(t.wire[EV_SYMBOL_CODE_METADATA], EV_NONE);
        uint8_t ev[512] = {0};     /* room for 82's shortest 16-bit string */
        for (unsigned b = 0; b < 256; b++) {
            ev[0] = (uint8_t)b;
            const size_t full = event_size(&t, ev, sizeof ev, NULL, 0);
            if (t.canon[b] == EV_NONE) ck_assert_uint_eq(full, 0);
            else if (t.fixed[b]) ck_assert_uint_eq(full, t.fixed[b]);
            else ck_assert_uint_ge(full, t.size[b]);
            if (t.canon[b] != EV_NONE) ck_assert_uint_eq(t.wire[t.canon[b]], b);
        }
    }
    /* 82 is the identity, and its rules are the model's default */
    proto_tables_t t;
    proto_tables_init(&t, proto_by_version(82));
    for (unsigned b = 0; b < EV_TYPE_COUNT; b++)
        if (proto_event_size[b]) ck_assert_uint_eq(t.canon[b], b);
    ck_assert(memcmp(&proto_by_version(82)->rules, &model_rules_82, sizeof model_rules_82) == 0);
}
END_TEST

Suite *event_suite(void)
{
    Suite *s = suite_create("event decoder");
    TCase *tc = tcase_create("events");
    tcase_add_test(tc, welcome_fields_at_their_offsets);
    tcase_add_test(tc, compact_time_forms);
    tcase_add_test(tc, thread_context_resets_the_thread_reference);
    tcase_add_test(tc, string_forms_and_trailers);
    tcase_add_test(tc, unknown_type_is_named_with_its_offset);
    tcase_add_test(tc, truncated_event_is_an_error);
    tcase_add_test(tc, every_wire_type_has_a_size);
    tcase_add_test(tc, fixed_size_table_agrees_with_event_size);
    tcase_add_test(tc, time_conversion_truncates_like_upstream);
    tcase_add_test(tc, payloads_numbered_ahead_name_the_same_stacks);
    tcase_add_test(tc, unnumbered_payloads_find_numbered_stacks);
    tcase_add_test(tc, instrumentation_failure_names_event_and_place);
    tcase_add_loop_test(tc, each_protocol_decodes_its_own_frame, 0, 7);
    tcase_add_test(tc, welcome_with_the_queue_delay);
    tcase_add_test(tc, descriptor_tables_agree_with_the_spec);
    suite_add_tcase(s, tc);
    return s;
}
