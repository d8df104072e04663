/* lookup.c - an address lookup on a thread of its own (see lookup.h).
 *
 * The lookup is shared by its thread and the loop's async handle: each
 * holds a reference, and whichever lets go last frees it. The lock orders
 * the thread's answer against a give-up on the loop, so that the thread
 * never wakes a handle that is being closed. */
#include "lookup.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* getaddrinfo needs little stack; the default (ulimit -s, often 8 MB) is
 * address space a tight ulimit -v may not have. */
#define LOOKUP_STACK (2u << 20)

struct lookup {
    uv_async_t answered;        /* wakes the loop once the answer is in */
    pthread_mutex_t lock;
    int refs;                   /* the thread's and the handle's */
    bool abandoned;             /* the loop gave it up */
    bool done;                  /* the answer is in */
    char *host, *port;
    int status, sys_errno;
    struct addrinfo *res;
    lookup_cb cb;
    void *ctx;
};

static void lookup_free(lookup_t *l)
{
    pthread_mutex_destroy(&l->lock);
    free(l->host);
    free(l->port);
    free(l);
}

static void release(lookup_t *l)
{
    pthread_mutex_lock(&l->lock);
    const int left = --l->refs;
    pthread_mutex_unlock(&l->lock);
    if (left == 0) lookup_free(l);
}

static void on_handle_closed(uv_handle_t *h)
{
    release(h->data);
}

static void *lookup_main(void *arg)
{
    lookup_t *l = arg;
    const struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    struct addrinfo *res = NULL;
    const int status = getaddrinfo(l->host, l->port, &hints, &res);
    const int sys_errno = errno;
    pthread_mutex_lock(&l->lock);
    if (l->abandoned) {
        if (res) freeaddrinfo(res);
    } else {
        l->status = status;
        l->sys_errno = sys_errno;
        l->res = res;
        l->done = true;
        uv_async_send(&l->answered);
    }
    pthread_mutex_unlock(&l->lock);
    release(l);
    return NULL;
}

static void on_answered(uv_async_t *h)
{
    lookup_t *l = h->data;
    pthread_mutex_lock(&l->lock);
    struct addrinfo *res = l->res;
    l->res = NULL;
    pthread_mutex_unlock(&l->lock);
    uv_close((uv_handle_t *)&l->answered, on_handle_closed);
    l->cb(l->ctx, l->status, l->sys_errno, res);
}

lookup_t *lookup_start(uv_loop_t *loop, const char *host, const char *port, lookup_cb cb, void *ctx, int *err)
{
    lookup_t *l = xcalloc(1, sizeof *l);
    l->host = xstrdup(host);
    l->port = xstrdup(port);
    l->cb = cb;
    l->ctx = ctx;
    pthread_mutex_init(&l->lock, NULL);
    const int rc = uv_async_init(loop, &l->answered, on_answered);
    if (rc < 0) {
        *err = -rc;
        lookup_free(l);
        return NULL;
    }
    l->answered.data = l;
    l->refs = 2;                /* the handle's and the thread's */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, LOOKUP_STACK);
    pthread_t thread;
    *err = pthread_create(&thread, &attr, lookup_main, l);
    pthread_attr_destroy(&attr);
    if (*err) {
        l->refs = 1;            /* the handle's, let go when it is closed */
        uv_close((uv_handle_t *)&l->answered, on_handle_closed);
        return NULL;
    }
    return l;
}

void lookup_abandon(lookup_t *l)
{
    pthread_mutex_lock(&l->lock);
    l->abandoned = true;
    struct addrinfo *res = l->res;
    l->res = NULL;
    pthread_mutex_unlock(&l->lock);
    if (res) freeaddrinfo(res);
    uv_close((uv_handle_t *)&l->answered, on_handle_closed);
}
