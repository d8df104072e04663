/* bulk.c - the out-of-line part of the bulk encoders (bulk.h): opening and
 * flushing the cursor on the wire ring, and the less frequent or longer
 * event groups (plots, messages, memory events with call stacks). */
#include "bulk.h"

#include <string.h>

#include "events.h"
#include "manifest.h"
#include "session.h"
#include "wire.h"

void bulk_open(struct bulk *b, struct tc_client *c)
{
    b->c = c;
    b->p = wire_window(c, &b->end);
    b->alive = session_active(c);
    b->wire = c->proto.wire;
    b->compact = proto_feature(&c->proto, TC_FEAT_COMPACT_TIMES);
    b->short_strings = proto_feature(&c->proto, TC_FEAT_SHORT_STRINGS);
    b->metadata = proto_feature(&c->proto, TC_FEAT_MESSAGE_METADATA);
}

void bulk_close(struct bulk *b)
{
    wire_window_set(b->c, b->p);
}

void bulk_flush(struct bulk *b)
{
    bulk_close(b);
    session_flush(b->c);
    bulk_open(b, b->c);
}

void bulk_plot(struct bulk *b, uint8_t type, uint32_t tid, uint64_t name, int64_t t,
               uint64_t bits)
{
    bulk_room(b, 5 + 25);
    bulk_thread(b, tid);
    uint8_t *p = bulk_le(bulk_type(b, b->p, type), name, 8);
    p = bulk_le(p, (uint64_t)bulk_thread_delta(b, t), 8);
    b->p = bulk_le(p, bits, 8);
}

void bulk_message(struct bulk *b, uint32_t tid, int64_t t, const char *text, uint8_t meta)
{
    size_t len = strlen(text);
    if (len > 255)
        len = 255;
    bulk_room(b, 5 + 2 + len + 10);   /* the same 17 + len before protocol 82 */
    bulk_thread(b, tid);
    uint8_t *p = b->short_strings ? bulk_le(bulk_type(b, b->p, TC_EV_SINGLE_STRING_DATA8), len, 1)
                                  : bulk_le(bulk_type(b, b->p, TC_EV_SINGLE_STRING_DATA), len, 2);
    memcpy(p, text, len);
    p = bulk_le(bulk_type(b, p + len, TC_EV_MESSAGE), (uint64_t)t, 8);
    b->p = b->metadata ? bulk_le(p, meta, 1) : p;
}

void bulk_stack_init(struct bulk_stack *s, const uint64_t *frames, size_t n)
{
    if (n > BULK_MAX_FRAMES)
        n = BULK_MAX_FRAMES;
    for (size_t i = 0; i < n; i++)
        bulk_le(s->data + 8 * i, frames[i], 8);
    s->len = (uint16_t)(8 * n);
    s->sent = false;
    s->hash = ev_frames_hash(frames, n);
}

/* CallstackPayload + CallstackSerial: the call stack of the next serial
 * memory event. */
static uint8_t *serial_stack(struct bulk *b, uint8_t *p, struct bulk_stack *s)
{
    struct tc_client *c = b->c;
    if (!s->sent) {
        manifest_callstack(c, s->hash);
        s->sent = true;
    }
    p = bulk_type(b, p, TC_EV_CALLSTACK_PAYLOAD);
    p = bulk_le(p, 0x7e0000000000ull + 0x100 * c->ev.next_payload++, 8);
    p = bulk_le(p, s->len, 2);
    memcpy(p, s->data, s->len);
    return bulk_type(b, p + s->len, TC_EV_CALLSTACK_SERIAL);
}

/* The optional call stack and pool name, then the event type and time:
 * base + 1 for a named pool, + 4 with a call stack. */
static uint8_t *mem_head(struct bulk *b, uint8_t base, int64_t t, uint32_t tid, uint64_t pool,
                         struct bulk_stack *stack)
{
    uint8_t *p = b->p;
    if (stack)
        p = serial_stack(b, p, stack);
    if (pool)
        p = bulk_le(bulk_type(b, p, TC_EV_MEM_NAME_PAYLOAD), pool, 8);
    uint8_t type = (uint8_t)(base + (pool ? 1 : 0) + (stack ? 4 : 0));
    p = bulk_le(bulk_type(b, p, type), (uint64_t)bulk_serial_delta(b, t), 8);
    return bulk_le(p, tid, 4);
}

void bulk_mem_alloc(struct bulk *b, uint32_t tid, int64_t t, uint64_t ptr, uint64_t size,
                    uint64_t pool, struct bulk_stack *stack)
{
    bulk_room(b, BULK_MEM_ROOM);
    uint8_t *p = mem_head(b, TC_EV_MEM_ALLOC, t, tid, pool, stack);
    p = bulk_le(p, ptr, 8);
    b->p = bulk_le(p, size, 6);
}

void bulk_mem_free(struct bulk *b, uint32_t tid, int64_t t, uint64_t ptr, uint64_t pool,
                   struct bulk_stack *stack)
{
    bulk_room(b, BULK_MEM_ROOM);
    uint8_t *p = mem_head(b, TC_EV_MEM_FREE, t, tid, pool, stack);
    b->p = bulk_le(p, ptr, 8);
}
