/* hmap.c - u64 -> u64 open-addressing hash map (see hmap.h). */
#include "hmap.h"

#include <stdlib.h>

#include "util.h"

/* Distances are kept up to this; a slot farther from home says so, and its
 * distance is computed from its key's hash when needed. A probe this long
 * grows a map that is more than an eighth full; an emptier one (keys that
 * collide by design, say) keeps its size. */
#define MAX_DISTANCE 255

void hmap_free(hmap_t *m)
{
    free(m->slots);
    free(m->meta);
    *m = (hmap_t){0};
}

static inline uint16_t tag_of(uint64_t h) { return (uint16_t)((0x80 | (h >> 57)) << 8); }
static inline uint16_t tag_bits(uint16_t meta) { return meta & 0xFF00; }
static inline size_t distance(uint16_t meta) { return meta & 0xFF; }

uint64_t *hmap_get(const hmap_t *m, uint64_t key)
{
    if (!m->n) return NULL;
    const uint64_t h = hash_keyed(&m->key, key);
    const uint16_t tag = tag_of(h);
    const size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        const uint16_t t = m->meta[i];
        if (!t) return NULL;
        if (tag_bits(t) == tag && m->slots[i].key == key) return &m->slots[i].val;
    }
}

static void rehash(hmap_t *m, size_t cap)
{
    hmap_t old = *m;
    if (!old.cap) hashkey_draw(&m->key);
    m->cap = cap;
    m->n = 0;
    m->slots = xmalloc(cap * sizeof *m->slots);
    m->meta = xcalloc(cap, sizeof *m->meta);
    for (size_t i = 0; i < old.cap; i++)
        if (old.meta[i]) hmap_put(m, old.slots[i].key, old.slots[i].val, NULL);
    free(old.slots);
    free(old.meta);
}

uint64_t *hmap_put(hmap_t *m, uint64_t key, uint64_t v, bool *fresh)
{
    if ((m->n + 1) * 4 > m->cap * 3) rehash(m, m->cap ? m->cap * 2 : 16);
    const uint64_t h = hash_keyed(&m->key, key);
    const uint16_t tag = tag_of(h);
    const size_t mask = m->cap - 1;
    size_t i = (size_t)h & mask, d = 0;
    for (; m->meta[i]; i = (i + 1) & mask, d++) {
        if (tag_bits(m->meta[i]) == tag && m->slots[i].key == key) {
            if (fresh) *fresh = false;
            return &m->slots[i].val;
        }
    }
    if (d >= MAX_DISTANCE && (m->n + 1) * 8 > m->cap) {
        rehash(m, m->cap * 2);
        return hmap_put(m, key, v, fresh);
    }
    m->meta[i] = (uint16_t)(tag | (d < MAX_DISTANCE ? d : MAX_DISTANCE));
    m->slots[i].key = key;
    m->slots[i].val = v;
    m->n++;
    if (fresh) *fresh = true;
    return &m->slots[i].val;
}

bool hmap_del(hmap_t *m, uint64_t key)
{
    return hmap_take(m, key, NULL);
}

bool hmap_take(hmap_t *m, uint64_t key, uint64_t *val)
{
    if (!m->n) return false;
    const uint64_t h = hash_keyed(&m->key, key);
    const uint16_t tag = tag_of(h);
    const size_t mask = m->cap - 1;
    size_t i = (size_t)h & mask;
    for (;; i = (i + 1) & mask) {
        if (!m->meta[i]) return false;
        if (tag_bits(m->meta[i]) == tag && m->slots[i].key == key) break;
    }
    if (val) *val = m->slots[i].val;
    /* Backward-shift: move a later member of the cluster into the hole when
     * its home does not lie cyclically in (hole, j], that is when it is at
     * least as far from its home as from the hole. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; m->meta[j]; j = (j + 1) & mask) {
        size_t d = distance(m->meta[j]);
        if (d == MAX_DISTANCE) d = (j - (size_t)hash_keyed(&m->key, m->slots[j].key)) & mask;
        const size_t gap = (j - hole) & mask;
        if (d >= gap) {
            const size_t nd = d - gap;
            m->slots[hole] = m->slots[j];
            m->meta[hole] = (uint16_t)(tag_bits(m->meta[j]) | (nd < MAX_DISTANCE ? nd : MAX_DISTANCE));
            hole = j;
        }
    }
    m->meta[hole] = 0;
    m->n--;
    return true;
}

bool hmap_next(const hmap_t *m, size_t *it, uint64_t *key, uint64_t *val)
{
    for (size_t i = *it; i < m->cap; i++) {
        if (m->meta[i]) {
            if (key) *key = m->slots[i].key;
            if (val) *val = m->slots[i].val;
            *it = i + 1;
            return true;
        }
    }
    *it = m->cap;
    return false;
}

static int cmp_slot_key(const void *a, const void *b)
{
    const uint64_t x = ((const hmap_slot_t *)a)->key, y = ((const hmap_slot_t *)b)->key;
    return (x > y) - (x < y);
}

hmap_slot_t *hmap_sorted(const hmap_t *m)
{
    if (!m->n) return NULL;
    hmap_slot_t *v = xmalloc(m->n * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->meta[i]) v[k++] = m->slots[i];
    qsort(v, k, sizeof *v, cmp_slot_key);
    return v;
}
