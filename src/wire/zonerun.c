/* zonerun.c - runs of plain ZoneBegin/ZoneEnd events (see zonerun.h):
 * protocol 82's compact forms and the older protocols' 64-bit ones read
 * here, each zone handed to the model's inline fast path (model_zonelog.h). */
#include "zonerun.h"

#include "event.h"
#include "model_zonelog.h"
#include "proto.h"

size_t zone_run(model_t *m, const uint8_t *p, size_t n, int64_t *ref)
{
    const uint8_t *const start = p, *const end = p + n;
    thread_t *t = zone_fast_thread(m);
    if (!t) return 0;
    int64_t r = *ref, rmax = INT64_MIN;
    while (p < end) {
        int64_t delta;
        uint64_t srcloc = 0;
        size_t size;
        bool begin;
        /* the two most common forms first */
        if (*p == EV_ZONE_END16 && end - p >= 3) {
            size = 3;
            begin = false;
            delta = ld16(p + 1);
        } else if (*p == EV_ZONE_BEGIN16 && end - p >= 11) {
            size = 11;
            begin = true;
            delta = ld16(p + 1);
            srcloc = ld64(p + 3);
        } else {
            switch (*p) {
            case EV_ZONE_BEGIN32: size = 13; begin = true; break;
            case EV_ZONE_BEGIN: size = 17; begin = true; break;
            case EV_ZONE_END32: size = 5; begin = false; break;
            case EV_ZONE_END: size = 9; begin = false; break;
            default: goto out;
            }
            if ((size_t)(end - p) < size) goto out;
            switch (size) {
            case 13: delta = (int64_t)ld32(p + 1) + PROTO_OFFSET_16BIT; srcloc = ld64(p + 5); break;
            case 17: delta = event_delta64(ldi64(p + 1)); srcloc = ld64(p + 9); break;
            case 5: delta = (int64_t)ld32(p + 1) + PROTO_OFFSET_16BIT; break;
            default: delta = event_delta64(ldi64(p + 1)); break;
            }
        }
        const int64_t ticks = (int64_t)((uint64_t)r + (uint64_t)delta);
        if (begin ? !zone_fast_begin(m, t, ticks, srcloc) : !zone_fast_end(m, t, ticks, p)) break;
        if (ticks > rmax) rmax = ticks;
        r = ticks;
        p += size;
    }
out:
    zone_fast_done(m, rmax);
    *ref = r;
    return (size_t)(p - start);
}

size_t zone_run_wide(model_t *m, const uint8_t *p, size_t n, int64_t *ref, uint8_t begin_type, uint8_t end_type)
{
    const uint8_t *const start = p, *const end = p + n;
    thread_t *t = zone_fast_thread(m);
    if (!t) return 0;
    int64_t r = *ref, rmax = INT64_MIN;
    while (p < end) {
        int64_t ticks;
        if (*p == end_type && end - p >= 9) {
            ticks = (int64_t)((uint64_t)r + (uint64_t)ldi64(p + 1));
            if (!zone_fast_end(m, t, ticks, p)) break;
            p += 9;
        } else if (*p == begin_type && end - p >= 17) {
            ticks = (int64_t)((uint64_t)r + (uint64_t)ldi64(p + 1));
            if (!zone_fast_begin(m, t, ticks, ld64(p + 9))) break;
            p += 17;
        } else {
            break;
        }
        if (ticks > rmax) rmax = ticks;
        r = ticks;
    }
    zone_fast_done(m, rmax);
    *ref = r;
    return (size_t)(p - start);
}
