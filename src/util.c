/* util.c - checked allocation and growth helpers (see util.h). */
#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>


/* The soft limit on `resource`, if there is one. */
static bool finite_limit(int resource, rlim_t *value)
{
    struct rlimit lim;
    if (getrlimit(resource, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return false;
    *value = lim.rlim_cur;
    return true;
}

const char *strerror_limit(int err, char *buf, size_t n)
{
    rlim_t v;
    if (err == EMFILE && finite_limit(RLIMIT_NOFILE, &v))
        snprintf(buf, n, "%s (the descriptor limit, ulimit -n, is %llu)", strerror(err), (unsigned long long)v);
    else if ((err == ENOMEM || err == EAGAIN) && finite_limit(RLIMIT_AS, &v))
        snprintf(buf, n, "%s (the address-space limit, ulimit -v, is %llu kB)", strerror(err),
                 (unsigned long long)(v >> 10));
    else
        snprintf(buf, n, "%s", strerror(err));
    return buf;
}

void out_of_memory(size_t n)
{
    rlim_t v;
    if (finite_limit(RLIMIT_AS, &v))
        fprintf(stderr, "tracy-capture: out of memory (allocating %zu bytes; the address-space limit, ulimit -v, "
                "is %llu kB)\n", n, (unsigned long long)(v >> 10));
    else
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

/* A fast 64-bit hash of a byte string: each 8-byte word is mixed by a
 * multiply and fold, the tail likewise, then a final avalanche. */
static inline uint64_t fold_mul(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t hash_bytes_wide(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)n * 0xA0761D6478BD642FULL);
    uint64_t g = 0xD6E8FEB86659FD93ULL;
    while (n >= 32) {
        h = fold_mul(ld64(b) ^ 0xE7037ED1A0B428DBULL, ld64(b + 8) ^ h);
        g = fold_mul(ld64(b + 16) ^ 0x8EBC6AF09C88C6E3ULL, ld64(b + 24) ^ g);
        b += 32;
        n -= 32;
    }
    return hash_bytes(b, n) ^ fold_mul(h ^ 0x589965CC75374CC3ULL, g ^ 0x1D8E4E27C47D124FULL);
}

/* The first n (< 8) bytes at b as a little-endian word, zero-padded
 * (what memcpy into a zeroed word gives, without the call). */
static inline uint64_t load_short(const uint8_t *b, size_t n)
{
    if (n >= 4) return ld32(b) | (uint64_t)ld32(b + n - 4) << ((n - 4) * 8);
    if (n == 0) return 0;
    return b[0] | (uint64_t)b[n / 2] << (n / 2 * 8) | (uint64_t)b[n - 1] << ((n - 1) * 8);
}

uint64_t hash_bytes(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)n * 0xA0761D6478BD642FULL);
    while (n >= 16) {
        h = fold_mul(ld64(b) ^ 0xE7037ED1A0B428DBULL, ld64(b + 8) ^ h);
        b += 16;
        n -= 16;
    }
    const uint64_t t0 = n >= 8 ? ld64(b) : load_short(b, n);
    const uint64_t t1 = n > 8 ? load_short(b + 8, n - 8) : 0;
    h = fold_mul(t0 ^ 0x8EBC6AF09C88C6E3ULL, t1 ^ h);
    return hash64(h);
}
