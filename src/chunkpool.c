/* chunkpool.c - pre-faulted chunks for the zone logs (see chunkpool.h). */
#include "chunkpool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
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
        for (size_t off = 0; off < p->size; off += (size_t)page) c[off] = 0;
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

void chunkpool_free(chunkpool_t *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++) free(p->ready[i]);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
