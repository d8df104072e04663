/* fuzz_frame.c - fuzz target of the LZ4 frame decoder (frame_feed).
 *
 * The input is a client stream after the handshake (u32 size + LZ4 block
 * frames). It is fed three ways: whole, in splits derived from the input,
 * and (when short) one byte at a time. Every way must see the same frames
 * (count, bytes, content hash) and end the same way (result, message);
 * frame counts only grow, each frame fits the decode ring, an error
 * always says why, and a feed that succeeds consumes all it was given. */
#include <string.h>

#include "frame.h"
#include "fuzz.h"
#include "proto.h"

#define BASE_OFFSET (1 + PROTO_WELCOME_SIZE)
#define RING_BYTES (3 * PROTO_TARGET_FRAME_SIZE + 1)

typedef struct {
    frame_decoder_t f;
    uint64_t frames, bytes, hash;
    uint64_t stop_after;      /* the callback stops after this many frames, 0 = never */
    bool stopped;             /* ...and it did */
    int rc;
} run_t;

static int on_frame(void *ctx, const uint8_t *p, size_t n)
{
    run_t *r = ctx;
    FUZZ_CHECK(r->f.frames == r->frames + 1, "decoder counts %llu frames, callback saw %llu",
               (unsigned long long)r->f.frames, (unsigned long long)r->frames);
    FUZZ_CHECK(n <= PROTO_TARGET_FRAME_SIZE, "a frame of %zu bytes", n);
    FUZZ_CHECK(p >= r->f.ring && p + n <= r->f.ring + RING_BYTES, "frame outside the decode ring");
    r->frames++;
    r->bytes += n;
    r->hash = fuzz_hash(p, n, r->hash);
    if (r->stop_after && r->frames >= r->stop_after) {
        r->stopped = true;
        return -1;
    }
    return 0;
}

/* Feed p[0..n) in pieces of `piece` bytes (0: input-derived splits). */
static void run(run_t *r, const uint8_t *p, size_t n, size_t piece, uint64_t seed, uint64_t stop_after)
{
    memset(r, 0, sizeof *r);
    frame_decoder_init(&r->f, BASE_OFFSET);
    r->stop_after = stop_after;
    size_t fed = 0;
    while (fed < n) {
        size_t k = piece ? (piece < n - fed ? piece : n - fed) : fuzz_piece(&seed, n - fed);
        const uint64_t before = r->f.frames;
        r->rc = frame_feed(&r->f, p + fed, k, on_frame, r);
        fed += k;
        FUZZ_CHECK(r->f.frames >= before, "frame count went down");
        if (r->rc) break;
        FUZZ_CHECK(r->f.offset == BASE_OFFSET + fed, "offset %llu after %zu bytes",
                   (unsigned long long)r->f.offset, fed);
    }
    FUZZ_CHECK(r->rc == 0 || r->rc == -1, "frame_feed returned %d", r->rc);
    FUZZ_CHECK(r->rc == 0 || r->stopped || r->f.err[0], "an error without a message");
    FUZZ_CHECK(r->rc == 0 || !r->stopped || !r->f.err[0], "a stop reported as an error: %s", r->f.err);
    FUZZ_CHECK(r->frames == r->f.frames, "callback saw %llu of %llu frames",
               (unsigned long long)r->frames, (unsigned long long)r->f.frames);
}

static void same(const run_t *a, const run_t *b, const char *how)
{
    FUZZ_CHECK(a->rc == b->rc && a->frames == b->frames && a->bytes == b->bytes && a->hash == b->hash &&
               a->stopped == b->stopped && strcmp(a->f.err, b->f.err) == 0,
               "fed %s: rc %d/%d, %llu/%llu frames, %llu/%llu bytes, err '%s'/'%s'", how, a->rc, b->rc,
               (unsigned long long)a->frames, (unsigned long long)b->frames, (unsigned long long)a->bytes,
               (unsigned long long)b->bytes, a->f.err, b->f.err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t seed = fuzz_hash(data, size < 64 ? size : 64, size);
    const uint64_t stop_after = (seed & 7) == 0 ? 1 + (seed >> 8) % 4 : 0;
    run_t *whole = malloc(sizeof *whole), *split = malloc(sizeof *split);
    run(whole, data, size, size ? size : 1, 0, stop_after);
    run(split, data, size, 0, seed, stop_after);
    same(whole, split, "in splits");
    frame_decoder_free(&split->f);
    if (size <= 4096) {
        run(split, data, size, 1, 0, stop_after);
        same(whole, split, "byte by byte");
        frame_decoder_free(&split->f);
    }
    frame_decoder_free(&whole->f);
    free(whole);
    free(split);
    return 0;
}
