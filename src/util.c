/* util.c - checked allocation and growth helpers (see util.h). */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

static void out_of_memory(size_t n)
{
    fprintf(stderr, "tracy-capture: out of memory (allocating %zu bytes)\n", n);
    exit(7);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) out_of_memory(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory(n);
    return q;
}

char *xmemdup(const void *p, size_t n)
{
    char *s = xmalloc(n + 1);
    if (n) memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

char *xstrdup(const char *s)
{
    return xmemdup(s, strlen(s));
}

void *grow_array(void *p, size_t elem, size_t *cap, size_t need)
{
    size_t c = *cap ? *cap : 8;
    while (c < need) c *= 2;
    *cap = c;
    return xrealloc(p, c * elem);
}

uint64_t hash_bytes(const void *p, size_t n)
{
    /* FNV-1a over 8-byte words then bytes, finished by the mixer. */
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ULL ^ n;
    while (n >= 8) {
        h = (h ^ ld64(b)) * 0x100000001b3ULL;
        h ^= h >> 29;
        b += 8;
        n -= 8;
    }
    while (n--) h = (h ^ *b++) * 0x100000001b3ULL;
    return hash64(h);
}
