/* strtab.h - the capture's deduplicated string pool.
 *
 * Every string the client sends (names, texts, file names...) is interned
 * once; its index is what the .tracy file's StringIdx / index-form StringRef
 * refer to (file spec section 5.6). Strings are kept NUL-terminated. The
 * look-up table hashes them with a key of its own (util.h, hashkey_t):
 * strings a client sends cannot be made to collide. */
#ifndef TC_STRTAB_H
#define TC_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct {
    char **str;        /* str[i]: NUL-terminated bytes of string i */
    uint32_t *len;     /* len[i]: byte length (may contain NULs) */
    size_t n, cap;
    uint64_t *table;   /* hash table: (hash high bits << 32) | (index + 1), 0 = empty */
    size_t tcap;
    char *arena;       /* current arena chunk */
    size_t arena_used, arena_cap;
    char **chunks;
    size_t nchunks;
    size_t bytes;      /* total bytes interned */
    size_t held;       /* bytes of the chunks (arena and large strings) */
    hashkey_t key;     /* the table's secret, drawn when it is first made */
} strtab_t;

void strtab_free(strtab_t *t);
/* The bytes the pool's arrays, table and chunks take. */
static inline size_t strtab_memory(const strtab_t *t)
{
    return t->held + t->nchunks * sizeof *t->chunks + t->cap * (sizeof *t->str + sizeof *t->len) +
           t->tcap * sizeof *t->table;
}
/* Index of the string with these bytes, adding it if new. */
uint32_t strtab_intern(strtab_t *t, const void *p, size_t n);
/* Index of the string with these bytes, or STRTAB_NONE. */
#define STRTAB_NONE UINT32_MAX
uint32_t strtab_find(const strtab_t *t, const void *p, size_t n);
static inline const char *strtab_get(const strtab_t *t, uint32_t idx) { return t->str[idx]; }
static inline uint32_t strtab_len(const strtab_t *t, uint32_t idx) { return t->len[idx]; }

#endif
