/* test_util.c - unit tests of util.h's hashes (hash_bytes gives the values
 * of its zero-padded definition at every length: the keys of the string and
 * call-stack tables depend on it; keys chosen against an unkeyed hash do
 * not collide under a keyed one) and of hmap.c (random insertions, look-ups
 * and deletions agree with a plain array, through growth, wrap-around and
 * long clusters; keys crafted to collide under the unkeyed mixer probe
 * short; the sorted walk), and of out_of_memory on two threads at once
 * (the first one's exit is the one that happens, whole). */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hmap.h"
#include "unit.h"
#include "util.h"

/* hash_bytes as defined: 16-byte blocks, then the zero-padded tail. */
static uint64_t fold_mul_ref(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static uint64_t hash_bytes_ref(const hashkey_t *k, const uint8_t *b, size_t n)
{
    uint64_t h = k->k0 ^ ((uint64_t)n * 0xA0761D6478BD642FULL);
    while (n >= 16) {
        h = fold_mul_ref(ld64(b) ^ k->k1, ld64(b + 8) ^ h);
        b += 16;
        n -= 16;
    }
    uint64_t tail[2] = { 0, 0 };
    memcpy(tail, b, n);
    h = fold_mul_ref(tail[0] ^ k->k1 ^ 0x8EBC6AF09C88C6E3ULL, tail[1] ^ h);
    return hash64(h);
}

START_TEST(hash_bytes_matches_its_definition_at_every_length)
{
    uint8_t buf[80];
    uint64_t x = 0x2545F4914F6CDD1DULL;
    hashkey_t k;
    hashkey_draw(&k);
    for (int round = 0; round < 50; round++) {
        for (size_t i = 0; i < sizeof buf; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[i] = (uint8_t)x;
        }
        for (size_t n = 0; n <= 64; n++) {
            /* at every alignment, and with bytes after the end that must not count */
            for (size_t off = 0; off < 8; off++)
                ck_assert_uint_eq(hash_bytes(&k, buf + off, n), hash_bytes_ref(&k, buf + off, n));
        }
    }
    /* lengths differing only by trailing zeros hash apart */
    memset(buf, 0, sizeof buf);
    ck_assert_uint_ne(hash_bytes(&k, buf, 3), hash_bytes(&k, buf, 4));
}
END_TEST

/* Two draws differ (a fixed key would be no secret), and the same bytes
 * hash apart under them. */
START_TEST(hash_keys_are_drawn_afresh)
{
    hashkey_t a, b;
    hashkey_draw(&a);
    hashkey_draw(&b);
    ck_assert(a.k0 != b.k0 || a.k1 != b.k1);
    static const char s[] = "the same string";
    ck_assert_uint_ne(hash_bytes(&a, s, sizeof s), hash_bytes(&b, s, sizeof s));
    ck_assert_uint_ne(hash_keyed(&a, 0x1000), hash_keyed(&b, 0x1000));
}
END_TEST

/* Byte strings that collide completely under an unkeyed multiply-fold
 * hash: a block whose first word equals the public constant it is XORed
 * with multiplies to zero whatever follows. Under the key, 4096 such
 * 32-byte strings (the first block varies) keep distinct hashes. */
START_TEST(hash_bytes_resists_zeroed_blocks)
{
    enum { N = 4096 };
    static uint64_t h[N];
    hashkey_t k;
    hashkey_draw(&k);
    for (uint64_t i = 0; i < N; i++) {
        const uint64_t words[4] = { i, i * 7, 0xE7037ED1A0B428DBULL, i };
        h[i] = hash_bytes(&k, words, sizeof words);
    }
    size_t same_low = 0;
    for (size_t i = 1; i < N; i++) same_low += (h[i] & 0xFFF) == (h[0] & 0xFFF);
    ck_assert_uint_lt(same_low, 16);   /* ~1 expected at random */
}
END_TEST

#define KEYS 3000

/* The map against an array indexed by key (value 0: absent), over keys
 * spread as pointers are: multiples of 16 from a base, and 0. */
static void check_against_array(hmap_t *m, const uint64_t *ref)
{
    size_t present = 0;
    for (size_t k = 0; k < KEYS; k++) {
        const uint64_t *v = hmap_get(m, k * 16);
        if (ref[k]) {
            ck_assert_ptr_nonnull(v);
            ck_assert_uint_eq(*v, ref[k]);
            present++;
        } else {
            ck_assert_ptr_null(v);
        }
    }
    ck_assert_uint_eq(m->n, present);
    size_t seen = 0;
    uint64_t key, val;
    for (size_t it = 0; hmap_next(m, &it, &key, &val);) {
        ck_assert_uint_eq(key % 16, 0);
        ck_assert_uint_eq(ref[key / 16], val);
        seen++;
    }
    ck_assert_uint_eq(seen, present);
}

START_TEST(hmap_agrees_with_an_array_under_churn)
{
    static uint64_t ref[KEYS];
    memset(ref, 0, sizeof ref);
    hmap_t m = {0};
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int step = 1; step <= 200000; step++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* phases: grow to most keys, churn around a third, drain */
        const int phase = step / 50000;
        const size_t k = (size_t)(x % (phase == 1 ? KEYS / 3 : KEYS));
        const bool insert = phase == 3 ? (x >> 40) % 4 == 0 : phase == 0 ? (x >> 40) % 4 != 0 : (x >> 40) % 2 == 0;
        if (insert) {
            bool fresh;
            uint64_t *v = hmap_put(&m, k * 16, (uint64_t)step, &fresh);
            ck_assert(fresh == (ref[k] == 0));
            if (fresh) ref[k] = (uint64_t)step;
            ck_assert_uint_eq(*v, ref[k]);
        } else {
            uint64_t v = 0;
            const bool had = hmap_take(&m, k * 16, &v);
            ck_assert(had == (ref[k] != 0));
            if (had) ck_assert_uint_eq(v, ref[k]);
            ref[k] = 0;
        }
        if (step % 5000 == 0) check_against_array(&m, ref);
    }
    check_against_array(&m, ref);
    hmap_free(&m);
}
END_TEST

/* The key whose hash64 is h (hash64 is invertible). */
static uint64_t inverse_mul(uint64_t c)
{
    uint64_t inv = c;
    for (int i = 0; i < 6; i++) inv *= 2 - c * inv;
    return inv;
}

static uint64_t key_of_hash(uint64_t h)
{
    h ^= h >> 33;
    h *= inverse_mul(0xc4ceb9fe1a85ec53ULL);
    h ^= h >> 33;
    h *= inverse_mul(0xff51afd7ed558ccdULL);
    h ^= h >> 33;
    return h;
}

/* The mean distance from home of m's keys (as recorded: at most 255), a
 * look-up's cost: about 1 with keys spread at random, at this load. */
static double mean_probe(const hmap_t *m)
{
    size_t sum = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->meta[i]) sum += m->meta[i] & 0xFF;
    return m->n ? (double)sum / (double)m->n : 0;
}

/* Keys chosen to share the low 40 bits of the unkeyed mixer's hash (under
 * it: one cluster, probes far past the stored distance): the map neither
 * grows without bound nor loses a key, through insertions and deletions,
 * and under its keyed hash the probes stay short. */
START_TEST(hmap_survives_keys_that_collide_by_design)
{
    enum { N = 1500 };
    hmap_t m = {0};
    uint64_t keys[N];
    for (uint64_t i = 0; i < N; i++) {
        keys[i] = key_of_hash(i << 40 | 0x12345);
        ck_assert_uint_eq(hash64(keys[i]), i << 40 | 0x12345);
        hmap_put(&m, keys[i], i + 1, NULL);
    }
    ck_assert_uint_le(m.cap, 16 * N);   /* grown by load, not by the collisions */
    ck_assert_double_lt(mean_probe(&m), 4);
    for (uint64_t i = 0; i < N; i++) ck_assert_uint_eq(*hmap_get(&m, keys[i]), i + 1);
    for (uint64_t i = 0; i < N; i += 2) {
        uint64_t v = 0;
        ck_assert(hmap_take(&m, keys[i], &v));
        ck_assert_uint_eq(v, i + 1);
    }
    for (uint64_t i = 0; i < N; i++) {
        const uint64_t *v = hmap_get(&m, keys[i]);
        if (i % 2) ck_assert_uint_eq(*v, i + 1);
        else ck_assert_ptr_null(v);
    }
    ck_assert_uint_eq(m.n, N / 2);
    hmap_free(&m);
}
END_TEST

/* 100,000 allocation addresses as a hash-flooding client would pick them
 * against the unkeyed mixer (16-byte aligned addresses whose hash64 share
 * their low 20 bits), put and taken in turns as allocations and frees: the
 * probes stay short (unkeyed, they would run through the whole cluster,
 * the map's every key).*/
START_TEST(hmap_stays_fast_under_keys_crafted_against_the_mixer)
{
    enum { N = 100000 };
    hmap_t m = {0};
    size_t found = 0;
    double most = 0;
    for (uint64_t i = 0; found < N; i++) {
        const uint64_t key = key_of_hash(i << 20 | 0x5A5A5);
        if (key % 16) continue;
        found++;
        hmap_put(&m, key, i, NULL);
        if (found % 2 == 0) ck_assert(hmap_del(&m, key));
        if (found % 4096 == 0 && mean_probe(&m) > most) most = mean_probe(&m);
    }
    ck_assert_uint_eq(m.n, N / 2);
    ck_assert_double_lt(most, 4);
    hmap_free(&m);
}
END_TEST

/* hmap_sorted gives every entry once, in key order, whatever the slots'. */
START_TEST(hmap_sorted_walks_in_key_order)
{
    hmap_t m = {0};
    ck_assert_ptr_null(hmap_sorted(&m));
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 5000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        hmap_put(&m, x, ~x, NULL);
    }
    hmap_slot_t *e = hmap_sorted(&m);
    for (size_t i = 0; i < m.n; i++) {
        ck_assert_uint_eq(e[i].val, ~e[i].key);
        if (i) ck_assert_uint_lt(e[i - 1].key, e[i].key);
    }
    free(e);
    hmap_free(&m);
}
END_TEST

/* This binary's exit for want of memory (util.h): the message, then, in
 * the test below, a pause that lets another thread run out too before
 * this exit's last word. The first call's status is 7, a later one's 9. */
static atomic_int fatal_calls;
static atomic_bool slow_fatal_exit;

int on_fatal_exit(const char *message)
{
    const int call = atomic_fetch_add(&fatal_calls, 1);
    fprintf(stderr, "error: %s\n", message);
    if (atomic_load(&slow_fatal_exit)) {
        usleep(300 * 1000);
        fprintf(stderr, "the first exit's last word\n");
    }
    return call == 0 ? 7 : 9;
}

static void *run_out_of_memory(void *arg)
{
    (void)arg;
    out_of_memory(1);
}

/* Memory running out on two threads at once: the first thread's exit is
 * the one that happens, and all it had to say is said; the second says
 * nothing (before, its exit ended the process midway through the first
 * one's: a spool removed and not said so). */
START_TEST(out_of_memory_on_two_threads_exits_once)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        atomic_store(&slow_fatal_exit, true);
        pthread_t t;
        if (pthread_create(&t, NULL, run_out_of_memory, NULL) != 0) _exit(3);
        while (atomic_load(&fatal_calls) == 0) usleep(1000);
        out_of_memory(2);
    }
    close(fds[1]);
    char out[512];
    size_t n = 0;
    for (ssize_t k; n < sizeof out - 1 && (k = read(fds[0], out + n, sizeof out - 1 - n)) > 0;) n += (size_t)k;
    out[n] = 0;
    close(fds[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 7, "status %d: %s", status, out);
    ck_assert_msg(strstr(out, "error: out of memory (allocating 1 bytes") && strstr(out, "the first exit's last word")
                  && !strstr(out, "allocating 2 bytes"), "%s", out);
}
END_TEST

Suite *util_suite(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("hash");
    tcase_add_test(tc, hash_bytes_matches_its_definition_at_every_length);
    tcase_add_test(tc, hmap_agrees_with_an_array_under_churn);
    tcase_add_test(tc, hmap_survives_keys_that_collide_by_design);
    tcase_add_test(tc, hash_keys_are_drawn_afresh);
    tcase_add_test(tc, hash_bytes_resists_zeroed_blocks);
    tcase_add_test(tc, hmap_stays_fast_under_keys_crafted_against_the_mixer);
    tcase_add_test(tc, hmap_sorted_walks_in_key_order);
    suite_add_tcase(s, tc);
    TCase *fatal = tcase_create("fatal");
    tcase_add_test(fatal, out_of_memory_on_two_threads_exits_once);
    suite_add_tcase(s, fatal);
    return s;
}
