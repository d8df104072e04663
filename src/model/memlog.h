/* memlog.h - one memory pool's allocation events, kept compactly.
 *
 * Events are numbered in allocation order (the file's order). The most
 * recent ones stay plain records, so that their frees update them in place;
 * older ones are sealed into a varint stream (about a third of the size).
 * An event still live when it is sealed gets a small side record, which
 * its free fills in later. */
#ifndef TC_MEMLOG_H
#define TC_MEMLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "hmap.h"
#include "util.h"

typedef struct {
    uint64_t ptr, size;
    uint32_t cs_alloc, cs_free;
    int64_t time_alloc, time_free;   /* time_free -1 = not freed */
    uint16_t thread_alloc, thread_free;
} mem_event_t;

typedef struct memblock {
    struct memblock *next;
    uint32_t used, cap;
    uint8_t data[];
} memblock_t;

typedef struct {
    int64_t time_alloc;
    uint64_t size;
    int64_t time_free;
    uint32_t cs_free;
    uint16_t thread_free;
} mem_late_t;

/* Call-stack ids renumbered densely in the order a pool first uses them
 * (0 stays 0): a pool sees few of the capture's stacks, so its ids fit
 * one varint byte more often. */
typedef struct {
    VEC(uint32_t) local;        /* capture id -> local id + 1 (0: none yet) */
    VEC(uint32_t) capture;      /* local id -> capture id */
} cs_renumber_t;

typedef struct {
    memblock_t *head, *tail;    /* the sealed stream */
    uint64_t sealed;            /* events in it */
    uint64_t prev_ptr;          /* encoder state */
    int64_t prev_time;
    cs_renumber_t cs_alloc, cs_free;
    VEC(mem_event_t) window;    /* events sealed .. sealed + window.n - 1 */
    hmap_t late;                /* ordinal -> lates index, for sealed live events */
    VEC(mem_late_t) lates;
    uint64_t bytes;             /* memory held */
} memlog_t;

void memlog_free(memlog_t *l);
/* The bytes the log's blocks, records and tables take. */
size_t memlog_memory(const memlog_t *l);
static inline uint64_t memlog_count(const memlog_t *l) { return l->sealed + l->window.n; }
/* The record of the next allocation, for the caller to fill in place
 * (every field); *ordinal is its number. Valid until the next append. */
mem_event_t *memlog_append(memlog_t *l, uint64_t *ordinal);
/* Append an allocation; returns its number. */
uint64_t memlog_alloc(memlog_t *l, const mem_event_t *e);
/* Record the free of event `ordinal`; returns its size (0 if unknown). */
uint64_t memlog_free_event(memlog_t *l, uint64_t ordinal, int64_t time, uint16_t thread, uint32_t cs);

/* Reading the events back in order. */
typedef struct {
    const memlog_t *l;
    const memblock_t *block;
    const uint8_t *p;
    uint64_t next;              /* number of the next event */
    uint64_t ptr;
    int64_t time;
} memlog_reader_t;

void memlog_reader_init(memlog_reader_t *r, const memlog_t *l);
bool memlog_next(memlog_reader_t *r, mem_event_t *e);

#endif
