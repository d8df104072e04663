/* frame.h - the LZ4 frame decoder of the client->server stream.
 *
 * Bytes go in as they arrive (any split); each complete frame (u32 size +
 * LZ4 block) is decompressed into the ring buffer of protocol-82.md 3.2 and
 * handed to a callback as one whole run of events. */
#ifndef TC_FRAME_H
#define TC_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/* Receives one decompressed frame; returns 0 to go on, -1 to stop. */
typedef int (*frame_fn)(void *ctx, const uint8_t *data, size_t n);
/* Hands out the buffer of FRAME_OUT_SIZE bytes the next frame is to be
 * decoded into (frame_decode_into), or NULL to stop. */
typedef uint8_t *(*frame_out_fn)(void *ctx);

/* The stream's last 64 KiB decoded, which an LZ4 block may refer to. */
#define FRAME_HISTORY (64u << 10)
#define FRAME_OUT_SIZE (FRAME_HISTORY + PROTO_TARGET_FRAME_SIZE)

typedef struct {
    void *lz4;                /* LZ4_streamDecode_t */
    uint8_t *ring;
    size_t ring_off;
    uint8_t hdr[4];
    size_t hdr_have;
    uint8_t *body;            /* partial frame body */
    size_t body_need, body_have;
    uint64_t frames;          /* complete frames decoded */
    uint64_t offset;          /* stream offset of the next byte fed */
    uint64_t frame_offset;    /* stream offset of the current frame's size field */
    uint64_t compressed, decompressed;
    frame_out_fn out;         /* frame_decode_into's, or NULL: the ring */
    const uint8_t *hist_end;  /* ...then the history ends here, */
    size_t hist_n;            /* this many bytes of it before */
    uint8_t *hist_copy;       /* (frame_keep_history's copy) */
    char err[256];
} frame_decoder_t;

/* base_offset: stream offset of the first frame byte (for messages). */
void frame_decoder_init(frame_decoder_t *f, uint64_t base_offset);
void frame_decoder_free(frame_decoder_t *f);
/* Feed bytes. Returns 0, or -1 on a corrupt frame or when the callback
 * stopped (f->err says which frame and where, when it was the decoder). */
int frame_feed(frame_decoder_t *f, const uint8_t *p, size_t n, frame_fn cb, void *ctx);
/* Decode each frame into a buffer `out` hands out instead of the ring, at
 * FRAME_HISTORY, after a copy of the history: the caller then keeps each
 * frame as long as it likes, with no copy of it (only the last 64 KiB of
 * the one before is copied). The history is taken from where the last
 * frame was decoded, so its buffer must not change until the next frame
 * is decoded, unless frame_keep_history copied it aside first. Call
 * before the first frame. */
void frame_decode_into(frame_decoder_t *f, frame_out_fn out);
/* Copy the history aside now: the caller may change the frame just
 * decoded (in the frame callback). */
void frame_keep_history(frame_decoder_t *f);
/* Bytes of an incomplete frame held back (0 between frames). */
static inline size_t frame_partial(const frame_decoder_t *f) { return f->hdr_have + f->body_have; }

#endif
