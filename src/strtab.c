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
        t->chunks = xrealloc(t->chunks, (t->nchunks + 1) * sizeof *t->chunks);
        t->chunks[t->nchunks++] = p;
        return p;
    }
    if (t->arena_used + n > t->arena_cap) {
        t->arena = xmalloc(ARENA_CHUNK);
        t->arena_used = 0;
        t->arena_cap = ARENA_CHUNK;
        t->chunks = xrealloc(t->chunks, (t->nchunks + 1) * sizeof *t->chunks);
        t->chunks[t->nchunks++] = t->arena;
    }
    char *p = t->arena + t->arena_used;
    t->arena_used += n;
    return p;
}

static void table_insert(strtab_t *t, uint32_t idx, uint64_t h)
{
    size_t mask = t->tcap - 1;
    size_t i = (size_t)h & mask;
    while (t->table[i]) i = (i + 1) & mask;
    t->table[i] = idx + 1;
}

static void table_grow(strtab_t *t)
{
    size_t cap = t->tcap ? t->tcap * 2 : 1024;
    free(t->table);
    t->table = xcalloc(cap, sizeof *t->table);
    t->tcap = cap;
    for (size_t i = 0; i < t->n; i++)
        table_insert(t, (uint32_t)i, hash_bytes(t->str[i], t->len[i]));
}

uint32_t strtab_intern(strtab_t *t, const void *p, size_t n)
{
    if ((t->n + 1) * 2 > t->tcap) table_grow(t);
    uint64_t h = hash_bytes(p, n);
    size_t mask = t->tcap - 1;
    for (size_t i = (size_t)h & mask; t->table[i]; i = (i + 1) & mask) {
        uint32_t idx = t->table[i] - 1;
        if (t->len[idx] == n && memcmp(t->str[idx], p, n) == 0) return idx;
    }
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
    table_insert(t, idx, h);
    return idx;
}
