/* pool.h - a bounded pool of worker threads whose jobs finish on a libuv
 * loop: a job's work() runs on one of the pool's threads, then its done()
 * on the loop's thread, as with uv_queue_work. Unlike libuv's pool, which
 * aborts the process when it cannot start a thread (under ulimit -v or a
 * thread limit), this one runs with the threads it could start, and says
 * so; only when it can start none does pool_init fail.
 *
 * Jobs are embedded by the caller in structs of its own (like uv_work_t):
 * submitting allocates nothing. Jobs start in the order they were
 * submitted, on whichever thread is free; their done() callbacks run in
 * the order the jobs finished. The pool keeps no order between jobs: a
 * caller that needs one job after another submits the next from the done()
 * of the first.
 *
 * Threading: pool_init, pool_submit and pool_close are called on the
 * loop's thread (done() callbacks run there too, and may submit jobs or
 * close the pool); work() must not call them. */
#ifndef TC_POOL_H
#define TC_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <uv.h>

/* The most threads a pool runs, and the stack each gets: the work of the
 * model and the writer needs far less, and under ulimit -v every thread's
 * stack is address space taken (the default, ulimit -s, is often 8 MB). */
#define POOL_MAX_THREADS 64
#define POOL_STACK (4u << 20)

typedef struct pool_job pool_job_t;
typedef struct pool pool_t;

typedef void (*pool_work_fn)(pool_job_t *job);
typedef void (*pool_done_fn)(pool_job_t *job);
/* Called on the loop's thread once a closed pool is wholly shut down. */
typedef void (*pool_closed_fn)(pool_t *p);

struct pool_job {
    pool_work_fn work;          /* on a pool thread */
    pool_done_fn done;          /* on the loop's thread, after work; may free the job */
    pool_job_t *next;           /* the pool's: its place in a queue */
};

/* How a pool starts a thread: pthread_create's arguments and result, with
 * the ctx given to pool_init_spawning (for tests that make it fail). */
typedef int (*pool_spawn_fn)(void *ctx, pthread_t *thread, const pthread_attr_t *attr,
                             void *(*start)(void *), void *arg);

/* The pool's state; the fields but data are its own. It must stay where pool_init
 * put it until its close callback. */
struct pool {
    void *data;                 /* the caller's (pool_init clears it) */
    uv_loop_t *loop;
    uv_async_t finished;        /* wakes the loop when jobs have finished */
    pthread_mutex_t lock;       /* guards the queues, pending and stop */
    pthread_cond_t wake;        /* workers wait on it for jobs or the end */
    pool_job_t *todo, **todo_tail;   /* submitted, not yet started */
    pool_job_t *done, **done_tail;   /* finished, done() not yet run */
    size_t pending;             /* submitted, done() not yet run */
    int waiting;                /* workers waiting for a job */
    atomic_int spare;           /* waiting, or 0 while jobs are queued (pool_spare) */
    bool stop;                  /* closing: workers leave once nothing is pending */
    bool closing, closed;       /* loop thread only */
    pool_closed_fn on_closed;
    int nthreads;
    int start_error;            /* why the thread after the last one did not start, 0 = all did */
    pthread_t threads[POOL_MAX_THREADS];
};

/* Start a pool of `threads` threads (<= 0: one per core this process may
 * run on), at most POOL_MAX_THREADS, on `loop`. Returns 0, with as many
 * threads started as could be (pool_threads; pool_start_error says why
 * not more), or an errno: no thread could start, or the loop's wake-up
 * could not be set up; then nothing is left to close or free.
 * An idle pool does not keep the loop running; a pool with jobs pending
 * (submitted, their done() not yet run) does, as uv_queue_work's do. */
int pool_init(pool_t *p, uv_loop_t *loop, int threads);
/* The same, starting threads with spawn(ctx, ...) instead of pthread_create. */
int pool_init_spawning(pool_t *p, uv_loop_t *loop, int threads, pool_spawn_fn spawn, void *ctx);

/* Threads running, at least 1. */
static inline int pool_threads(const pool_t *p) { return p->nthreads; }
/* How many of the pool's threads have nothing to do now: a job's work()
 * may read it to take more threads of its own while they would idle
 * (a daemon's save, tfile.h). */
static inline const atomic_int *pool_spare(const pool_t *p) { return &p->spare; }
/* Why the pool has fewer threads than asked (pthread_create's errno), or 0. */
static inline int pool_start_error(const pool_t *p) { return p->start_error; }

/* Queue a job with its work and done set: its work() runs as soon as a
 * thread is free, then its done() on the loop. The job must stay valid
 * (and untouched) until its done() is called. Allowed before pool_close,
 * and after it from done() callbacks (a job they submit still runs). */
void pool_submit(pool_t *p, pool_job_t *job);

/* Close the pool: returns at once; every job submitted, queued or running,
 * still runs and gets its done() on the loop, and so do jobs those done()
 * callbacks submit meanwhile. Once nothing is pending, the threads are
 * joined and the loop's wake-up is closed; its close callback then calls
 * on_closed(p) (may be NULL), after which p may be freed. The caller keeps
 * the loop running until then: uv_run(loop, UV_RUN_DEFAULT) returns only
 * after it, when nothing else is active. Called once. */
void pool_close(pool_t *p, pool_closed_fn on_closed);

#endif
