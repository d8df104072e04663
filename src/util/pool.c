/* pool.c - worker threads whose jobs finish on a libuv loop (see pool.h).
 *
 * Submitted jobs wait in one queue (todo); the first free worker takes the
 * oldest, runs its work() without the lock, and appends it to the finished
 * queue (done), waking the loop through one async handle, which runs the
 * done() callbacks of every job finished by then. `pending` counts jobs
 * from their submission to the end of their done(): while a closing pool
 * has any, a done() may still submit, so the workers stay. */
#include "pool.h"

#include <errno.h>
#include <signal.h>

static void queue_push(pool_job_t ***tail, pool_job_t *job)
{
    job->next = NULL;
    **tail = job;
    *tail = &job->next;
}

/* Whether a worker has nothing more to do, ever (under the lock). */
static bool workers_may_leave(const pool_t *p)
{
    return p->stop && p->pending == 0;
}

/* Publish how many workers wait with nothing queued (under the lock). */
static void publish_spare(pool_t *p)
{
    atomic_store_explicit(&p->spare, p->todo ? 0 : p->waiting, memory_order_relaxed);
}

/* The next job to run, or NULL when the worker is to leave (under the lock). */
static pool_job_t *next_job(pool_t *p)
{
    while (!p->todo && !workers_may_leave(p)) {
        p->waiting++;
        publish_spare(p);
        pthread_cond_wait(&p->wake, &p->lock);
        p->waiting--;
    }
    pool_job_t *job = p->todo;
    if (job && !(p->todo = job->next)) p->todo_tail = &p->todo;
    publish_spare(p);
    return job;
}

static void *worker_main(void *arg)
{
    pool_t *p = arg;
    pthread_mutex_lock(&p->lock);
    for (pool_job_t *job; (job = next_job(p));) {
        pthread_mutex_unlock(&p->lock);
        job->work(job);
        pthread_mutex_lock(&p->lock);
        queue_push(&p->done_tail, job);
        /* the handle is closed only after every worker is joined */
        uv_async_send(&p->finished);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Start up to `want` workers; how many started. Workers block the signals
 * a process gets (they go to the loop's thread, whose handlers libuv
 * runs); the faults a thread causes itself stay deliverable. */
static int start_workers(pool_t *p, int want, pool_spawn_fn spawn, void *ctx)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, POOL_STACK);
    sigset_t all, old;
    sigfillset(&all);
    const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int n = 0;
    while (n < want) {
        const int err = spawn(ctx, &p->threads[n], &attr, worker_main, p);
        if (err) {
            p->start_error = err;
            break;
        }
        n++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return n;
}

/* Let the workers leave once nothing is pending, and join them. */
static void stop_workers(pool_t *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthreads; i++) pthread_join(p->threads[i], NULL);
    p->nthreads = 0;
}

static void destroy_sync(pool_t *p)
{
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
}

static void on_finished_closed(uv_handle_t *h)
{
    pool_t *p = h->data;
    if (p->on_closed) p->on_closed(p);
}

/* Nothing is pending and the pool is closing: shut it down. */
static void finish_close(pool_t *p)
{
    if (p->closed) return;
    p->closed = true;
    stop_workers(p);
    destroy_sync(p);
    uv_close((uv_handle_t *)&p->finished, on_finished_closed);
}

static void on_finished(uv_async_t *h)
{
    pool_t *p = h->data;
    pthread_mutex_lock(&p->lock);
    pool_job_t *job = p->done;
    p->done = NULL;
    p->done_tail = &p->done;
    pthread_mutex_unlock(&p->lock);
    size_t finished = 0;
    for (pool_job_t *next; job; job = next, finished++) {
        next = job->next;       /* done() may free the job */
        job->done(job);
    }
    /* counted down after the callbacks: a done() that submits keeps a
     * closing pool's workers */
    pthread_mutex_lock(&p->lock);
    p->pending -= finished;
    const bool idle = p->pending == 0;
    if (idle && p->stop) pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    if (!idle) return;
    if (p->closing) finish_close(p);
    else uv_unref((uv_handle_t *)&p->finished);
}

static int spawn_pthread(void *ctx, pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    (void)ctx;
    return pthread_create(thread, attr, start, arg);
}

int pool_init(pool_t *p, uv_loop_t *loop, int threads)
{
    return pool_init_spawning(p, loop, threads, spawn_pthread, NULL);
}

int pool_init_spawning(pool_t *p, uv_loop_t *loop, int threads, pool_spawn_fn spawn, void *ctx)
{
    *p = (pool_t){ .loop = loop };
    p->todo_tail = &p->todo;
    p->done_tail = &p->done;
    if (threads <= 0) threads = (int)uv_available_parallelism();
    if (threads < 1) threads = 1;
    if (threads > POOL_MAX_THREADS) threads = POOL_MAX_THREADS;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    p->nthreads = start_workers(p, threads, spawn, ctx);
    if (p->nthreads == 0) {
        destroy_sync(p);
        return p->start_error ? p->start_error : EAGAIN;
    }
    const int rc = uv_async_init(loop, &p->finished, on_finished);
    if (rc < 0) {
        stop_workers(p);
        destroy_sync(p);
        return -rc;
    }
    p->finished.data = p;
    uv_unref((uv_handle_t *)&p->finished);
    return 0;
}

void pool_submit(pool_t *p, pool_job_t *job)
{
    pthread_mutex_lock(&p->lock);
    const bool was_idle = p->pending++ == 0;
    queue_push(&p->todo_tail, job);
    publish_spare(p);
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    if (was_idle) uv_ref((uv_handle_t *)&p->finished);
}

void pool_close(pool_t *p, pool_closed_fn on_closed)
{
    if (p->closing) return;
    p->closing = true;
    p->on_closed = on_closed;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    const bool idle = p->pending == 0;
    pthread_mutex_unlock(&p->lock);
    if (idle) finish_close(p);
}
