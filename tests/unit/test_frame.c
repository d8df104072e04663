/* test_frame.c - unit tests of the LZ4 frame decoder: whole and split
 * frames, the decode ring across many frames, and the errors for bad sizes
 * and undecodable blocks. */
#include <check.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "proto.h"
#include "unit.h"

/* A client-side compressor with the protocol's ring buffer. */
typedef struct {
    LZ4_stream_t *lz4;
    char ring[3 * PROTO_TARGET_FRAME_SIZE];
    size_t off;
} client_t;

static void client_init(client_t *c)
{
    c->lz4 = LZ4_createStream();
    c->off = 0;
}

/* Append one frame holding `data` to out; returns bytes appended. */
static size_t client_frame(client_t *c, const void *data, size_t n, uint8_t *out)
{
    memcpy(c->ring + c->off, data, n);
    int sz = LZ4_compress_fast_continue(c->lz4, c->ring + c->off, (char *)out + 4, (int)n, PROTO_LZ4_MAX_FRAME, 1);
    uint32_t s = (uint32_t)sz;
    memcpy(out, &s, 4);
    c->off += n;
    if (c->off > 2 * PROTO_TARGET_FRAME_SIZE) c->off = 0;
    return 4 + (size_t)sz;
}

typedef struct {
    uint8_t *got;
    size_t n;
    int frames;
} sink_t;

static int on_frame(void *ctx, const uint8_t *p, size_t n)
{
    sink_t *s = ctx;
    memcpy(s->got + s->n, p, n);
    s->n += n;
    s->frames++;
    return 0;
}

/* Pseudo-random but compressible content. */
static void fill(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)((seed >> 16) % 7 + (i % 13));
    }
}

/* frame_decode_into: buffers handed out in turn (the same one twice in a
 * row now and then), a caller that changes some frames after
 * frame_keep_history, frames small and large, content that refers back
 * ~50 KB (across several small frames and the client ring's wrap): the
 * same bytes as sent. */
typedef struct {
    uint8_t *bufs[3];
    unsigned turn;
    sink_t sink;
    frame_decoder_t *f;
} into_t;

static uint8_t *hand_out(void *ctx)
{
    into_t *t = ctx;
    const unsigned k = t->turn++;
    return t->bufs[k % 7 == 3 ? (k - 1) % 3 : k % 3];     /* now and then the last one again */
}

static int on_frame_into(void *ctx, const uint8_t *p, size_t n)
{
    into_t *t = ctx;
    on_frame(&t->sink, p, n);
    if (t->sink.frames % 3 == 0) {
        /* changed after decoding, as csdedup numbers payloads */
        frame_keep_history(t->f);
        memset((uint8_t *)p, 0xEE, n);
    }
    return 0;
}

START_TEST(frames_decoded_into_caller_buffers_are_the_frames_sent)
{
    enum { NFRAMES = 60 };
    client_t cl;
    client_init(&cl);
    size_t total = 0, wire_n = 0;
    uint8_t *plain = malloc(NFRAMES * PROTO_TARGET_FRAME_SIZE);
    uint8_t *wire = malloc(NFRAMES * PROTO_LZ4_MAX_FRAME);
    for (int i = 0; i < NFRAMES; i++) {
        size_t n = i % 4 == 0 ? PROTO_TARGET_FRAME_SIZE : (size_t)(i * 7919 % 30000) + 100;
        fill(plain + total, n, (unsigned)i);
        for (size_t j = 0; j < n; j++)
            if (total + j >= 50000 && (j / 500) % 2 == 0) plain[total + j] = plain[total + j - 50000];
        wire_n += client_frame(&cl, plain + total, n, wire + wire_n);
        total += n;
    }
    frame_decoder_t f;
    frame_decoder_init(&f, 0);
    into_t t = { .sink = { .got = malloc(total) }, .f = &f };
    for (int i = 0; i < 3; i++) t.bufs[i] = malloc(FRAME_OUT_SIZE);
    frame_decode_into(&f, hand_out);
    for (size_t off = 0; off < wire_n; off += 100000)
        ck_assert_int_eq(frame_feed(&f, wire + off, wire_n - off < 100000 ? wire_n - off : 100000, on_frame_into, &t), 0);
    ck_assert_int_eq(t.sink.frames, NFRAMES);
    ck_assert_uint_eq(t.sink.n, total);
    ck_assert(memcmp(t.sink.got, plain, total) == 0);
    frame_decoder_free(&f);
    LZ4_freeStream(cl.lz4);
    for (int i = 0; i < 3; i++) free(t.bufs[i]);
    free(plain);
    free(wire);
    free(t.sink.got);
}
END_TEST

START_TEST(frames_split_at_every_boundary)
{
    enum { NFRAMES = 40 };
    client_t cl;
    client_init(&cl);
    size_t total = 0, wire_n = 0;
    uint8_t *plain = malloc(NFRAMES * PROTO_TARGET_FRAME_SIZE);
    uint8_t *wire = malloc(NFRAMES * PROTO_LZ4_MAX_FRAME);
    for (int i = 0; i < NFRAMES; i++) {
        size_t n = (size_t)(i * 7919 % PROTO_TARGET_FRAME_SIZE) + 1;
        if (i % 5 == 0) n = PROTO_TARGET_FRAME_SIZE;
        fill(plain + total, n, (unsigned)i);
        wire_n += client_frame(&cl, plain + total, n, wire + wire_n);
        total += n;
    }
    /* Feed in odd-sized pieces, including 1-byte ones. */
    frame_decoder_t f;
    frame_decoder_init(&f, 1171);
    sink_t s = { .got = malloc(total) };
    size_t off = 0, step = 1;
    while (off < wire_n) {
        size_t n = step < wire_n - off ? step : wire_n - off;
        ck_assert_int_eq(frame_feed(&f, wire + off, n, on_frame, &s), 0);
        off += n;
        step = step * 3 % 70001 + 1;
    }
    ck_assert_int_eq(s.frames, NFRAMES);
    ck_assert_uint_eq(s.n, total);
    ck_assert(memcmp(s.got, plain, total) == 0);
    ck_assert_uint_eq(frame_partial(&f), 0);
    ck_assert_uint_eq(f.offset, 1171 + wire_n);
    frame_decoder_free(&f);
    LZ4_freeStream(cl.lz4);
    free(plain);
    free(wire);
    free(s.got);
}
END_TEST

START_TEST(frame_size_out_of_bounds_is_an_error)
{
    frame_decoder_t f;
    frame_decoder_init(&f, 100);
    sink_t s = { .got = malloc(16) };
    uint8_t bad[4];
    uint32_t size = PROTO_LZ4_MAX_FRAME + 1;
    memcpy(bad, &size, 4);
    ck_assert_int_eq(frame_feed(&f, bad, 4, on_frame, &s), -1);
    ck_assert_ptr_nonnull(strstr(f.err, "frame 1 at stream offset 100"));
    ck_assert_ptr_nonnull(strstr(f.err, "263189"));
    frame_decoder_free(&f);

    frame_decoder_init(&f, 0);
    size = 0;
    memcpy(bad, &size, 4);
    ck_assert_int_eq(frame_feed(&f, bad, 4, on_frame, &s), -1);
    frame_decoder_free(&f);
    free(s.got);
}
END_TEST

START_TEST(undecodable_block_names_frame_and_offset)
{
    client_t cl;
    client_init(&cl);
    uint8_t wire[2 * PROTO_LZ4_MAX_FRAME];
    uint8_t data[1000];
    fill(data, sizeof data, 3);
    size_t n1 = client_frame(&cl, data, sizeof data, wire);
    /* Second frame: garbage that LZ4 must reject (a match reaching before
     * the start of the history). */
    uint8_t *g = wire + n1;
    const uint8_t junk[] = { 0x0f, 0xff, 0xff, 0x00, 0x00, 0xff, 0xff };
    uint32_t js = sizeof junk;
    memcpy(g, &js, 4);
    memcpy(g + 4, junk, sizeof junk);
    frame_decoder_t f;
    frame_decoder_init(&f, 10);
    sink_t s = { .got = malloc(4096) };
    ck_assert_int_eq(frame_feed(&f, wire, n1 + 4 + sizeof junk, on_frame, &s), -1);
    ck_assert_int_eq(s.frames, 1);
    char expect[64];
    snprintf(expect, sizeof expect, "frame 2 at stream offset %zu", 10 + n1);
    ck_assert_msg(strstr(f.err, expect), "got: %s", f.err);
    frame_decoder_free(&f);
    LZ4_freeStream(cl.lz4);
    free(s.got);
}
END_TEST

Suite *frame_suite(void)
{
    Suite *s = suite_create("frame decoder");
    TCase *tc = tcase_create("frames");
    tcase_add_test(tc, frames_split_at_every_boundary);
    tcase_add_test(tc, frames_decoded_into_caller_buffers_are_the_frames_sent);
    tcase_add_test(tc, frame_size_out_of_bounds_is_an_error);
    tcase_add_test(tc, undecodable_block_names_frame_and_offset);
    suite_add_tcase(s, tc);
    return s;
}
