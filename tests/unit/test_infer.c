/* test_infer.c - unit tests of the protocol inference of a bare recording
 * (infer.c): crafted recordings of a sane 1170-byte welcome and one frame,
 * whose events fit two protocols alike, only one, or none, fed whole and
 * byte by byte. */
#include <check.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "proto.h"
#include "unit.h"

/* Status byte, a welcome of protocol 76/82's layout (1 ns ticks, a timer
 * resolution of 10, a capture time in 2023), then one frame holding
 * `events`. Returns the recording's size. */
static size_t recording(uint8_t *out, const uint8_t *events, size_t n)
{
    memset(out, 0, 1 + PROTO_WELCOME_SIZE);
    out[0] = HS_WELCOME;
    const double mul = 1.0;
    const uint64_t resolution = 10, capture_time = 1700000000;
    memcpy(out + 1, &mul, 8);
    memcpy(out + 1 + 24, &resolution, 8);
    memcpy(out + 1 + 32, &capture_time, 8);
    size_t at = 1 + PROTO_WELCOME_SIZE;
    const int sz = LZ4_compress_default((const char *)events, (char *)out + at + 4, (int)n, PROTO_LZ4_MAX_FRAME);
    const uint32_t size = (uint32_t)sz;
    memcpy(out + at, &size, 4);
    return at + 4 + size;
}

/* A fixed-size event type that protocols a and b number and size alike
 * (same_size) or that b numbers as a type of another size or none. */
static int event_byte(const proto_desc_t *a, const proto_desc_t *b, bool same_size)
{
    proto_tables_t ta, tb;
    proto_tables_init(&ta, a);
    proto_tables_init(&tb, b);
    for (int w = 0; w < 256; w++) {
        if (!ta.fixed[w]) continue;
        if (same_size ? tb.fixed[w] == ta.fixed[w] && tb.canon[w] == ta.canon[w] : tb.size[w] != ta.size[w])
            return w;
    }
    return -1;
}

/* `count` events of wire byte w, protocol d's size, filled with 0xFF. */
static size_t events_of(const proto_desc_t *d, int w, unsigned count, uint8_t *out)
{
    proto_tables_t t;
    proto_tables_init(&t, d);
    size_t at = 0;
    for (unsigned i = 0; i < count; i++) {
        memset(out + at, 0xFF, t.fixed[w]);
        out[at] = (uint8_t)w;
        at += t.fixed[w];
    }
    return at;
}

static infer_status_t infer_bytewise(const uint8_t *p, size_t n, infer_t *out)
{
    infer_state_t *s = infer_new();
    for (size_t i = 0; i < n; i++) infer_feed(s, p + i, 1);
    return infer_finish(s, out);
}

START_TEST(events_both_protocols_size_alike_fit_both)
{
    const proto_desc_t *p82 = proto_by_version(82), *p76 = proto_by_version(76);
    const int w = event_byte(p76, p82, true);
    ck_assert_int_ge(w, 0);
    uint8_t ev[4096], *rec = malloc(1 << 16);
    const size_t n = recording(rec, ev, events_of(p76, w, 50, ev));
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        infer_t in;
        ck_assert_int_eq(bytewise ? infer_bytewise(rec, n, &in) : infer_protocol(rec, n, &in), INFER_DONE);
        ck_assert_uint_eq(in.nfits, 2);
        ck_assert_ptr_eq(in.fits[0], p82);   /* newest first */
        ck_assert_ptr_eq(in.fits[1], p76);
        ck_assert_uint_eq(in.frames, 1);
    }
    free(rec);
}
END_TEST

START_TEST(events_of_one_protocol_only_fit_it)
{
    const proto_desc_t *p82 = proto_by_version(82), *p76 = proto_by_version(76);
    const int w = event_byte(p76, p82, false);
    ck_assert_int_ge(w, 0);
    uint8_t ev[4096], *rec = malloc(1 << 16);
    const size_t n = recording(rec, ev, events_of(p76, w, 3, ev));
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        infer_t in;
        ck_assert_int_eq(bytewise ? infer_bytewise(rec, n, &in) : infer_protocol(rec, n, &in), INFER_DONE);
        ck_assert_uint_eq(in.nfits, 1);
        ck_assert_ptr_eq(in.fits[0], p76);
    }
    /* The other way round: 82's events fit 82 alone. */
    const int w82 = event_byte(p82, p76, false);
    ck_assert_int_ge(w82, 0);
    const size_t n82 = recording(rec, ev, events_of(p82, w82, 3, ev));
    infer_t in;
    ck_assert_int_eq(infer_protocol(rec, n82, &in), INFER_DONE);
    ck_assert_uint_eq(in.nfits, 1);
    ck_assert_ptr_eq(in.fits[0], p82);
    free(rec);
}
END_TEST

START_TEST(events_of_no_protocol_fit_none_and_say_where)
{
    uint8_t ev[64], *rec = malloc(1 << 16);
    memset(ev, 0xFF, sizeof ev);   /* no protocol has a type 255 */
    const size_t n = recording(rec, ev, sizeof ev);
    infer_t in;
    ck_assert_int_eq(infer_protocol(rec, n, &in), INFER_DONE);
    ck_assert_uint_eq(in.nfits, 0);
    ck_assert_ptr_eq(in.nearest, proto_by_version(82));   /* the newest whose welcome reads sanely */
    ck_assert_ptr_nonnull(strstr(in.why, "frame 1"));
    ck_assert_ptr_nonnull(strstr(in.why, "event type 255"));
    free(rec);
}
END_TEST

START_TEST(no_welcome_nothing_to_infer)
{
    uint8_t rec[1 + PROTO_WELCOME_SIZE] = { HS_WELCOME };
    infer_t in;
    ck_assert_int_eq(infer_protocol(rec, 100, &in), INFER_NOTHING);   /* the welcome is cut short */
    rec[0] = 3;                                                       /* a refusal, not a welcome */
    ck_assert_int_eq(infer_protocol(rec, sizeof rec, &in), INFER_NOTHING);
    ck_assert_int_eq(infer_protocol(rec, 0, &in), INFER_NOTHING);
}
END_TEST

START_TEST(welcome_alone_fits_its_size_sane_readings)
{
    /* A sane 1170-byte welcome and no frame: 82 and 76 (the 1178-byte
     * reading's resolution is the capture time: implausible). */
    uint8_t ev[1] = { 0 }, *rec = malloc(1 << 16);
    const size_t n = 1 + PROTO_WELCOME_SIZE;
    recording(rec, ev, 0);
    /* the start of a frame of 100 bytes, as long as the longer welcome's
     * rest */
    uint8_t extra[8] = { 100, 0, 0, 0, 0x10, 0, 0, 0 };
    memcpy(rec + n, extra, sizeof extra);
    infer_t in;
    ck_assert_int_eq(infer_protocol(rec, n + sizeof extra, &in), INFER_DONE);
    ck_assert_uint_eq(in.nfits, 2);
    ck_assert_uint_eq(in.fits[0]->version, 82);
    ck_assert_uint_eq(in.fits[1]->version, 76);
    ck_assert_uint_eq(in.frames, 0);
    free(rec);
}
END_TEST

Suite *infer_suite(void)
{
    Suite *s = suite_create("protocol inference");
    TCase *tc = tcase_create("infer");
    tcase_add_test(tc, events_both_protocols_size_alike_fit_both);
    tcase_add_test(tc, events_of_one_protocol_only_fit_it);
    tcase_add_test(tc, events_of_no_protocol_fit_none_and_say_where);
    tcase_add_test(tc, no_welcome_nothing_to_infer);
    tcase_add_test(tc, welcome_alone_fits_its_size_sane_readings);
    suite_add_tcase(s, tc);
    return s;
}
