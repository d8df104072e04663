/* frame.c - LZ4 frame decoding with the protocol's decode ring (see frame.h). */
#include "frame.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "util.h"

#define RING_SIZE (3 * PROTO_TARGET_FRAME_SIZE + 1)

void frame_decoder_init(frame_decoder_t *f, uint64_t base_offset)
{
    *f = (frame_decoder_t){0};
    f->lz4 = LZ4_createStreamDecode();
    if (!f->lz4) out_of_memory(sizeof(LZ4_streamDecode_t));
    LZ4_setStreamDecode(f->lz4, NULL, 0);
    f->ring = xmalloc(RING_SIZE);
    f->body = xmalloc(PROTO_LZ4_MAX_FRAME);
    f->offset = f->frame_offset = base_offset;
}

void frame_decoder_free(frame_decoder_t *f)
{
    if (f->lz4) LZ4_freeStreamDecode(f->lz4);
    free(f->ring);
    free(f->body);
    free(f->hist_copy);
    *f = (frame_decoder_t){0};
}

void frame_decode_into(frame_decoder_t *f, frame_out_fn out)
{
    f->out = out;
}

void frame_keep_history(frame_decoder_t *f)
{
    const size_t hist = f->hist_n < FRAME_HISTORY ? f->hist_n : FRAME_HISTORY;
    if (hist == 0) return;      /* nothing decoded yet */
    if (!f->hist_copy) f->hist_copy = xmalloc(FRAME_HISTORY);
    memcpy(f->hist_copy + FRAME_HISTORY - hist, f->hist_end - hist, hist);
    f->hist_end = f->hist_copy + FRAME_HISTORY;
    f->hist_n = hist;
}

/* Decompress into a buffer of the caller's, right after the history
 * (then the block's references to it are a prefix's, LZ4's fast case).
 * The bytes, or -1; *dst_out: where they are; NULL: out stopped it. */
static int decode_into(frame_decoder_t *f, const uint8_t *src, size_t n, void *ctx, uint8_t **dst_out)
{
    uint8_t *buf = f->out(ctx);
    *dst_out = NULL;
    if (!buf) return -1;
    uint8_t *dst = buf + FRAME_HISTORY;
    const size_t hist = f->hist_n < FRAME_HISTORY ? f->hist_n : FRAME_HISTORY;
    if (hist) memmove(dst - hist, f->hist_end - hist, hist);   /* (the same buffer again, perhaps) */
    const int out = LZ4_decompress_safe_usingDict((const char *)src, (char *)dst, (int)n, PROTO_TARGET_FRAME_SIZE,
                                                  (const char *)dst - hist, (int)hist);
    *dst_out = dst;
    if (out >= 0) {
        f->hist_end = dst + out;
        f->hist_n = hist + (size_t)out;
    }
    return out;
}

/* Decompress one whole compressed frame and pass it on. */
static int decode_frame(frame_decoder_t *f, const uint8_t *src, size_t n, frame_fn cb, void *ctx)
{
    uint8_t *dst = f->ring + f->ring_off;
    int out;
    if (f->out) {
        out = decode_into(f, src, n, ctx, &dst);
        if (!dst) return -1;            /* stopped: no error of the stream's */
    } else {
        out = LZ4_decompress_safe_continue(f->lz4, (const char *)src, (char *)dst, (int)n, PROTO_TARGET_FRAME_SIZE);
    }
    if (out < 0) {
        snprintf(f->err, sizeof f->err,
                 "frame %llu at stream offset %llu: the %zu-byte LZ4 block does not decompress",
                 (unsigned long long)f->frames + 1, (unsigned long long)f->frame_offset, n);
        return -1;
    }
    f->frames++;
    f->compressed += 4 + n;
    f->decompressed += (uint64_t)out;
    int rc = cb(ctx, dst, (size_t)out);
    if (!f->out) {
        f->ring_off += (size_t)out;
        if (f->ring_off > 2 * PROTO_TARGET_FRAME_SIZE) f->ring_off = 0;
    }
    f->frame_offset += 4 + n;
    return rc;
}

static int check_size(frame_decoder_t *f, uint32_t size)
{
    if (size == 0 || size > PROTO_LZ4_MAX_FRAME) {
        snprintf(f->err, sizeof f->err,
                 "frame %llu at stream offset %llu: size field says %u bytes (the protocol allows 1 to %u)",
                 (unsigned long long)f->frames + 1, (unsigned long long)f->frame_offset, size,
                 (unsigned)PROTO_LZ4_MAX_FRAME);
        return -1;
    }
    return 0;
}

int frame_feed(frame_decoder_t *f, const uint8_t *p, size_t n, frame_fn cb, void *ctx)
{
    while (n > 0) {
        if (f->hdr_have < 4) {
            /* Fast path: a whole frame in the input, nothing buffered. */
            if (f->hdr_have == 0 && n >= 4) {
                uint32_t size = ld32(p);
                if (check_size(f, size)) return -1;
                if (n - 4 >= size) {
                    f->offset += 4 + size;
                    int rc = decode_frame(f, p + 4, size, cb, ctx);
                    if (rc) return rc;
                    p += 4 + size;
                    n -= 4 + size;
                    continue;
                }
            }
            size_t take = 4 - f->hdr_have < n ? 4 - f->hdr_have : n;
            memcpy(f->hdr + f->hdr_have, p, take);
            f->hdr_have += take;
            f->offset += take;
            p += take;
            n -= take;
            if (f->hdr_have < 4) break;
            uint32_t size = ld32(f->hdr);
            if (check_size(f, size)) return -1;
            f->body_need = size;
            f->body_have = 0;
            continue;
        }
        size_t take = f->body_need - f->body_have < n ? f->body_need - f->body_have : n;
        memcpy(f->body + f->body_have, p, take);
        f->body_have += take;
        f->offset += take;
        p += take;
        n -= take;
        if (f->body_have == f->body_need) {
            f->hdr_have = 0;
            f->body_have = 0;
            int rc = decode_frame(f, f->body, f->body_need, cb, ctx);
            if (rc) return rc;
        }
    }
    return 0;
}
