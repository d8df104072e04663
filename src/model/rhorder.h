/* rhorder: a u64-keyed hash map that reproduces, slot for slot, the layout
 * and therefore the iteration order of the robin-hood "unordered_flat_map"
 * bundled with Tracy 0.14.0 (default hash, max load factor 80 %).
 *
 * Upstream iterates its maps in slot order, and several outputs depend on
 * that order: tracy-csvexport's rows (srcloc map, GPU thread map) and the
 * order in which Worker::Write emits hash-map backed sections such as the
 * per-srcloc zone counts (.tracy §5.15/§5.16).  Feed rhorder the same keys
 * in the same order, with the same reserve() calls, and rhorder_slot()
 * walks them in exactly upstream's order.
 *
 * Keys are u64.  For upstream's int16 keys (source-location ids) pass the
 * id sign-extended to 64 bits: rhorder_key_i16(id) == (uint64_t)(int64_t)id.
 * Each key carries one u64 value (an index into caller-owned data, say).
 * Erasing is not supported (upstream never erases from these maps).
 *
 * The map is also usable as a plain u64 -> u64 lookup table.
 * Not thread-safe; no global state. */
#ifndef TC_RHORDER_H
#define TC_RHORDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct rhorder {
    uint64_t *keys;        /* slot array, length rhorder_slots() */
    uint64_t *values;      /* parallel to keys */
    uint8_t *info;         /* per slot: 0 empty, else distance/hash byte; plus sentinel */
    size_t mask;           /* buckets - 1; 0 while nothing is allocated */
    size_t count;          /* number of stored keys */
    size_t max_allowed;    /* grow when count reaches this */
    uint64_t multiplier;   /* hash multiplier (changes on same-size rebuilds) */
    uint32_t info_inc;     /* distance increment in the info byte */
    uint32_t hash_shift;   /* hash bits dropped from the info byte */
} rhorder;

/* Key for an int16 upstream key (sign extension, as upstream's hash does). */
static inline uint64_t rhorder_key_i16(int16_t id) { return (uint64_t)(int64_t)id; }

/* Start with an empty map (no allocation; first insert allocates 8 buckets). */
void rhorder_init(rhorder *m);

/* Release memory; the map is left empty and can be reused after rhorder_init. */
void rhorder_free(rhorder *m);

/* Upstream reserve(n): make room for n elements without growing (may rebuild).
 * Returns 0, or -1 when out of memory (map unchanged). */
int rhorder_reserve(rhorder *m, size_t n);

/* Insert key with value unless key is present (then nothing changes, like
 * upstream emplace).  Returns 1 inserted, 0 already present, -1 out of memory
 * or internal overflow (map unchanged in that case). */
int rhorder_insert(rhorder *m, uint64_t key, uint64_t value);

/* Pointer to the value stored for key, or NULL if absent.  Valid until the
 * next insert or reserve. */
uint64_t *rhorder_find(const rhorder *m, uint64_t key);

/* The bytes the map's arrays take. */
size_t rhorder_memory(const rhorder *m);

/* Number of stored keys. */
size_t rhorder_size(const rhorder *m);

/* Iteration in upstream order: for i in [0, rhorder_slots(m)), slot i is
 * occupied when rhorder_slot() returns 1 (then *key and *value are set; either
 * pointer may be NULL). */
size_t rhorder_slots(const rhorder *m);
int rhorder_slot(const rhorder *m, size_t i, uint64_t *key, uint64_t *value);

#endif
