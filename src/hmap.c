/* hmap.c - u64 -> u64 open-addressing hash map (see hmap.h). */
#include "hmap.h"

#include <stdlib.h>

#include "util.h"

void hmap_free(hmap_t *m)
{
    free(m->slots);
    free(m->tags);
    *m = (hmap_t){0};
}

static inline uint8_t tag_of(uint64_t h) { return (uint8_t)(0x80 | (h >> 57)); }

uint64_t *hmap_get(const hmap_t *m, uint64_t key)
{
    if (!m->n) return NULL;
    const uint64_t h = hash64(key);
    const uint8_t tag = tag_of(h);
    const size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        const uint8_t t = m->tags[i];
        if (!t) return NULL;
        if (t == tag && m->slots[i].key == key) return &m->slots[i].val;
    }
}

static void rehash(hmap_t *m, size_t cap)
{
    hmap_t old = *m;
    m->cap = cap;
    m->n = 0;
    m->slots = xmalloc(cap * sizeof *m->slots);
    m->tags = xcalloc(cap, 1);
    for (size_t i = 0; i < old.cap; i++)
        if (old.tags[i]) hmap_put(m, old.slots[i].key, old.slots[i].val, NULL);
    free(old.slots);
    free(old.tags);
}

uint64_t *hmap_put(hmap_t *m, uint64_t key, uint64_t v, bool *fresh)
{
    if ((m->n + 1) * 4 > m->cap * 3) rehash(m, m->cap ? m->cap * 2 : 16);
    const uint64_t h = hash64(key);
    const uint8_t tag = tag_of(h);
    const size_t mask = m->cap - 1;
    size_t i = (size_t)h & mask;
    for (; m->tags[i]; i = (i + 1) & mask) {
        if (m->tags[i] == tag && m->slots[i].key == key) {
            if (fresh) *fresh = false;
            return &m->slots[i].val;
        }
    }
    m->tags[i] = tag;
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
    const uint64_t h = hash64(key);
    const uint8_t tag = tag_of(h);
    const size_t mask = m->cap - 1;
    size_t i = (size_t)h & mask;
    for (;; i = (i + 1) & mask) {
        if (!m->tags[i]) return false;
        if (m->tags[i] == tag && m->slots[i].key == key) break;
    }
    if (val) *val = m->slots[i].val;
    /* Backward-shift: move later members of the cluster into the hole when
     * their home slot does not lie cyclically in (hole, j]. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; m->tags[j]; j = (j + 1) & mask) {
        const size_t home = (size_t)hash64(m->slots[j].key) & mask;
        const bool between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!between) {
            m->slots[hole] = m->slots[j];
            m->tags[hole] = m->tags[j];
            hole = j;
        }
    }
    m->tags[hole] = 0;
    m->n--;
    return true;
}

bool hmap_next(const hmap_t *m, size_t *it, uint64_t *key, uint64_t *val)
{
    for (size_t i = *it; i < m->cap; i++) {
        if (m->tags[i]) {
            if (key) *key = m->slots[i].key;
            if (val) *val = m->slots[i].val;
            *it = i + 1;
            return true;
        }
    }
    *it = m->cap;
    return false;
}
