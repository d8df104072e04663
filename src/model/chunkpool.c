/* chunkpool.c - pre-faulted chunks for the zone logs (see chunkpool.h). */
#include "chunkpool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

#define POOL_MAX 64

struct chunkpool {
    pthread_mutex_t lock;
    size_t size;
    int depth, max_depth;
    void *ready[POOL_MAX];
    int n;
};

chunkpool_t *chunkpool_new(size_t chunk_size, int max_depth)
{
    chunkpool_t *p = xcalloc(1, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
    p->size = chunk_size;
    p->max_depth = max_depth < 1 ? 1 : max_depth < POOL_MAX ? max_depth : POOL_MAX;
    p->depth = 1;
    return p;
}

void *chunkpool_take(chunkpool_t *p)
{
    void *c = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->n) c = p->ready[--p->n];
    else if (p->depth < p->max_depth) p->depth = p->depth * 2 < p->max_depth ? p->depth * 2 : p->max_depth;
    pthread_mutex_unlock(&p->lock);
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
    for (;;) {
        pthread_mutex_lock(&p->lock);
        const bool full = p->n >= p->depth;
        pthread_mutex_unlock(&p->lock);
        if (full) return;
        char *c = malloc(p->size);
        if (!c) return;
        prefault(c, p->size, page);
        pthread_mutex_lock(&p->lock);
        if (p->n < p->depth) {
            p->ready[p->n++] = c;
            c = NULL;
        }
        pthread_mutex_unlock(&p->lock);
        free(c);
    }
}

size_t chunkpool_size(const chunkpool_t *p)
{
    return p->size;
}

size_t chunkpool_memory(chunkpool_t *p)
{
    if (!p) return 0;
    pthread_mutex_lock(&p->lock);
    const size_t n = (size_t)p->n;
    pthread_mutex_unlock(&p->lock);
    return sizeof *p + n * p->size;
}

void chunkpool_free(chunkpool_t *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++) free(p->ready[i]);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
