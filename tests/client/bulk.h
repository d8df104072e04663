/* bulk.h - tight event encoders for the benchmark scenarios of
 * tracy-test-client (zones, memory, threads): events are written straight
 * into the pending LZ4 frame of the wire ring through a cursor, with the
 * same thread context, reference times and per-type counts the ordinary
 * encoders (events.c) keep in c->ev, so both kinds can be mixed as long as
 * the cursor is closed around every other wire or ev_* call. A caller
 * reserves room for a whole group of events with bulk_room() (which may
 * send the frame and answer queries) and then writes the group unchecked.
 * Events are named by their protocol-82 ids (TC_EV_*) and written in the
 * negotiated protocol's form: its type bytes, and before protocol 82 the
 * 64-bit time forms only, 16-bit string lengths and no message metadata. */
#ifndef TC_BULK_H
#define TC_BULK_H

#include "client.h"

/* Room one group of the bulk encoders below never exceeds, except
 * bulk_mem_* (see BULK_MEM_ROOM), in every protocol. */
#define BULK_GROUP_ROOM 512
#define BULK_MAX_FRAMES 16                      /* call-stack depth */
#define BULK_MEM_ROOM (5 + 11 + 8 * BULK_MAX_FRAMES + 1 + 9 + 27)

struct bulk {
    struct tc_client *c;
    uint8_t *p;     /* next byte of the pending frame */
    uint8_t *end;   /* end of the room left in the pending frame */
    bool alive;     /* the session still takes events */
    const uint8_t *wire;  /* protocol-82 id -> the protocol's type byte */
    bool compact;   /* TC_FEAT_COMPACT_TIMES */
    bool short_strings, metadata; /* TC_FEAT_SHORT_STRINGS, TC_FEAT_MESSAGE_METADATA */
};

/* A call stack with its CallstackPayload bytes prepared once. */
struct bulk_stack {
    uint8_t data[8 * BULK_MAX_FRAMES];
    uint16_t len;   /* bytes in data */
    bool sent;      /* recorded in the manifest */
    uint64_t hash;
};

void bulk_open(struct bulk *b, struct tc_client *c);
/* Hand the write position back to the wire (before other wire calls). */
void bulk_close(struct bulk *b);
/* Send the pending frame, answer the queries that came in, reopen. */
void bulk_flush(struct bulk *b);

static inline void bulk_room(struct bulk *b, size_t n)
{
    if ((size_t)(b->end - b->p) < n)
        bulk_flush(b);
}

static inline uint8_t *bulk_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + bytes;
}

/* One event header byte (the protocol's for the id), counted for the
 * manifest. The bulk scenarios send only events every protocol has. */
static inline uint8_t *bulk_type(struct bulk *b, uint8_t *p, uint8_t id)
{
    const uint8_t type = b->wire[id];
    b->c->ev.sent[type]++;
    *p = type;
    return p + 1;
}

/* ThreadContext if `tid` is not the current thread (resets the thread
 * reference time, like the real client). */
static inline void bulk_thread(struct bulk *b, uint32_t tid)
{
    struct tc_evstate *ev = &b->c->ev;
    if (ev->have_thread && ev->thread == tid)
        return;
    b->p = bulk_le(bulk_type(b, b->p, TC_EV_THREAD_CONTEXT), tid, 4);
    ev->have_thread = true;
    ev->thread = tid;
    ev->ref_thread = 0;
}

/* The 16/32/64-bit form of a compact-time family (§6.3); before protocol
 * 82 the 64-bit form with the delta as it is. */
static inline uint8_t *bulk_time(struct bulk *b, uint8_t *p, uint8_t type64, int64_t d)
{
    if (!b->compact)
        return bulk_le(bulk_type(b, p, type64), (uint64_t)d, 8);
    if (d >= 0 && d < TC_OFFSET_16BIT)
        return bulk_le(bulk_type(b, p, (uint8_t)(type64 + 2)), (uint64_t)d, 2);
    if (d >= 0 && d < TC_OFFSET_32BIT)
        return bulk_le(bulk_type(b, p, (uint8_t)(type64 + 1)), (uint64_t)(d - TC_OFFSET_16BIT), 4);
    return bulk_le(bulk_type(b, p, type64), (uint64_t)(d >= 0 ? d - TC_OFFSET_32BIT : d), 8);
}

static inline int64_t bulk_thread_delta(struct bulk *b, int64_t t)
{
    int64_t d = t - b->c->ev.ref_thread;
    b->c->ev.ref_thread = t;
    return d;
}

static inline int64_t bulk_serial_delta(struct bulk *b, int64_t t)
{
    int64_t d = t - b->c->ev.ref_serial;
    b->c->ev.ref_serial = t;
    return d;
}

/* Zone begin / end on the current thread (no room check, no context). */
static inline void bulk_zone_begin_here(struct bulk *b, int64_t t, uint64_t srcloc)
{
    uint8_t *p = bulk_time(b, b->p, TC_EV_ZONE_BEGIN, bulk_thread_delta(b, t));
    b->p = bulk_le(p, srcloc, 8);
}

static inline void bulk_zone_end_here(struct bulk *b, int64_t t)
{
    b->p = bulk_time(b, b->p, TC_EV_ZONE_END, bulk_thread_delta(b, t));
}

/* The same with room and thread context. */
static inline void bulk_zone_begin(struct bulk *b, uint32_t tid, int64_t t, uint64_t srcloc)
{
    bulk_room(b, 5 + 17);
    bulk_thread(b, tid);
    bulk_zone_begin_here(b, t, srcloc);
}

static inline void bulk_zone_end(struct bulk *b, uint32_t tid, int64_t t)
{
    bulk_room(b, 5 + 9);
    bulk_thread(b, tid);
    bulk_zone_end_here(b, t);
}

/* FrameMarkMsg (name 0: the default frame set); thread independent. */
static inline void bulk_frame_mark(struct bulk *b, int64_t t, uint64_t name)
{
    bulk_room(b, 17);
    uint8_t *p = bulk_le(bulk_type(b, b->p, TC_EV_FRAME_MARK_MSG), (uint64_t)t, 8);
    b->p = bulk_le(p, name, 8);
}

/* PlotDataInt / PlotDataDouble: `bits` is the value's 8 wire bytes. */
void bulk_plot(struct bulk *b, uint8_t type, uint32_t tid, uint64_t name, int64_t t,
               uint64_t bits);

/* A copied Message (SingleStringData8 + Message; before protocol 82
 * SingleStringData + Message without metadata), text up to 255 bytes. */
void bulk_message(struct bulk *b, uint32_t tid, int64_t t, const char *text, uint8_t meta);

/* Prepare the payload of a call stack (innermost frame first). */
void bulk_stack_init(struct bulk_stack *s, const uint64_t *frames, size_t n);

/* CallstackPayload + CallstackSerial, [MemNamePayload,] MemAllocCallstack
 * (Named) / MemFreeCallstack(Named); pool 0 is the default pool. Times
 * are serial times. A NULL stack on a free: MemFree / MemFreeNamed. */
void bulk_mem_alloc(struct bulk *b, uint32_t tid, int64_t t, uint64_t ptr, uint64_t size,
                    uint64_t pool, struct bulk_stack *stack);
void bulk_mem_free(struct bulk *b, uint32_t tid, int64_t t, uint64_t ptr, uint64_t pool,
                   struct bulk_stack *stack);

#endif
