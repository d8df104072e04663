/* netdec.h - LZ4 frame decoding on a thread of its own, so that a live
 * capture decompresses the stream on one core while the model is built on
 * the other.
 *
 * The connection pushes the raw bytes it reads; the decoder thread cuts
 * them into frames, decompresses them (frame.c, with the protocol's ring)
 * and hands each decoded frame back as an item, in order, waking the
 * connection's loop through a callback. Items end with END (input ended)
 * or ERROR (a bad frame; the frames before it are delivered first).
 *
 * With a spool (netdec_spool), a second thread appends every pushed chunk
 * to it; a chunk waiting to be decoded then leaves memory once spooled and
 * is read back in its turn, so input never has to wait in memory for the
 * decoder: the reader of the input only bounds netdec_in_memory(). */
#ifndef TC_NETDEC_H
#define TC_NETDEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocols.h"
#include "spool.h"

typedef struct netdec netdec_t;

/* Received bytes waiting to be decoded beyond this are dropped from memory
 * once spooled, and read back from the spool in their turn. */
#define NETDEC_KEEP_IN_MEMORY (1u << 20)
/* When this much more waits for the spool thread, it writes through the
 * page cache (spool_write_now) until it has caught up: a direct spool's
 * disk may be slower than the wire. A reader that pauses above
 * netdec_in_memory() = KEEP_IN_MEMORY + SPOOL_BEHIND + a few MB lets it. */
#define NETDEC_SPOOL_BEHIND (8u << 20)

typedef enum { NETDEC_FRAME, NETDEC_ERROR, NETDEC_END } netdec_kind_t;

typedef struct {
    netdec_kind_t kind;
    const uint8_t *data;        /* FRAME: the decoded frame */
    size_t n;
    uint64_t frame_no;          /* 1-based */
    uint64_t offset;            /* stream offset of the frame's size field */
    size_t numbered;            /* FRAME: payloads numbered up to here (csdedup.h) */
    int slot;                   /* internal: the buffer to release */
} netdec_item_t;

/* Start the thread for a stream of protocol `desc`. base_offset: stream
 * offset of the first frame byte.
 * notify(ctx) is called from the decoder thread when items are ready.
 * NULL, with *err the errno, when the thread cannot start. */
netdec_t *netdec_start(uint64_t base_offset, const proto_desc_t *desc, void (*notify)(void *ctx), void *ctx,
                       int *err);
/* Append every byte pushed from now on to this spool, on a thread of its
 * own (bytes still queued at netdec_stop too). Bytes waiting to be decoded
 * beyond a few MB are then dropped from memory once spooled and read back
 * from the spool in their turn. Call before the first push. Returns 0, or
 * the errno of the spool thread that cannot start: then nothing is
 * spooled (the caller gives the spool up) and everything else works. */
int netdec_spool(netdec_t *d, spool_t *spool);
/* Queue raw bytes (copied). */
void netdec_push(netdec_t *d, const uint8_t *p, size_t n);
/* Queue the first n bytes of a malloc'ed buffer of `size` bytes, which
 * netdec then owns (for big reads: no copy; the whole size counts as held
 * until the bytes are decoded and spooled, or spilled). */
void netdec_push_owned(netdec_t *d, uint8_t *data, size_t n, size_t size);
/* No more input: after the last frame an END item follows. */
void netdec_end(netdec_t *d);
/* Take the next item, if one is ready. */
bool netdec_pop(netdec_t *d, netdec_item_t *it);
/* Take the next item, waiting for it; false once END or ERROR was taken. */
bool netdec_pop_wait(netdec_t *d, netdec_item_t *it);
/* Give a FRAME item's buffer back. */
void netdec_release(netdec_t *d, const netdec_item_t *it);
/* Raw bytes queued and not yet decoded. */
size_t netdec_backlog(netdec_t *d);
/* Of those (and of the ones decoded but not yet spooled), the bytes held
 * in memory, buffers and bookkeeping: what the reader of the input should
 * bound. */
size_t netdec_in_memory(netdec_t *d);
/* Bytes pushed and not yet written to the spool. */
size_t netdec_unspooled(netdec_t *d);
/* Bytes read back from the spool so far, having waited there. */
uint64_t netdec_spilled(netdec_t *d);
/* The errno of the spool's first failed write, or 0. The spool thread
 * then stops writing, and the spool is given up (spool_abandon) as soon
 * as no spilled input waits to be read back from it; the capture goes on. */
int netdec_spool_error(netdec_t *d);
/* Once END was taken: the bytes of the incomplete frame the input ended
 * inside (not decoded, so not in the trace), or 0. */
size_t netdec_partial(netdec_t *d);
/* What the ERROR item was about. */
const char *netdec_error(netdec_t *d);
/* Decoded frames and bytes so far (compressed / decompressed). */
void netdec_stats(netdec_t *d, uint64_t *frames, uint64_t *compressed, uint64_t *decompressed);
/* Stop the thread (wherever it is) and free everything. */
void netdec_stop(netdec_t *d);

#endif
