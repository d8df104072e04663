/* hmap.h - an open-addressing hash map from u64 keys to u64 values, for the
 * capture's own look-ups (thread ids, string pointers, live allocations...).
 * Linear probing with backward-shift deletion; key 0 is allowed. Each slot
 * holds its key and value together; a parallel array of 16-bit words holds
 * each slot's hash tag, which lets a probe skip slots without touching them,
 * and its distance from its home slot, which lets a deletion shift the
 * cluster back without hashing its keys again. Keys are placed by a hash
 * keyed with the map's own secret (util.h, hashkey_t), drawn when the map
 * first allocates, so keys a client chooses cannot be made to collide; the
 * order hmap_next walks therefore changes from run to run, and what must
 * not (the file) walks hmap_sorted instead. */
#ifndef TC_HMAP_H
#define TC_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct {
    uint64_t key, val;
} hmap_slot_t;

typedef struct {
    hmap_slot_t *slots;
    uint16_t *meta;       /* 0 = empty, else (0x80 | 7 hash bits) << 8 | distance from home */
    size_t cap;           /* power of two, or 0 */
    size_t n;
    hashkey_t key;        /* drawn with the first allocation, kept until hmap_free */
} hmap_t;

void hmap_free(hmap_t *m);
/* The bytes the map's arrays take. */
static inline size_t hmap_memory(const hmap_t *m) { return m->cap * (sizeof *m->slots + sizeof *m->meta); }
/* Pointer to the value of key, or NULL. Valid until the next insertion. */
uint64_t *hmap_get(const hmap_t *m, uint64_t key);
/* Pointer to the value of key, inserting it with value v if absent; *fresh
 * (if not NULL) tells whether it was inserted. */
uint64_t *hmap_put(hmap_t *m, uint64_t key, uint64_t v, bool *fresh);
bool hmap_del(hmap_t *m, uint64_t key);
/* Remove key and give its value; false if absent. */
bool hmap_take(hmap_t *m, uint64_t key, uint64_t *val);

/* Iteration in slot order, which depends on the map's secret: for
 * (size_t i = 0; hmap_next(m, &i, &k, &v);) ... */
bool hmap_next(const hmap_t *m, size_t *it, uint64_t *key, uint64_t *val);
/* The m->n entries in ascending key order, for output that must be the
 * same in every run (malloc'd, the caller frees it; NULL when empty). */
hmap_slot_t *hmap_sorted(const hmap_t *m);

#endif
