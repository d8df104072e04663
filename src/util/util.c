/* util.c - checked allocation and growth helpers, and the keyed hashes
 * (see util.h). */
#include "util.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

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

/* Programs without a capture (tests, fuzz targets) only say it. */
__attribute__((weak)) int on_fatal_exit(const char *message)
{
    fprintf(stderr, "tracy-capture: error: %s\n", message);
    return 7;
}

void out_of_memory(size_t n)
{
    /* Memory tends to run out on several threads at once. The first says
     * so and exits; the others wait for that exit, since a second exit
     * would end the process in the middle of the first one's message, or
     * between its removing a spool and saying so. */
    static atomic_flag exiting = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&exiting))
        for (;;) pause();
    char message[160];
    rlim_t v;
    if (finite_limit(RLIMIT_AS, &v))
        snprintf(message, sizeof message, "out of memory (allocating %zu bytes; the address-space limit, ulimit -v, "
                 "is %llu kB)", n, (unsigned long long)(v >> 10));
    else
        snprintf(message, sizeof message, "out of memory (allocating %zu bytes)", n);
    exit(on_fatal_exit(message));
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

/* hashkey_draw: the kernel's random bytes, or (without getrandom, in a
 * sandbox say) what differs from one run to the next: the clocks, the
 * process id and, with address-space randomisation, the stack. */
void hashkey_draw(hashkey_t *k)
{
    if (getrandom(k, sizeof *k, GRND_NONBLOCK) == (ssize_t)sizeof *k) return;
    struct timespec mono, real;
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_REALTIME, &real);
    const uint64_t a = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec;
    const uint64_t b = (uint64_t)real.tv_sec * 1000000000u + (uint64_t)real.tv_nsec;
    const uint64_t c = (uint64_t)(uintptr_t)k ^ (uint64_t)getpid() << 40;
    k->k0 = hash64(a ^ hash64(c));
    k->k1 = hash64(b ^ hash64(k->k0 + c));
}

/* A fast keyed 64-bit hash of a byte string: each 16-byte block is mixed
 * by a multiplication of its two words, each XORed with a secret (the
 * running state is the second), the tail likewise, then a final
 * avalanche. Both factors of every product depend on the key, so no block
 * can be chosen to make one of them zero. */
uint64_t hash_bytes_wide(const hashkey_t *k, const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = k->k0 ^ ((uint64_t)n * 0xA0761D6478BD642FULL);
    uint64_t g = k->k1 ^ 0xD6E8FEB86659FD93ULL;
    while (n >= 32) {
        h = fold_mul(ld64(b) ^ k->k1, ld64(b + 8) ^ h);
        g = fold_mul(ld64(b + 16) ^ k->k0, ld64(b + 24) ^ g);
        b += 32;
        n -= 32;
    }
    return hash_bytes(k, b, n) ^ fold_mul(h ^ 0x589965CC75374CC3ULL, g ^ 0x1D8E4E27C47D124FULL);
}

/* The first n (< 8) bytes at b as a little-endian word, zero-padded
 * (what memcpy into a zeroed word gives, without the call). */
static inline uint64_t load_short(const uint8_t *b, size_t n)
{
    if (n >= 4) return ld32(b) | (uint64_t)ld32(b + n - 4) << ((n - 4) * 8);
    if (n == 0) return 0;
    return b[0] | (uint64_t)b[n / 2] << (n / 2 * 8) | (uint64_t)b[n - 1] << ((n - 1) * 8);
}

uint64_t hash_bytes(const hashkey_t *k, const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = k->k0 ^ ((uint64_t)n * 0xA0761D6478BD642FULL);
    while (n >= 16) {
        h = fold_mul(ld64(b) ^ k->k1, ld64(b + 8) ^ h);
        b += 16;
        n -= 16;
    }
    const uint64_t t0 = n >= 8 ? ld64(b) : load_short(b, n);
    const uint64_t t1 = n > 8 ? load_short(b + 8, n - 8) : 0;
    h = fold_mul(t0 ^ k->k1 ^ 0x8EBC6AF09C88C6E3ULL, t1 ^ h);
    return hash64(h);
}
