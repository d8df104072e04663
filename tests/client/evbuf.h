/* evbuf.h - internals shared by the event encoders of tracy-test-client
 * (events.c, events_gpu.c, events_sys.c): a small little-endian buffer for
 * one fixed-size event (built with its protocol-82 id, emitted with the
 * negotiated protocol's type byte), and the helpers that emit it, stage
 * strings and call stacks, write the fields whose form depends on the
 * protocol, and keep the four reference times of spec §6.2. Only the
 * encoder files include this header. */
#ifndef TC_EVBUF_H
#define TC_EVBUF_H

#include <string.h>

#include "client.h"

/* A fixed-size event under construction. */
struct evb {
    uint8_t b[40];
    size_t n;
};

static inline void b_u8(struct evb *e, uint8_t v) { e->b[e->n++] = v; }

static inline void b_le(struct evb *e, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        e->b[e->n++] = (uint8_t)(v >> (8 * i));
}

static inline void b_u16(struct evb *e, uint16_t v) { b_le(e, v, 2); }
static inline void b_u32(struct evb *e, uint32_t v) { b_le(e, v, 4); }
static inline void b_u64(struct evb *e, uint64_t v) { b_le(e, v, 8); }
static inline void b_i64(struct evb *e, int64_t v) { b_le(e, (uint64_t)v, 8); }

static inline void b_f32(struct evb *e, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof(u));
    b_u32(e, u);
}

static inline void b_f64(struct evb *e, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof(u));
    b_u64(e, u);
}

/* 0x00RRGGBB as the b, g, r bytes of the wire. */
static inline void b_bgr(struct evb *e, uint32_t rgb)
{
    b_u8(e, (uint8_t)(rgb & 0xFF));
    b_u8(e, (uint8_t)((rgb >> 8) & 0xFF));
    b_u8(e, (uint8_t)((rgb >> 16) & 0xFF));
}

static inline struct evb evb_start(uint8_t type)
{
    struct evb e = { .n = 0 };
    b_u8(&e, type);
    return e;
}

/* Append a fixed event (and an optional trailer) as one unit. */
void evb_emit(struct tc_client *c, const struct evb *e);
void evb_emit_trailer(struct tc_client *c, const struct evb *e, const void *trailer,
                      size_t trailer_len);

/* SingleStringData* (second = false) or SecondStringData*, §5.3. */
void evb_staged_string(struct tc_client *c, bool second, const char *text);

/* Deltas against the references of §6.2; each call advances its reference. */
int64_t evb_thread_delta(struct tc_client *c, int64_t t);
int64_t evb_serial_delta(struct tc_client *c, int64_t t);
int64_t evb_ctx_delta(struct tc_client *c, int64_t t);
int64_t evb_gpu_delta(struct tc_client *c, int64_t t);

/* The 16/32/64-bit form of a compact-time family (type64 is the 64-bit
 * member, +1 the 32-bit one, +2 the 16-bit one) with its time field. */
struct evb evb_compact_time(const struct tc_client *c, uint8_t type64, int64_t d);

/* A message's metadata byte (protocol 82 only). */
static inline void evb_message_meta(const struct tc_client *c, struct evb *e, uint8_t meta)
{
    if (proto_feature(&c->proto, TC_FEAT_MESSAGE_METADATA))
        b_u8(e, meta);
}

/* A literal message's text field: the address, with the metadata in its
 * low byte in protocol 82. */
static inline void evb_literal_text(const struct tc_client *c, struct evb *e, uint64_t ptr,
                                    uint8_t meta)
{
    b_u64(e, proto_feature(&c->proto, TC_FEAT_MESSAGE_METADATA) ? (ptr << 8) | meta : ptr);
}

/* CallstackPayload of n frames (recorded as a distinct call stack). */
void evb_callstack_payload(struct tc_client *c, const uint64_t *frames, size_t n);
/* CallstackPayload + Callstack (per-thread slot) / + CallstackSerial. */
void evb_thread_callstack(struct tc_client *c, const uint64_t *frames, size_t n);
void evb_serial_callstack(struct tc_client *c, const uint64_t *frames, size_t n);

/* SourceLocationPayload of an allocated source location. */
void evb_srcloc_payload(struct tc_client *c, const struct tc_srcloc_entry *loc);

/* A u32-length transfer (FrameImageData, SymbolCode, SourceCode). */
void evb_long_transfer(struct tc_client *c, uint8_t type, uint64_t ptr, const void *data,
                       uint32_t len);

#endif
