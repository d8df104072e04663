/* bench.h - the benchmark scenarios of tracy-test-client, which generate
 * large sessions fast with the bulk encoders (bulk.h): zones (a zone
 * throughput generator, bench_zones.c), memory (allocation-heavy workers
 * with call stacks, bench_memory.c) and threads (hundreds of threads with
 * nested zones, messages and plots, bench_threads.c). The small helpers
 * they share live here. */
#ifndef TC_BENCH_H
#define TC_BENCH_H

#include "client.h"

#define BENCH_MAX_THREADS 4096   /* --threads cap of the threads scenario */

/* WelcomeMessage values of the memory scenario (CodeTransfer, exectime). */
void bench_configure(struct tc_client *c);

void bench_run_zones(struct tc_client *c);
void bench_run_memory(struct tc_client *c);
void bench_run_threads(struct tc_client *c);

/* xorshift64*: a fast deterministic generator (state must not be 0). */
static inline uint64_t bench_rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [lo, hi] (hi - lo small against 2^32). */
static inline int64_t bench_range(uint64_t *s, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(((bench_rnd(s) >> 32) * (uint64_t)(hi - lo + 1)) >> 32);
}

/* --threads / --zones or the scenario's default. */
int bench_threads_opt(const struct tc_client *c, int dflt, int max);
long bench_zones_opt(const struct tc_client *c, long dflt);

/* Add closed zones to a source location's manifest statistics. */
void bench_zone_stats(struct tc_client *c, int loc, uint64_t zones, int64_t total_ns);

#endif
