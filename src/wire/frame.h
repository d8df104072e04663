/* frame.h - the LZ4 frame decoder of the client->server stream.
 *
 * Bytes go in as they arrive (any split); each complete frame (u32 size +
 * LZ4 block) is decompressed into the ring buffer of protocol-82.md 3.2 and
 * handed to a callback as one whole run of events. */
#ifndef TC_FRAME_H
#define TC_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* Receives one decompressed frame; returns 0 to go on, -1 to stop. */
typedef int (*frame_fn)(void *ctx, const uint8_t *data, size_t n);

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
    char err[256];
} frame_decoder_t;

/* base_offset: stream offset of the first frame byte (for messages). */
void frame_decoder_init(frame_decoder_t *f, uint64_t base_offset);
void frame_decoder_free(frame_decoder_t *f);
/* Feed bytes. Returns 0, or -1 on a corrupt frame or when the callback
 * stopped (f->err says which frame and where, when it was the decoder). */
int frame_feed(frame_decoder_t *f, const uint8_t *p, size_t n, frame_fn cb, void *ctx);
/* Bytes of an incomplete frame held back (0 between frames). */
static inline size_t frame_partial(const frame_decoder_t *f) { return f->hdr_have + f->body_have; }

#endif
