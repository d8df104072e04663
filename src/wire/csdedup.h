/* csdedup.h - call-stack payloads recognised on the decoder thread.
 *
 * A memory-heavy client sends a CallstackPayload before nearly every
 * event, and nearly all of them repeat a stack sent before. Hashing and
 * comparing those bytes is the costliest part of taking such an event in,
 * so the decoder thread (netdec.c), which has cycles to spare after LZ4,
 * does it: each distinct payload gets a small number, first seen first,
 * written over the payload's pointer field (which nothing reads). The
 * model then finds a known stack by that number alone (event.c,
 * model_callstack_payload_seen). */
#ifndef TC_CSDEDUP_H
#define TC_CSDEDUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmap.h"
#include "protocols.h"
#include "util.h"

#define CSDEDUP_CACHE 1024        /* recently seen payloads, by hash */

typedef struct {
    uint64_t hash;
    uint64_t number;             /* + 1; 0: empty */
} csdedup_recent_t;

typedef struct {
    csdedup_recent_t recent[CSDEDUP_CACHE];   /* direct-mapped, ahead of by_hash */
    hashkey_t key;               /* the payloads' hash secret (util.h) */
    hmap_t by_hash;              /* hash (+ probe) -> payload number */
    VEC(uint8_t *) payloads;     /* number -> u16 length + bytes */
    unsigned skip;               /* frames left unwalked (see csdedup.c) */
    proto_tables_t t;            /* the protocol's sizes (events are walked, not decoded) */
    uint8_t payload_type;        /* its CallstackPayload type byte */
} csdedup_t;

/* For the frames of protocol `desc`. */
void csdedup_init(csdedup_t *d, const proto_desc_t *desc);
void csdedup_free(csdedup_t *d);
/* Number every CallstackPayload of one decoded frame in place. Returns
 * how many bytes of the frame were walked: every payload before that
 * offset carries its number; the walk stops at the first event it cannot
 * size (the event decoder reports it). A stream without payloads is only
 * sampled (one frame in 16), so a zone-heavy one costs next to nothing. */
size_t csdedup_frame(csdedup_t *d, uint8_t *p, size_t n);
/* Whether csdedup_frame will walk the next frame (and may change it). */
static inline bool csdedup_walks_next(const csdedup_t *d) { return d->skip == 0; }

#endif
