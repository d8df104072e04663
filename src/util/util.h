/* util.h - small shared helpers: checked allocation, growable vectors,
 * little-endian loads, varints and the hash tables' keyed hashes.
 * Header-only where it helps inlining. */
#ifndef TC_UTIL_H
#define TC_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Allocation that cannot fail: on exhaustion the process reports and exits
 * (a capture cannot continue without memory). */
void *xmalloc(size_t n);
/* Report that an allocation of n bytes failed, and exit with the status
 * on_fatal_exit gives; on any thread, one at a time (a later caller
 * waits for the first one's exit). */
void out_of_memory(size_t n) __attribute__((noreturn));
/* Say `message` (an error), and what such an exit adds; returns its
 * status. The program that has a capture says where the input received is
 * kept (main.c); elsewhere it is the message alone, and 7. */
int on_fatal_exit(const char *message);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xmemdup(const void *p, size_t n);

/* Whether errno err says this process or machine is short of something
 * (descriptors, memory, kernel buffers): no reason to try again at once,
 * and no fault of the file or peer at hand. */
static inline bool is_shortage(int err)
{
    return err == EMFILE || err == ENFILE || err == ENOMEM || err == ENOBUFS;
}

/* strerror(err) and, for a shortage a process limit explains, that limit:
 * "Too many open files (the descriptor limit, ulimit -n, is 12)", or the
 * address-space limit (ulimit -v) for ENOMEM and EAGAIN. Written into buf,
 * which is returned. */
const char *strerror_limit(int err, char *buf, size_t n);

/* Grow *cap (in elements) so that need elements fit, doubling. */
void *grow_array(void *p, size_t elem, size_t *cap, size_t need);

/* A growable array of T: struct { T *v; size_t n, cap; }. */
#define VEC(T) struct { T *v; size_t n, cap; }
#define VEC_RESERVE(vec, need)                                              \
    do {                                                                    \
        if ((need) > (vec).cap)                                             \
            (vec).v = grow_array((vec).v, sizeof *(vec).v, &(vec).cap, (need)); \
    } while (0)
#define VEC_PUSH(vec, x)                                                    \
    do {                                                                    \
        VEC_RESERVE(vec, (vec).n + 1);                                      \
        (vec).v[(vec).n++] = (x);                                           \
    } while (0)
/* The bytes a vector's allocation takes (its capacity, not its fill). */
#define VEC_BYTES(vec) ((vec).cap * sizeof *(vec).v)
#define VEC_FREE(vec) do { free((vec).v); (vec).v = NULL; (vec).n = (vec).cap = 0; } while (0)

/* Byte buffer. */
typedef struct {
    uint8_t *p;
    size_t n, cap;
} bytes_t;

static inline void bytes_reserve(bytes_t *b, size_t extra)
{
    if (b->n + extra > b->cap)
        b->p = grow_array(b->p, 1, &b->cap, b->n + extra);
}
static inline void bytes_put(bytes_t *b, const void *p, size_t n)
{
    bytes_reserve(b, n);
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
}
static inline void bytes_free(bytes_t *b) { free(b->p); b->p = NULL; b->n = b->cap = 0; }

/* Unaligned little-endian loads (all supported hosts are little-endian, as
 * is the wire; memcpy keeps it portable and compiles to a plain load). */
static inline uint16_t ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline int64_t ldi64(const uint8_t *p) { int64_t v; memcpy(&v, p, 8); return v; }
static inline float ldf32(const uint8_t *p) { float v; memcpy(&v, p, 4); return v; }
static inline double ldf64(const uint8_t *p) { double v; memcpy(&v, p, 8); return v; }

/* Arithmetic on client-controlled 64-bit values as upstream's compiled code
 * does it on x86-64, without the undefined behaviour C leaves it to:
 * integers wrap, and a double outside the int64 range (or NaN) converts
 * to INT64_MIN, as cvttsd2si does. */
static inline int64_t add_wrap(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t sub_wrap(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t f64_to_i64(double v) { return v >= -0x1p63 && v < 0x1p63 ? (int64_t)v : INT64_MIN; }

/* LEB128 varints, zig-zag for signed values. */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) { p[n++] = (uint8_t)(v | 0x80); v >>= 7; }
    p[n++] = (uint8_t)v;
    return n;
}
static inline uint64_t varint_get(const uint8_t **pp)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    unsigned shift = 0;
    for (;;) {
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
    }
    *pp = p;
    return v;
}
static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* 64-bit mixer (MurmurHash3's finaliser): a public bijection, so a table
 * must never place keys a client chooses by it alone (see hashkey_t). */
static inline uint64_t hash64(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* The 128-bit product of a and b, its halves folded together. */
static inline uint64_t fold_mul(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* The secret of one hash table. Every table holding keys a client chooses
 * (addresses, thread ids, strings, call stacks) hashes them with a key of
 * its own, drawn at random when the table is first used: without it, a
 * client could send keys that all land in one probe sequence and make
 * each insertion cost as much as all the earlier ones together. Nothing
 * that reaches the file may depend on it (writers walk tables in key
 * order, see hmap_sorted). */
typedef struct {
    uint64_t k0, k1;
} hashkey_t;

/* A fresh key from the kernel's random source; where that is unavailable,
 * from the clocks, the process id and where k lives. */
void hashkey_draw(hashkey_t *k);

/* A u64 key, hashed with a table's secret: two multiplications of 128
 * bits, as the hash maps of other runtimes do for integer keys. */
static inline uint64_t hash_keyed(const hashkey_t *k, uint64_t x)
{
    return fold_mul(fold_mul(x ^ k->k0, x ^ k->k1), 0x9E3779B97F4A7C15ULL);
}

/* A byte string, hashed with a table's secret. */
uint64_t hash_bytes(const hashkey_t *k, const void *p, size_t n);
/* The same quality for long strings at about half the latency: two
 * independent lanes of 16 bytes. */
uint64_t hash_bytes_wide(const hashkey_t *k, const void *p, size_t n);

#endif
