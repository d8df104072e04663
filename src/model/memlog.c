/* memlog.c - compact storage of a memory pool's events (see memlog.h). */
#include "memlog.h"

#include <stdlib.h>
#include <string.h>

#define WINDOW 16384             /* plain records kept before sealing half */
#define BLOCK (256u << 10)
/* The most a sealed record takes (8 numbers of at most 9 bytes), and the
 * 8 bytes a number's store or load may reach past its end. */
#define MAX_SEALED_RECORD (8 * 9 + 8)

/* Numbers in the sealed stream are prefix varints: n bytes (1..8) hold
 * 7n bits of value above n - 1 zero bits and a one bit, so one unaligned
 * 8-byte store or load and a count of trailing zeros encode or decode a
 * number without a branch per byte; a zero first byte says 8 plain bytes
 * follow. */
static inline uint8_t *pv_put(uint8_t *p, uint64_t v)
{
    const unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);
    const unsigned n = (bits + 6) / 7;
    if (n <= 8) {
        const uint64_t w = (v << n | 1ull << (n - 1));
        memcpy(p, &w, 8);       /* the bytes past n are overwritten later */
        return p + n;
    }
    p[0] = 0;
    memcpy(p + 1, &v, 8);
    return p + 9;
}

static inline uint64_t pv_get(const uint8_t **pp)
{
    const uint8_t *p = *pp;
    uint64_t w;
    if (__builtin_expect(p[0] == 0, 0)) {
        memcpy(&w, p + 1, 8);
        *pp = p + 9;
        return w;
    }
    const unsigned n = (unsigned)__builtin_ctz(p[0]) + 1;
    memcpy(&w, p, 8);
    *pp = p + n;
    return n == 8 ? w >> 8 : (w & ((1ull << (8 * n)) - 1)) >> n;
}

void memlog_free(memlog_t *l)
{
    for (memblock_t *b = l->head, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    VEC_FREE(l->cs_alloc.local);
    VEC_FREE(l->cs_alloc.capture);
    VEC_FREE(l->cs_free.local);
    VEC_FREE(l->cs_free.capture);
    VEC_FREE(l->window);
    VEC_FREE(l->lates);
    hmap_free(&l->late);
    *l = (memlog_t){0};
}

size_t memlog_memory(const memlog_t *l)
{
    return l->bytes + VEC_BYTES(l->cs_alloc.local) + VEC_BYTES(l->cs_alloc.capture) +
           VEC_BYTES(l->cs_free.local) + VEC_BYTES(l->cs_free.capture) + VEC_BYTES(l->window) +
           VEC_BYTES(l->lates) + hmap_memory(&l->late);
}

static uint8_t *reserve(memlog_t *l)
{
    memblock_t *b = l->tail;
    if (!b || b->cap - b->used < MAX_SEALED_RECORD) {
        memblock_t *n = xmalloc(sizeof *n + BLOCK);
        n->next = NULL;
        n->used = 0;
        n->cap = BLOCK;
        if (b) b->next = n;
        else l->head = n;
        l->tail = n;
        l->bytes += sizeof *n + BLOCK;
        b = n;
    }
    return b->data + b->used;
}

static uint32_t cs_local(cs_renumber_t *r, uint32_t cs)
{
    if (cs == 0) return 0;
    if (cs >= r->local.n) {
        VEC_RESERVE(r->local, (size_t)cs + 1);
        memset(r->local.v + r->local.n, 0, ((size_t)cs + 1 - r->local.n) * sizeof *r->local.v);
        r->local.n = (size_t)cs + 1;
    }
    if (!r->local.v[cs]) {
        if (!r->capture.n) VEC_PUSH(r->capture, 0);
        r->local.v[cs] = (uint32_t)r->capture.n + 1;
        VEC_PUSH(r->capture, cs);
    }
    return r->local.v[cs] - 1;
}

static uint32_t cs_capture(const cs_renumber_t *r, uint64_t local)
{
    return local < r->capture.n ? r->capture.v[local] : 0;
}

/* One sealed event: pointer and time as deltas, size, call stack, then a
 * header of the allocating thread and the state of the free (LIVE: not
 * yet, see the side record; SAME: freed on the same thread; OTHER: freed
 * on the thread that follows), and for a freed event zigzag(free - alloc)
 * and the free's call stack. */
enum { SEAL_LIVE, SEAL_SAME, SEAL_OTHER };

static void seal_one(memlog_t *l, const mem_event_t *e, uint64_t ordinal)
{
    uint8_t *p = reserve(l), *q = p;
    q = pv_put(q, zigzag((int64_t)(e->ptr - l->prev_ptr)));
    q = pv_put(q, zigzag(sub_wrap(e->time_alloc, l->prev_time)));
    q = pv_put(q, e->size);
    q = pv_put(q, cs_local(&l->cs_alloc, e->cs_alloc));
    if (e->time_free < 0) {
        q = pv_put(q, (uint64_t)e->thread_alloc << 2 | SEAL_LIVE);
        mem_late_t late = { .time_alloc = e->time_alloc, .size = e->size, .time_free = -1 };
        hmap_put(&l->late, ordinal, l->lates.n, NULL);
        VEC_PUSH(l->lates, late);
    } else {
        const bool same = e->thread_free == e->thread_alloc;
        q = pv_put(q, (uint64_t)e->thread_alloc << 2 | (same ? SEAL_SAME : SEAL_OTHER));
        if (!same) q = pv_put(q, e->thread_free);
        q = pv_put(q, zigzag(sub_wrap(e->time_free, e->time_alloc)));
        q = pv_put(q, cs_local(&l->cs_free, e->cs_free));
    }
    l->prev_ptr = e->ptr;
    l->prev_time = e->time_alloc;
    l->tail->used += (uint32_t)(q - p);
}

mem_event_t *memlog_append(memlog_t *l, uint64_t *ordinal)
{
    if (l->window.n >= WINDOW) {
        const size_t half = WINDOW / 2;
        for (size_t i = 0; i < half; i++) seal_one(l, &l->window.v[i], l->sealed + i);
        memmove(l->window.v, l->window.v + half, (l->window.n - half) * sizeof *l->window.v);
        l->window.n -= half;
        l->sealed += half;
    }
    VEC_RESERVE(l->window, l->window.n + 1);
    *ordinal = memlog_count(l);
    return &l->window.v[l->window.n++];
}

uint64_t memlog_alloc(memlog_t *l, const mem_event_t *e)
{
    uint64_t ordinal;
    *memlog_append(l, &ordinal) = *e;
    return ordinal;
}

uint64_t memlog_free_event(memlog_t *l, uint64_t ordinal, int64_t time, uint16_t thread, uint32_t cs)
{
    if (ordinal >= l->sealed) {
        mem_event_t *e = &l->window.v[ordinal - l->sealed];
        e->time_free = time;
        e->thread_free = thread;
        e->cs_free = cs;
        return e->size;
    }
    uint64_t *v = hmap_get(&l->late, ordinal);
    if (!v) return 0;
    mem_late_t *late = &l->lates.v[*v];
    late->time_free = time;
    late->thread_free = thread;
    late->cs_free = cs;
    return late->size;
}

void memlog_reader_init(memlog_reader_t *r, const memlog_t *l)
{
    *r = (memlog_reader_t){ .l = l, .block = l->head, .p = l->head ? l->head->data : NULL };
}

bool memlog_next(memlog_reader_t *r, mem_event_t *e)
{
    const memlog_t *l = r->l;
    if (r->next >= l->sealed) {
        if (r->next >= memlog_count(l)) return false;
        *e = l->window.v[r->next++ - l->sealed];
        return true;
    }
    while (r->p == r->block->data + r->block->used) {
        r->block = r->block->next;
        r->p = r->block->data;
    }
    const uint8_t *p = r->p;
    r->ptr += (uint64_t)unzigzag(pv_get(&p));
    r->time = add_wrap(r->time, unzigzag(pv_get(&p)));
    e->ptr = r->ptr;
    e->time_alloc = r->time;
    e->size = pv_get(&p);
    e->cs_alloc = cs_capture(&l->cs_alloc, pv_get(&p));
    const uint64_t head = pv_get(&p);
    e->thread_alloc = (uint16_t)(head >> 2);
    if ((head & 3) != SEAL_LIVE) {
        e->thread_free = (head & 3) == SEAL_SAME ? e->thread_alloc : (uint16_t)pv_get(&p);
        e->time_free = add_wrap(e->time_alloc, unzigzag(pv_get(&p)));
        e->cs_free = cs_capture(&l->cs_free, pv_get(&p));
    } else {
        const mem_late_t *late = &l->lates.v[*hmap_get(&l->late, r->next)];
        e->time_free = late->time_free;
        e->thread_free = late->time_free < 0 ? 0 : late->thread_free;
        e->cs_free = late->time_free < 0 ? 0 : late->cs_free;
    }
    r->p = p;
    r->next++;
    return true;
}
