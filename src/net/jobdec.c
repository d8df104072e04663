/* jobdec.c - a client's stream decoded as jobs on a shared pool (see
 * jobdec.h). */
#include "jobdec.h"

#include <string.h>

/* On a pool thread: spool what was taken and decode it, a spool stage's
 * worth at a time, so that each full megabyte is on its way to the disk
 * (the io thread's) while the next is decoded: spooled all at once, a
 * batch of 4 MB would wait for each megabyte before it (in 8 clients'
 * runs, 1.1 s of the pool threads' 1.2 s idle). A session that is over
 * (broken, complete) takes no more; the spool still gets every byte
 * received. */
static void decode_work(pool_job_t *job)
{
    jobdec_t *d = (jobdec_t *)job;
    const bool spooling = d->spool && d->spool->fd >= 0;
    for (size_t off = 0; off < d->taken.n;) {
        const size_t k = d->taken.n - off < SPOOL_STAGE ? d->taken.n - off : SPOOL_STAGE;
        if (spooling) spool_write(d->spool, d->taken.p + off, k);
        if (!d->spool_only && d->session->state == SESSION_STREAMING) session_feed(d->session, d->taken.p + off, k);
        off += k;
    }
    if (!d->spool_only) d->decoded += d->taken.n;
}

static void submit(jobdec_t *d)
{
    /* swap the buffers: the job takes everything queued */
    bytes_t t = d->taken;
    d->taken = d->queued;
    d->queued = t;
    d->queued.n = 0;
    d->running = true;
    pool_submit(d->pool, &d->job);
}

/* On the loop thread, after each job: the owner's turn (it calls
 * jobdec_continue when it is done with the session). */
static void decode_done(pool_job_t *job)
{
    jobdec_t *d = (jobdec_t *)job;
    d->running = false;
    d->taken.n = 0;
    d->after(d, d->ctx);
}

bool jobdec_continue(jobdec_t *d)
{
    if (d->running || d->queued.n == 0) return d->running;
    submit(d);
    return true;
}

void jobdec_init(jobdec_t *d, pool_t *pool, session_t *s, spool_t *spool, jobdec_after_fn after, void *ctx)
{
    memset(d, 0, sizeof *d);
    d->pool = pool;
    d->session = s;
    d->spool = spool;
    d->after = after;
    d->ctx = ctx;
    d->job.work = decode_work;
    d->job.done = decode_done;
}

uint8_t *jobdec_space(jobdec_t *d, size_t want)
{
    bytes_reserve(&d->queued, want);
    return d->queued.p + d->queued.n;
}

void jobdec_commit(jobdec_t *d, size_t n)
{
    d->queued.n += n;
    if (!d->running) submit(d);
}

void jobdec_push(jobdec_t *d, const uint8_t *p, size_t n)
{
    if (n) memcpy(jobdec_space(d, n), p, n);
    jobdec_commit(d, n);
}

size_t jobdec_drop(jobdec_t *d)
{
    d->spool_only = true;
    return d->queued.n;
}

void jobdec_free(jobdec_t *d)
{
    bytes_free(&d->queued);
    bytes_free(&d->taken);
}
