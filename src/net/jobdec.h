/* jobdec.h - a client's stream decoded as jobs on a shared pool of threads,
 * the daemon's way of decoding many clients at once (tracy-capture's own
 * way is netdec.c: threads of its own for its one client).
 *
 * The connection queues the bytes it reads; one job at a time per client
 * appends them to the client's spool and feeds them to its session, a
 * megabyte of each in turn (frames,
 * LZ4, events, the model; the session's queries are collected by its sink).
 * While a job runs, the job owns the session: the loop thread touches it
 * only in the `after` callback, which runs on the loop once each job is
 * done, and whenever jobdec_running() is false. The next job starts when
 * input is pushed while none runs, or when `after` calls jobdec_continue
 * (the callback may free the jobdec instead: jobdec touches nothing after
 * it). */
#ifndef TC_JOBDEC_H
#define TC_JOBDEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pool.h"
#include "session.h"
#include "spool.h"
#include "util.h"

typedef struct jobdec jobdec_t;
typedef void (*jobdec_after_fn)(jobdec_t *d, void *ctx);

struct jobdec {
    pool_job_t job;
    pool_t *pool;
    session_t *session;
    spool_t *spool;              /* fd -1: none */
    bytes_t queued;              /* received, waiting for the next job (the loop's) */
    bytes_t taken;               /* what the running job works on (the job's) */
    bool running;
    bool spool_only;             /* jobdec_drop: what is queued is only spooled */
    jobdec_after_fn after;
    void *ctx;
    uint64_t decoded;            /* bytes fed to the session so far */
};

void jobdec_init(jobdec_t *d, pool_t *pool, session_t *s, spool_t *spool, jobdec_after_fn after, void *ctx);
/* Queue received bytes (copied); a job starts if none runs. */
void jobdec_push(jobdec_t *d, const uint8_t *p, size_t n);
/* Room for `want` bytes at the queue's end, to read into without a copy
 * (valid until the next call on d)... */
uint8_t *jobdec_space(jobdec_t *d, size_t want);
/* ...and the n bytes read there queued, as jobdec_push does. */
void jobdec_commit(jobdec_t *d, size_t n);
/* Start a job on what was queued meanwhile, if anything was; returns
 * whether a job runs. */
bool jobdec_continue(jobdec_t *d);
/* Received bytes not yet fed to the session (queued or being decoded). */
static inline size_t jobdec_backlog(const jobdec_t *d) { return d->queued.n + d->taken.n; }
/* Whether a job runs now (then the session is the job's). */
static inline bool jobdec_running(const jobdec_t *d) { return d->running; }
/* Decode nothing more (saving at once): input queued from now on is only
 * spooled, so that the spool still holds every byte received. Returns the
 * bytes left undecoded so far. */
size_t jobdec_drop(jobdec_t *d);
/* Free the buffers (no job may run). */
void jobdec_free(jobdec_t *d);

#endif
