/* chunkpool.c - pre-faulted chunks for the zone logs (see chunkpool.h). */
#include "chunkpool.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

#define POOL_MAX 64

/* Ready chunks in a ring with one filler and one taker: the filler writes
 * ring[head] then moves head on, the taker reads ring[tail] then moves tail
 * on, so neither ever waits for the other. */
struct chunkpool {
    size_t size;
    int max_depth;
    atomic_int depth;           /* how many the filler keeps ready (the taker raises it) */
    void *ring[POOL_MAX];
    atomic_uint head, tail;
    sem_t wanted;               /* posted by each take: the thread fills up */
    pthread_t thread;
    bool started;
    atomic_bool stopping;
};

chunkpool_t *chunkpool_new(size_t chunk_size, int max_depth)
{
    chunkpool_t *p = xcalloc(1, sizeof *p);
    p->size = chunk_size;
    p->max_depth = max_depth < 1 ? 1 : max_depth < POOL_MAX ? max_depth : POOL_MAX;
    atomic_init(&p->depth, 1);
    atomic_init(&p->head, 0);
    atomic_init(&p->tail, 0);
    atomic_init(&p->stopping, false);
    sem_init(&p->wanted, 0, 0);
    return p;
}

void *chunkpool_take(chunkpool_t *p)
{
    void *c = NULL;
    const unsigned t = atomic_load_explicit(&p->tail, memory_order_relaxed);
    if (atomic_load_explicit(&p->head, memory_order_acquire) != t) {
        c = p->ring[t % POOL_MAX];
        atomic_store_explicit(&p->tail, t + 1, memory_order_release);
    } else {
        const int d = atomic_load_explicit(&p->depth, memory_order_relaxed);
        if (d < p->max_depth) atomic_store(&p->depth, d * 2 < p->max_depth ? d * 2 : p->max_depth);
    }
    if (p->started) sem_post(&p->wanted);
    return c;
}

/* Fault a fresh chunk's pages in: in one call where the kernel can
 * (MADV_POPULATE_WRITE, Linux 5.14), else by touching each page. */
static void prefault(char *c, size_t size, long page)
{
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
    const uintptr_t first = ((uintptr_t)c + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
    const uintptr_t last = ((uintptr_t)c + size) & ~((uintptr_t)page - 1);
    if (last > first && madvise((void *)first, last - first, MADV_POPULATE_WRITE) == 0) {
        c[0] = 0;                   /* the partial pages at either end */
        c[size - 1] = 0;
        return;
    }
    for (size_t off = 0; off < size; off += (size_t)page) c[off] = 0;
}

void chunkpool_refill(chunkpool_t *p)
{
    const long page = sysconf(_SC_PAGESIZE);
    unsigned h = atomic_load_explicit(&p->head, memory_order_relaxed);
    while (!atomic_load_explicit(&p->stopping, memory_order_relaxed) &&
           h - atomic_load_explicit(&p->tail, memory_order_acquire) < (unsigned)atomic_load(&p->depth)) {
        char *c = malloc(p->size);
        if (!c) return;
        prefault(c, p->size, page);
        p->ring[h % POOL_MAX] = c;
        atomic_store_explicit(&p->head, ++h, memory_order_release);
    }
}

/* The pool's thread: fill up after every take. At idle priority, so that
 * it uses only time no other thread of the machine wants: when the cores
 * are busy, the model faults its pages in itself instead, which is the
 * same work. */
static void *fill_main(void *arg)
{
    chunkpool_t *p = arg;
    pthread_setname_np(pthread_self(), "tc-prefault");   /* for top -H, perf */
    const struct sched_param idle = { 0 };
    (void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
    while (!atomic_load(&p->stopping)) {
        chunkpool_refill(p);
        while (sem_wait(&p->wanted) != 0 && errno == EINTR) {}
    }
    return NULL;
}

int chunkpool_start(chunkpool_t *p)
{
    p->started = true;
    const int err = pthread_create(&p->thread, NULL, fill_main, p);
    if (err) p->started = false;
    return err;
}

size_t chunkpool_size(const chunkpool_t *p)
{
    return p->size;
}

size_t chunkpool_memory(chunkpool_t *p)
{
    if (!p) return 0;
    const unsigned n = atomic_load(&p->head) - atomic_load(&p->tail);
    return sizeof *p + n * p->size;
}

void chunkpool_free(chunkpool_t *p)
{
    if (!p) return;
    if (p->started) {
        atomic_store(&p->stopping, true);
        sem_post(&p->wanted);
        pthread_join(p->thread, NULL);
    }
    for (unsigned t = atomic_load(&p->tail), h = atomic_load(&p->head); t != h; t++) free(p->ring[t % POOL_MAX]);
    sem_destroy(&p->wanted);
    free(p);
}
