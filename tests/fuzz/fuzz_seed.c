/* fuzz_seed.c - makes fuzz seeds from a recorded client stream (what the
 * test client's --record or a fixture's client-to-server.bin holds):
 *
 *   fuzz-seed raw    MAX_LEN RECORDING OUT   the first MAX_LEN bytes (fuzz_session, fuzz_write)
 *   fuzz-seed frames MAX_LEN RECORDING OUT   the frames after the handshake (fuzz_frame)
 *   fuzz-seed plain  MAX_LEN RECORDING OUT   the plain form of fuzz.h: handshake, then the
 *                                            frames decompressed (fuzz_session, fuzz_write)
 *
 * Seeds are cut at MAX_LEN bytes (a plain stream's last frame is shortened
 * to what is left), so that runs stay fast. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "fuzz.h"
#include "proto.h"
#include "util.h"

typedef struct {
    uint8_t *p;
    size_t n, max;
} out_t;

/* Append up to what MAX_LEN leaves room for; returns how much fitted. */
static size_t put(out_t *o, const void *p, size_t n)
{
    if (n > o->max - o->n) n = o->max - o->n;
    memcpy(o->p + o->n, p, n);
    o->n += n;
    return n;
}

static int on_frame(void *ctx, const uint8_t *p, size_t n)
{
    out_t *o = ctx;
    if (o->max - o->n <= 4) return -1;
    uint8_t *size = o->p + o->n;
    o->n += 4;
    const uint32_t k = (uint32_t)put(o, p, n);
    memcpy(size, &k, 4);
    return o->n < o->max ? 0 : -1;
}

static size_t handshake_size(const uint8_t *p, size_t n)
{
    if (n < 1 + PROTO_WELCOME_SIZE || p[0] != HS_WELCOME) {
        fprintf(stderr, "fuzz-seed: not a recording of a welcomed session\n");
        exit(1);
    }
    return 1 + PROTO_WELCOME_SIZE + ((p[1 + 64] & WF_ON_DEMAND) ? PROTO_ONDEMAND_SIZE : 0);
}

/* The plain form: the handshake, then frames decompressed until MAX_LEN
 * is reached (the recording is read on as far as that takes). */
static void plain(out_t *o, const uint8_t *p, size_t n, FILE *rest)
{
    const size_t hs = handshake_size(p, n);
    const uint8_t magic = FUZZ_PLAIN;
    put(o, &magic, 1);
    put(o, p + 1, hs - 1);
    frame_decoder_t f;
    frame_decoder_init(&f, hs);
    int rc = frame_feed(&f, p + hs, n - hs, on_frame, o);
    uint8_t *buf = xmalloc(1 << 20);
    size_t k;
    while (rc == 0 && (k = fread(buf, 1, 1 << 20, rest)) > 0) rc = frame_feed(&f, buf, k, on_frame, o);
    free(buf);
    frame_decoder_free(&f);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: fuzz-seed raw|frames|plain MAX_LEN RECORDING OUT\n");
        return 2;
    }
    out_t o = { .max = strtoull(argv[2], NULL, 0) };
    FILE *f = fopen(argv[3], "rb");
    if (!f || o.max == 0) {
        fprintf(stderr, "fuzz-seed: cannot read %s\n", argv[3]);
        return 1;
    }
    /* MAX_LEN bytes after the handshake (a plain stream reads on as needed) */
    const size_t want = o.max + 1 + PROTO_WELCOME_SIZE + PROTO_ONDEMAND_SIZE;
    uint8_t *in = xmalloc(want);
    const size_t n = fread(in, 1, want, f);
    o.p = xmalloc(o.max);
    if (strcmp(argv[1], "raw") == 0) put(&o, in, n);
    else if (strcmp(argv[1], "frames") == 0) {
        const size_t hs = handshake_size(in, n);
        put(&o, in + hs, n - hs);
    } else if (strcmp(argv[1], "plain") == 0) plain(&o, in, n, f);
    else return 2;
    fclose(f);
    FILE *w = fopen(argv[4], "wb");
    if (!w || fwrite(o.p, 1, o.n, w) != o.n || fclose(w) != 0) {
        fprintf(stderr, "fuzz-seed: cannot write %s\n", argv[4]);
        return 1;
    }
    free(in);
    free(o.p);
    return 0;
}
