/* netdec.c - the decoder thread (see netdec.h). */
#include "netdec.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunkpool.h"
#include "csdedup.h"
#include "frame.h"
#include "proto.h"
#include "util.h"

#define NETDEC_SLOTS 8          /* decoded frames in flight */

typedef struct chunk {
    struct chunk *next;
    size_t n;
    uint8_t data[];
} chunk_t;

struct netdec {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t input, space;
    chunk_t *in_head, *in_tail;
    size_t backlog;
    bool input_ended, stopping;

    frame_decoder_t frames;     /* owned by the thread */
    csdedup_t dedup;            /* owned by the thread */
    uint8_t *buf[NETDEC_SLOTS];
    bool busy[NETDEC_SLOTS];
    netdec_item_t out[NETDEC_SLOTS + 2];   /* FIFO of ready items */
    size_t out_head, out_n;
    bool finished;              /* END or ERROR queued */
    uint64_t stat_frames, stat_compressed, stat_decompressed;
    char err[256];

    void (*notify)(void *);
    void *ctx;
    chunkpool_t *pool;          /* set before the first frame */
    spool_t *spool;             /* set before the first push */
};

/* Queue an item for the loop (called with the lock held). */
static void put_item(netdec_t *d, netdec_item_t it)
{
    d->out[(d->out_head + d->out_n++) % (NETDEC_SLOTS + 2)] = it;
}

/* frame.c callback, on the decoder thread: copy the frame out of the ring
 * into a free slot (waiting for one) and queue it. */
static int on_frame(void *ctx, const uint8_t *p, size_t n)
{
    netdec_t *d = ctx;
    pthread_mutex_lock(&d->lock);
    int slot = -1;
    while (!d->stopping) {
        for (int i = 0; i < NETDEC_SLOTS && slot < 0; i++)
            if (!d->busy[i]) slot = i;
        if (slot >= 0) break;
        pthread_cond_wait(&d->space, &d->lock);
    }
    if (d->stopping) {
        pthread_mutex_unlock(&d->lock);
        return -1;
    }
    d->busy[slot] = true;
    pthread_mutex_unlock(&d->lock);

    memcpy(d->buf[slot], p, n);
    const size_t numbered = csdedup_frame(&d->dedup, d->buf[slot], n);
    netdec_item_t it = { .kind = NETDEC_FRAME, .data = d->buf[slot], .n = n, .frame_no = d->frames.frames,
                         .offset = d->frames.frame_offset, .numbered = numbered, .slot = slot };
    pthread_mutex_lock(&d->lock);
    put_item(d, it);
    d->stat_frames = d->frames.frames;
    d->stat_compressed = d->frames.compressed;
    d->stat_decompressed = d->frames.decompressed;
    pthread_mutex_unlock(&d->lock);
    d->notify(d->ctx);
    if (d->pool) chunkpool_refill(d->pool);
    return 0;
}

static void *decoder_main(void *arg)
{
    netdec_t *d = arg;
    for (;;) {
        pthread_mutex_lock(&d->lock);
        while (!d->in_head && !d->input_ended && !d->stopping) pthread_cond_wait(&d->input, &d->lock);
        if (d->stopping) {
            pthread_mutex_unlock(&d->lock);
            return NULL;
        }
        chunk_t *c = d->in_head;
        if (!c) {
            /* input ended and all of it decoded */
            put_item(d, (netdec_item_t){ .kind = NETDEC_END, .slot = -1 });
            d->finished = true;
            pthread_mutex_unlock(&d->lock);
            d->notify(d->ctx);
            return NULL;
        }
        d->in_head = c->next;
        if (!d->in_head) d->in_tail = NULL;
        pthread_mutex_unlock(&d->lock);

        if (d->spool) spool_write(d->spool, c->data, c->n);
        int rc = frame_feed(&d->frames, c->data, c->n, on_frame, d);

        pthread_mutex_lock(&d->lock);
        d->backlog -= c->n;
        free(c);
        if (rc < 0 && !d->stopping) {
            snprintf(d->err, sizeof d->err, "%s", d->frames.err);
            put_item(d, (netdec_item_t){ .kind = NETDEC_ERROR, .slot = -1 });
            d->finished = true;
            pthread_mutex_unlock(&d->lock);
            d->notify(d->ctx);
            return NULL;
        }
        pthread_mutex_unlock(&d->lock);
        /* The backlog shrank: the connection may resume reading (it
         * checks when woken; the frames' own wake-ups came before this). */
        d->notify(d->ctx);
    }
}

netdec_t *netdec_start(uint64_t base_offset, void (*notify)(void *ctx), void *ctx)
{
    netdec_t *d = xcalloc(1, sizeof *d);
    pthread_mutex_init(&d->lock, NULL);
    pthread_cond_init(&d->input, NULL);
    pthread_cond_init(&d->space, NULL);
    frame_decoder_init(&d->frames, base_offset);
    csdedup_init(&d->dedup);
    for (int i = 0; i < NETDEC_SLOTS; i++) d->buf[i] = xmalloc(PROTO_TARGET_FRAME_SIZE);
    d->notify = notify;
    d->ctx = ctx;
    if (pthread_create(&d->thread, NULL, decoder_main, d) != 0) {
        fprintf(stderr, "tracy-capture: cannot start the decoder thread\n");
        exit(7);
    }
    return d;
}

void netdec_refill(netdec_t *d, chunkpool_t *pool)
{
    pthread_mutex_lock(&d->lock);
    d->pool = pool;
    pthread_mutex_unlock(&d->lock);
}

void netdec_spool(netdec_t *d, spool_t *spool)
{
    pthread_mutex_lock(&d->lock);
    d->spool = spool;
    pthread_mutex_unlock(&d->lock);
}

void netdec_push(netdec_t *d, const uint8_t *p, size_t n)
{
    if (n == 0) return;
    chunk_t *c = xmalloc(sizeof *c + n);
    c->next = NULL;
    c->n = n;
    memcpy(c->data, p, n);
    pthread_mutex_lock(&d->lock);
    if (d->in_tail) d->in_tail->next = c;
    else d->in_head = c;
    d->in_tail = c;
    d->backlog += n;
    pthread_cond_signal(&d->input);
    pthread_mutex_unlock(&d->lock);
}

void netdec_end(netdec_t *d)
{
    pthread_mutex_lock(&d->lock);
    d->input_ended = true;
    pthread_cond_signal(&d->input);
    pthread_mutex_unlock(&d->lock);
}

bool netdec_pop(netdec_t *d, netdec_item_t *it)
{
    pthread_mutex_lock(&d->lock);
    bool got = d->out_n > 0;
    if (got) {
        *it = d->out[d->out_head];
        d->out_head = (d->out_head + 1) % (NETDEC_SLOTS + 2);
        d->out_n--;
    }
    pthread_mutex_unlock(&d->lock);
    return got;
}

void netdec_release(netdec_t *d, const netdec_item_t *it)
{
    if (it->kind != NETDEC_FRAME) return;
    pthread_mutex_lock(&d->lock);
    d->busy[it->slot] = false;
    pthread_cond_signal(&d->space);
    pthread_mutex_unlock(&d->lock);
}

size_t netdec_backlog(netdec_t *d)
{
    pthread_mutex_lock(&d->lock);
    size_t n = d->backlog;
    pthread_mutex_unlock(&d->lock);
    return n;
}

const char *netdec_error(netdec_t *d)
{
    return d->err;
}

void netdec_stats(netdec_t *d, uint64_t *frames, uint64_t *compressed, uint64_t *decompressed)
{
    pthread_mutex_lock(&d->lock);
    *frames = d->stat_frames;
    *compressed = d->stat_compressed;
    *decompressed = d->stat_decompressed;
    pthread_mutex_unlock(&d->lock);
}

void netdec_stop(netdec_t *d)
{
    if (!d) return;
    pthread_mutex_lock(&d->lock);
    d->stopping = true;
    pthread_cond_broadcast(&d->input);
    pthread_cond_broadcast(&d->space);
    pthread_mutex_unlock(&d->lock);
    pthread_join(d->thread, NULL);
    for (chunk_t *c = d->in_head, *n; c; c = n) {
        n = c->next;
        if (d->spool) spool_write(d->spool, c->data, c->n);   /* received, so kept */
        free(c);
    }
    for (int i = 0; i < NETDEC_SLOTS; i++) free(d->buf[i]);
    frame_decoder_free(&d->frames);
    csdedup_free(&d->dedup);
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->input);
    pthread_cond_destroy(&d->space);
    free(d);
}
