/* zlog.h - the compact zone log: how a thread's zones are kept in memory
 * between the capture (model_zones.c appends) and the writer (replays).
 *
 * A thread's zones arrive as begin/end events in stream order, which is
 * depth-first order, the order of the file's timeline. Times are kept in
 * client ticks, as the client sent them; the writer converts them. Each event becomes
 * a record of one tag byte and varints, in a list of chunks:
 *   begin: 1 I s s s s s s   s = zigzag(srcloc) (63: varint follows),
 *                            then varint zigzag(start - previous time)
 *   end:   0 I C d d d d d   d = low 5 bits of zigzag(end - previous time),
 *                            C: varint of the remaining bits follows;
 *                            I: varint children and varint extra follow
 * A begin's I bit is set afterwards, when the zone gets a child or extra
 * data: the writer needs those before the zone's children, and takes them
 * from the matching end record in a first pass. */
#ifndef TC_ZLOG_H
#define TC_ZLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

typedef struct zchunk {
    struct zchunk *next;
    uint32_t used, cap;
    uint8_t data[];
} zchunk_t;

/* Chunks grow from 4 KiB to this size; full-size ones may come from a
 * chunkpool (chunkpool.h) of ZLOG_POOL_CHUNK-byte blocks. */
#define ZLOG_MAX_CHUNK (1u << 20)
#define ZLOG_POOL_CHUNK (sizeof(zchunk_t) + ZLOG_MAX_CHUNK)

enum {
    ZL_BEGIN = 0x80,
    ZL_INFO = 0x40,
    ZL_MORE = 0x20,
    ZL_SRCLOC_ESCAPE = 0x3F,
};

typedef struct {
    const zchunk_t *chunk;
    const uint8_t *p, *end;
    int64_t ref;
} zlog_reader_t;

typedef struct {
    bool begin;          /* a begin record, else an end record */
    int16_t srcloc;      /* begin */
    int64_t time;        /* start or end, in client ticks */
    uint32_t nchild;     /* begin: its info slot, or 0 */
    uint32_t extra;      /* begin: its info slot, or 0 */
} zlog_rec_t;

#define ZL_SLOT 8

static inline void zlog_reader_init(zlog_reader_t *r, const zchunk_t *head)
{
    r->chunk = head;
    r->p = head ? head->data : NULL;
    r->end = head ? head->data + head->used : NULL;
    r->ref = 0;
}

/* Move to the next chunk when the current one is used up; false at the end. */
static inline bool zlog_more(zlog_reader_t *r)
{
    while (__builtin_expect(r->p == r->end, 0)) {
        if (!r->chunk || !(r->chunk = r->chunk->next)) {
            r->p = r->end = NULL;
            return false;
        }
        r->p = r->chunk->data;
        r->end = r->chunk->data + r->chunk->used;
    }
    return true;
}

/* Next record; false at the end of the log. */
static inline bool zlog_next(zlog_reader_t *r, zlog_rec_t *rec)
{
    if (!zlog_more(r)) return false;
    const uint8_t *p = r->p;
    const uint8_t tag = *p++;
    rec->begin = tag & ZL_BEGIN;
    if (rec->begin) {
        const uint8_t s = tag & ZL_SRCLOC_ESCAPE;
        rec->srcloc = (int16_t)unzigzag(s < ZL_SRCLOC_ESCAPE ? s : varint_get(&p));
        r->ref = add_wrap(r->ref, unzigzag(varint_get(&p)));
        rec->nchild = rec->extra = 0;
        if (tag & ZL_INFO) {
            /* the slot follows, possibly at the start of the next chunk */
            r->p = p;
            if (!zlog_more(r)) return false;
            p = r->p;
            rec->nchild = ld32(p);
            rec->extra = ld32(p + 4);
            p += ZL_SLOT;
        }
    } else {
        uint64_t zd = tag & 0x1F;
        if (tag & ZL_MORE) zd |= varint_get(&p) << 5;
        r->ref = add_wrap(r->ref, unzigzag(zd));
    }
    rec->time = r->ref;
    r->p = p;
    return true;
}

#endif
