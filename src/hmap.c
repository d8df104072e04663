/* hmap.c - u64 -> u64 open-addressing hash map (see hmap.h). */
#include "hmap.h"

#include <stdlib.h>

#include "util.h"

void hmap_free(hmap_t *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    *m = (hmap_t){0};
}

static size_t slot_of(const hmap_t *m, uint64_t key)
{
    return (size_t)hash64(key) & (m->cap - 1);
}

uint64_t *hmap_get(const hmap_t *m, uint64_t key)
{
    if (!m->n) return NULL;
    for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i]) return NULL;
        if (m->keys[i] == key) return &m->vals[i];
    }
}

static void rehash(hmap_t *m, size_t cap)
{
    hmap_t old = *m;
    m->cap = cap;
    m->n = 0;
    m->keys = xmalloc(cap * sizeof *m->keys);
    m->vals = xmalloc(cap * sizeof *m->vals);
    m->used = xcalloc(cap, 1);
    for (size_t i = 0; i < old.cap; i++)
        if (old.used[i]) hmap_put(m, old.keys[i], old.vals[i], NULL);
    free(old.keys);
    free(old.vals);
    free(old.used);
}

uint64_t *hmap_put(hmap_t *m, uint64_t key, uint64_t v, bool *fresh)
{
    if ((m->n + 1) * 4 > m->cap * 3) rehash(m, m->cap ? m->cap * 2 : 16);
    size_t i = slot_of(m, key);
    for (; m->used[i]; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) {
            if (fresh) *fresh = false;
            return &m->vals[i];
        }
    }
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = v;
    m->n++;
    if (fresh) *fresh = true;
    return &m->vals[i];
}

bool hmap_del(hmap_t *m, uint64_t key)
{
    if (!m->n) return false;
    size_t mask = m->cap - 1, i = slot_of(m, key);
    for (;; i = (i + 1) & mask) {
        if (!m->used[i]) return false;
        if (m->keys[i] == key) break;
    }
    /* Backward-shift: move later members of the cluster into the hole when
     * their home slot does not lie cyclically in (hole, j]. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
        size_t home = slot_of(m, m->keys[j]);
        int between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!between) {
            m->keys[hole] = m->keys[j];
            m->vals[hole] = m->vals[j];
            hole = j;
        }
    }
    m->used[hole] = 0;
    m->n--;
    return true;
}

bool hmap_next(const hmap_t *m, size_t *it, uint64_t *key, uint64_t *val)
{
    for (size_t i = *it; i < m->cap; i++) {
        if (m->used[i]) {
            if (key) *key = m->keys[i];
            if (val) *val = m->vals[i];
            *it = i + 1;
            return true;
        }
    }
    *it = m->cap;
    return false;
}
