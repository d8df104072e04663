/* strtab.c - deduplicated string pool (see strtab.h). */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define ARENA_CHUNK (1u << 20)

void strtab_free(strtab_t *t)
{
    for (size_t i = 0; i < t->nchunks; i++) free(t->chunks[i]);
    free(t->chunks);
    free(t->str);
    free(t->len);
    free(t->table);
    *t = (strtab_t){0};
}

static char *arena_alloc(strtab_t *t, size_t n)
{
    if (n > ARENA_CHUNK / 4) {
        /* Large strings get a chunk of their own. */
        char *p = xmalloc(n);
        t->held += n;
        t->chunks = xrealloc(t->chunks, (t->nchunks + 1) * sizeof *t->chunks);
        t->chunks[t->nchunks++] = p;
        return p;
    }
    if (t->arena_used + n > t->arena_cap) {
        t->arena = xmalloc(ARENA_CHUNK);
        t->arena_used = 0;
        t->arena_cap = ARENA_CHUNK;
        t->held += ARENA_CHUNK;
        t->chunks = xrealloc(t->chunks, (t->nchunks + 1) * sizeof *t->chunks);
        t->chunks[t->nchunks++] = t->arena;
    }
    char *p = t->arena + t->arena_used;
    t->arena_used += n;
    return p;
}

/* Table entries keep 32 bits of the hash beside the index, so probing and
 * growing rarely touch the strings themselves. The slot comes from the low
 * bits, the tag from the high ones. */
static inline uint64_t entry_of(uint32_t idx, uint64_t h) { return (h & 0xFFFFFFFF00000000ULL) | ((uint64_t)idx + 1); }
static inline uint32_t entry_idx(uint64_t e) { return (uint32_t)e - 1; }

static void table_put(strtab_t *t, uint64_t e, size_t slot)
{
    size_t mask = t->tcap - 1;
    size_t i = slot & mask;
    while (t->table[i]) i = (i + 1) & mask;
    t->table[i] = e;
}

static void table_grow(strtab_t *t)
{
    size_t old_cap = t->tcap;
    uint64_t *old = t->table;
    size_t cap = old_cap ? old_cap * 2 : 1024;
    if (!old_cap) hashkey_draw(&t->key);
    t->table = xcalloc(cap, sizeof *t->table);
    t->tcap = cap;
    /* The slot needs low hash bits the entry does not keep: recompute those
     * from the string only when the table grows. */
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i]) continue;
        uint32_t idx = entry_idx(old[i]);
        table_put(t, old[i], (size_t)hash_bytes(&t->key, t->str[idx], t->len[idx]));
    }
    free(old);
}

/* The index of the string with these bytes (hash h), or STRTAB_NONE with
 * *slot the empty slot where it would go. */
static inline uint32_t probe(const strtab_t *t, const void *p, size_t n, uint64_t h, size_t *slot)
{
    const uint64_t tag = h & 0xFFFFFFFF00000000ULL;
    const size_t mask = t->tcap - 1;
    size_t i = (size_t)h & mask;
    for (; t->table[i]; i = (i + 1) & mask) {
        if ((t->table[i] & 0xFFFFFFFF00000000ULL) != tag) continue;
        uint32_t idx = entry_idx(t->table[i]);
        if (t->len[idx] == n && memcmp(t->str[idx], p, n) == 0) return idx;
    }
    *slot = i;
    return STRTAB_NONE;
}

uint32_t strtab_find(const strtab_t *t, const void *p, size_t n)
{
    size_t slot = 0;
    return t->tcap ? probe(t, p, n, hash_bytes(&t->key, p, n), &slot) : STRTAB_NONE;
}

uint32_t strtab_intern(strtab_t *t, const void *p, size_t n)
{
    if ((t->n + 1) * 2 > t->tcap) table_grow(t);
    const uint64_t h = hash_bytes(&t->key, p, n);
    size_t i = 0;
    const uint32_t found = probe(t, p, n, h, &i);
    if (found != STRTAB_NONE) return found;
    if (t->n == t->cap) {
        size_t cap = t->cap;
        t->str = grow_array(t->str, sizeof *t->str, &cap, t->n + 1);
        t->len = xrealloc(t->len, cap * sizeof *t->len);
        t->cap = cap;
    }
    char *s = arena_alloc(t, n + 1);
    if (n) memcpy(s, p, n);
    s[n] = '\0';
    uint32_t idx = (uint32_t)t->n++;
    t->str[idx] = s;
    t->len[idx] = (uint32_t)n;
    t->bytes += n;
    t->table[i] = entry_of(idx, h);
    return idx;
}
