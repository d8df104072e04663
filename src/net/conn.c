/* conn.c - the connection to the client, on libuv: resolve, connect with
 * retries, handshake, read the stream into the session, write its queries,
 * and stop in an orderly way on signals and limits. Nothing here decodes:
 * bytes go to session_feed(). */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jobdec.h"
#include "lookup.h"
#include "netdec.h"
#include "progress.h"
#include "proto.h"

#define RETRY_MS 10
/* Stop reading when this much received input is held in memory; resume
 * below a quarter of it. With a spool, input waiting for the decoder
 * leaves memory once spooled (netdec.c), so this is reached only when the
 * disk is slower than the wire or there is no spool: then the client waits
 * in the kernel's socket buffers, not in our memory. */
#define BACKLOG_HIGH (4u << 20)
/* ...and while netdec's thread writes a spool, which may fall behind the
 * wire by NETDEC_SPOOL_BEHIND before the page cache takes over from the
 * disk */
#define BACKLOG_HIGH_SPOOLING (NETDEC_KEEP_IN_MEMORY + NETDEC_SPOOL_BEHIND + (4u << 20))
#define FRAMES_PER_TURN 4
#define TICK_MS 100
#define HANDSHAKE_NOTICE_NS (5ULL * 1000000000ULL)
#define TERMINATE_WAIT_MS 2000

/* A spool that stopped being written is said at once, not only at the
 * end: a long capture should not go on believing it can be recovered. */
static void warn_spool_failure(capture_t *c)
{
    if (c->spool_warned || (!c->dec && !c->jobs) || (c->jobs && jobdec_running(c->jobs))) return;
    const int err = c->jobs ? c->spool.err : netdec_spool_error(c->dec);
    if (!err) return;
    c->spool_warned = true;
    diag_warn("the spool %s could not be written (%s): capturing goes on without it (it is given up, so a "
              "capture killed from now on cannot be recovered)", c->spool.path, spool_strerror(err));
}

static void finish(capture_t *c, outcome_t outcome);
static void on_stop_timer(uv_timer_t *t);
static void try_connect(capture_t *c);
static void on_retry(uv_timer_t *t);
static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);
static void start_resolve(capture_t *c);
static void close_for_retry(capture_t *c);
static void maybe_done(capture_t *c);

/* ---- the input waiting to be decoded, by netdec's threads or by jobs --------------------- */

/* Whether a job has the session now: then the loop leaves it alone. */
static bool session_busy(const capture_t *c)
{
    return c->jobs && jobdec_running(c->jobs);
}

/* Received bytes not yet decoded. */
static size_t input_backlog(capture_t *c)
{
    return c->jobs ? jobdec_backlog(c->jobs) : c->dec ? netdec_backlog(c->dec) : 0;
}

/* Of those, the bytes held in memory (what the reading bounds). */
static size_t input_in_memory(capture_t *c)
{
    return c->jobs ? jobdec_backlog(c->jobs) : c->dec ? netdec_in_memory(c->dec) : 0;
}

/* How much of it may be held before reading pauses. */
static size_t input_high(const capture_t *c)
{
    return c->dec && c->spool.fd >= 0 && !c->spool.abandoned ? BACKLOG_HIGH_SPOOLING : BACKLOG_HIGH;
}

uint64_t process_rss(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long size = 0, resident = 0;
    int n = fscanf(f, "%lu %lu", &size, &resident);
    fclose(f);
    return n == 2 ? (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

/* ---- writing queries -------------------------------------------------------------- */

/* The session's query sink: collect packets; flush_out() writes them. */
static void on_query_bytes(void *ctx, const uint8_t *p, size_t n)
{
    capture_t *c = ctx;
    bytes_put(&c->out, p, n);
}

static void on_written(uv_write_t *req, int status)
{
    (void)status;   /* a failed write shows up as a read error or EOF */
    free(req->data);
    free(req);
}

/* Queue bytes for the client. Returns 0, or a libuv error when they
 * cannot even be queued (the connection failed): cb is then not called. */
static int write_bytes(capture_t *c, const uint8_t *p, size_t n, uv_write_cb cb)
{
    if (!c->connected || n == 0) return cb ? UV_ENOTCONN : 0;
    uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
    if (!cb) {
        int w = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            if (n == 0) return 0;
        }
    }
    uv_write_t *req = xmalloc(sizeof *req);
    req->data = xmemdup(p, n);
    b = uv_buf_init(req->data, (unsigned)n);
    const int rc = uv_write(req, (uv_stream_t *)&c->tcp, &b, 1, cb ? cb : on_written);
    if (rc < 0) {
        free(req->data);
        free(req);
    }
    return rc;
}

static void flush_out(capture_t *c)
{
    (void)write_bytes(c, c->out.p, c->out.n, NULL);    /* a failure shows up as a read error */
    c->out.n = 0;
}

/* ---- closing -------------------------------------------------------------------------- */

/* Every handle of the capture closes through here, so that a host knows
 * when the capture's memory is its own again. */
static void on_handle_closed(uv_handle_t *h)
{
    capture_t *c = h->data;
    c->open_handles--;
    maybe_done(c);
}

static void close_handle(uv_handle_t *h)
{
    if (h->loop && !uv_is_closing(h)) uv_close(h, on_handle_closed);
}

static void close_all(capture_t *c)
{
    /* a lookup waiting for a slow resolver is left to finish alone */
    if (c->lookup) lookup_abandon(c->lookup);
    c->lookup = NULL;
    close_handle((uv_handle_t *)&c->retry_timer);
    close_handle((uv_handle_t *)&c->connect_timer);
    close_handle((uv_handle_t *)&c->stop_timer);
    close_handle((uv_handle_t *)&c->tick_timer);
    close_handle((uv_handle_t *)&c->decoded);
    for (int i = 0; i < 3; i++) close_handle((uv_handle_t *)&c->signals[i]);
    if (c->tcp_open) {
        close_handle((uv_handle_t *)&c->tcp);
        c->tcp_open = false;
    }
    c->connected = false;
}

static void on_terminate_written(uv_write_t *req, int status)
{
    capture_t *c = req->handle->data;
    on_written(req, status);
    close_all(c);
}

/* A client that reads nothing any more is not waited for long. */
static void on_terminate_timeout(uv_timer_t *t)
{
    close_all(t->data);
}

/* End the connection: say Terminate when the client expects it (waiting
 * at most TERMINATE_WAIT_MS for it to go out, or until the next signal),
 * close. */
static void finish(capture_t *c, outcome_t outcome)
{
    if (c->finishing) return;
    if (session_busy(c)) {
        /* after the job (on_job_done); nothing more is read meanwhile */
        if (c->finish_pending == OUT_NONE || outcome == OUT_ABORTED) c->finish_pending = outcome;
        if (c->tcp_open) uv_read_stop((uv_stream_t *)&c->tcp);
        return;
    }
    c->finishing = true;
    /* saving at once: what is still queued is only spooled */
    if (c->jobs && (outcome == OUT_ABORTED || c->save_at_once)) c->input_dropped = jobdec_drop(c->jobs) > 0;
    c->outcome = outcome;
    c->t_end = uv_hrtime();
    if (c->tcp_open) uv_read_stop((uv_stream_t *)&c->tcp);
    const bool polite = c->connected && !c->read_failed && c->session.state != SESSION_HANDSHAKE &&
                        c->session.state != SESSION_REJECTED && outcome != OUT_CLIENT_GONE;
    if (polite) {
        flush_out(c);
        uint8_t pkt[PROTO_QUERY_PACKET_SIZE];
        query_encode(pkt, SQ_TERMINATE, 0, 0);
        if (write_bytes(c, pkt, sizeof pkt, on_terminate_written) == 0) {
            uv_timer_stop(&c->retry_timer);
            uv_timer_stop(&c->connect_timer);
            uv_timer_stop(&c->tick_timer);
            uv_timer_start(&c->stop_timer, on_terminate_timeout, TERMINATE_WAIT_MS, 0);
            return;
        }
    }
    close_all(c);
}

/* ---- what the capture cannot run without ------------------------------------------------ */

/* The errno of a libuv error that says this process or machine is short
 * of something (descriptors, memory, buffers), or 0. Such an error is no
 * client missing yet: retrying it would only wait forever. */
static int shortage_errno(int uverr)
{
    if (uverr == UV_EAI_MEMORY) return ENOMEM;
    return uverr < 0 && is_shortage(-uverr) ? -uverr : 0;   /* libuv's errors are -errno on Unix */
}

/* Whether n descriptors are free (nothing else opens any meanwhile, so
 * they stay free for what follows). Returns 0, or the errno of the
 * shortage. */
#define FREE_CHECK_MAX 8

static int check_free_descriptors(int n)
{
    int fds[FREE_CHECK_MAX], got = 0, err = 0;
    while (got < n && got < FREE_CHECK_MAX && !err) {
        fds[got] = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fds[got] < 0) err = errno;
        else got++;
    }
    while (got > 0) close(fds[--got]);
    return err;
}

/* End the capture: `what` cannot be had, for the reason errno `err` says
 * (with the limit that explains it). */
static void cannot_run(capture_t *c, const char *what, int err)
{
    char why[160];
    snprintf(c->start_error, sizeof c->start_error, "%s: %s", what, strerror_limit(err, why, sizeof why));
    finish(c, OUT_CANNOT_RUN);
}

static void cannot_look_up(capture_t *c, int err)
{
    char what[256];
    snprintf(what, sizeof what, "cannot look up the address %.200s", c->opts->address);
    cannot_run(c, what, err);
}

/* A failed libuv call during set-up: say what, and end the capture.
 * Returns whether it failed. */
static bool setup_failed(capture_t *c, int uverr, const char *what)
{
    if (uverr >= 0) return false;
    const int err = shortage_errno(uverr);
    if (err) {
        cannot_run(c, what, err);
    } else {
        snprintf(c->start_error, sizeof c->start_error, "%s: %s", what, uv_strerror(uverr));
        finish(c, OUT_CANNOT_RUN);
    }
    return true;
}

/* The decoder thread, and the spool's, once the welcome is in. Returns
 * false (the capture ends) when the decoder cannot start; a spool whose
 * thread cannot start is given up, and the capture goes on without it. */
static bool start_decoding(capture_t *c);

/* ---- reading ---------------------------------------------------------------------------- */

/* The handshake we send: the shibboleth and the protocol offered. */
static void handshake_bytes(const capture_t *c, uint8_t out[PROTO_SHIBBOLETH_SIZE + 4])
{
    memcpy(out, PROTO_SHIBBOLETH, PROTO_SHIBBOLETH_SIZE);
    const uint32_t version = c->offer->version;
    memcpy(out + PROTO_SHIBBOLETH_SIZE, &version, 4);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    capture_t *c = h->data;
    (void)suggested;
    if (c->decoding && c->jobs) {   /* straight into the jobs' queue */
        *buf = uv_buf_init((char *)jobdec_space(c->jobs, c->rxcap), (unsigned)c->rxcap);
        return;
    }
    if (!c->rxbuf) c->rxbuf = xmalloc(c->rxcap);   /* the last one went to the decoder */
    *buf = uv_buf_init((char *)c->rxbuf, (unsigned)c->rxcap);
}

static void on_welcome(capture_t *c)
{
    /* Upstream sizes its query window from the connected socket's send
     * buffer once the welcome is in. */
    uv_os_fd_t fd;
    int sndbuf = 0;
    socklen_t len = sizeof sndbuf;
    if (uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0 &&
        getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) == 0 && sndbuf > 0)
        session_set_query_space(&c->session, query_space_for_sndbuf((size_t)sndbuf));
    uv_timer_stop(&c->connect_timer);
    /* -s counts from here, as upstream's does: the time waiting for the
     * program to appear is not part of the capture */
    if (c->opts->seconds >= 0)
        uv_timer_start(&c->stop_timer, on_stop_timer, (uint64_t)(c->opts->seconds * 1000), 0);
    if (!c->opts->quiet) progress_connected(c);
    if (c->hooks && c->hooks->welcomed) c->hooks->welcomed(c);
}

outcome_t capture_outcome(const capture_t *c, bool input_ended)
{
    const session_t *s = &c->session;
    switch (s->state) {
    case SESSION_REJECTED:
        return s->status == HS_PROTOCOL_MISMATCH ? OUT_MISMATCH
               : s->status == HS_NOT_AVAILABLE   ? OUT_NOT_AVAILABLE
                                                 : OUT_NOT_TRACY;
    case SESSION_COMPLETE: return c->stop_requested ? OUT_STOPPED : OUT_COMPLETE;
    case SESSION_BROKEN: return OUT_BROKEN;
    case SESSION_HANDSHAKE: return input_ended ? OUT_DROPPED : OUT_NONE;
    case SESSION_STREAMING:
        if (!input_ended) return OUT_NONE;
        if (s->model.terminate && !session_waiting(s, NULL, 0)) return OUT_COMPLETE;
        return c->stop_requested ? OUT_STOPPED : OUT_CLIENT_GONE;
    }
    return OUT_NONE;
}

/* After the session changed state, end the connection if it is over. */
static void settle(capture_t *c)
{
    const outcome_t o = capture_outcome(c, false);
    if (o != OUT_NONE) finish(c, o);
}

#define SILENT_DROP_RETRY_MS 100

/* A connection accepted and closed before a single byte came: what an adb
 * forward does while no program listens on the device. With
 * --connect-timeout the user asked to wait for the program, and a host
 * (the daemon's -a) waits for it in any case: try again. */
static bool retry_silent_drop(capture_t *c)
{
    if ((c->opts->connect_timeout < 0 && !c->hooks) || c->stop_requested || c->session.state != SESSION_HANDSHAKE ||
        c->rx_bytes != 0)
        return false;
    if (c->silent_drops++ == 0 && !c->opts->quiet) {
        progress_clear(c);
        diag_note("the connection to %s was accepted and closed without an answer (an adb forward with no "
                  "program behind it yet?); trying again until --connect-timeout", c->opts->address);
    }
    c->connected = false;
    c->read_failed = false;
    c->stop_reason[0] = '\0';     /* a reset's reason is not the session's */
    close_for_retry(c);
    return true;
}

/* The input ended (EOF or a read error) and every frame before it is in. */
static void on_input_end(capture_t *c)
{
    if (!c->decoding && retry_silent_drop(c)) return;
    finish(c, capture_outcome(c, true));
}

/* Read again once the input held in memory has shrunk (woken by the
 * decoder and spool threads, and checked on every tick). */
static void resume_reading(capture_t *c)
{
    if (c->reading_paused && !c->finishing && c->finish_pending == OUT_NONE &&
        input_in_memory(c) < input_high(c) / 4) {
        c->reading_paused = false;
        uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    }
}

/* A decoded frame into the model; its buffer back to the decoder. */
/* After frames went into the model: when the client ended its session,
 * when an answer last came (for the end wait). */
static void note_decoded(capture_t *c)
{
    if (c->session.model.terminate && !c->t_terminated) c->t_terminated = uv_hrtime();
    if (c->session.queries.answered != c->answers_seen) {
        c->answers_seen = c->session.queries.answered;
        c->t_last_answer = uv_hrtime();
    }
}

static void feed_decoded(capture_t *c, const netdec_item_t *it)
{
    session_feed_frame(&c->session, it->data, it->n, it->frame_no, it->offset, it->numbered);
    netdec_release(c->dec, it);
    note_decoded(c);
}

/* The decoder met a bad frame: the session is broken there. */
static void mark_broken(capture_t *c)
{
    snprintf(c->session.err, sizeof c->session.err, "%s", netdec_error(c->dec));
    c->session.state = SESSION_BROKEN;
}

/* The decoder thread has frames: process them in order, a few at a time,
 * so that the loop reads the socket in between and the client is drained
 * at the pace of the wire, not of the model. */
static void on_decoded(uv_async_t *h)
{
    capture_t *c = h->data;
    netdec_item_t it;
    int budget = FRAMES_PER_TURN;
    while (!c->finishing && budget > 0 && netdec_pop(c->dec, &it)) {
        budget--;
        switch (it.kind) {
        case NETDEC_FRAME:
            feed_decoded(c, &it);
            flush_out(c);
            settle(c);
            break;
        case NETDEC_ERROR:
            mark_broken(c);
            finish(c, OUT_BROKEN);
            break;
        case NETDEC_END:
            on_input_end(c);
            break;
        }
    }
    if (budget == 0 && !c->finishing) uv_async_send(&c->decoded);   /* more may wait: come back after polling */
    resume_reading(c);
}

/* Called on the decoder thread. */
static void notify_decoded(void *ctx)
{
    capture_t *c = ctx;
    uv_async_send(&c->decoded);
}

/* The spool of a session begins with the 12 bytes we offered (so that
 * --recover knows its protocol), then every byte the client sent from its
 * Welcome status on; a refused handshake spools nothing. */
static void spool_handshake(capture_t *c, const uint8_t *p, size_t n)
{
    if (c->session.state == SESSION_REJECTED || n == 0) return;
    if (!c->spool_prefixed) {
        uint8_t hs[PROTO_SHIBBOLETH_SIZE + 4];
        handshake_bytes(c, hs);
        spool_write(&c->spool, hs, sizeof hs);
        c->spool_prefixed = true;
    }
    spool_write(&c->spool, p, n);
}

/* A host opens the spool once the welcome names the client (its welcomed
 * hook), so the handshake bytes go in then: the same bytes as
 * spool_handshake's, from the session's copy of them. */
static void spool_welcome(capture_t *c)
{
    if (c->spool.fd < 0) return;
    uint8_t hs[PROTO_SHIBBOLETH_SIZE + 4];
    handshake_bytes(c, hs);
    spool_write(&c->spool, hs, sizeof hs);
    spool_write(&c->spool, &c->session.status, 1);
    spool_write(&c->spool, c->session.welcome, c->session.need);
    c->spool_prefixed = true;
}

/* The client refused the protocol offered: without --protocol, offer the
 * next older one on a new connection at once (a refusing client listens
 * again right away). The search counts against --connect-timeout and ends
 * with the oldest protocol, so it cannot go on for ever. Returns whether a
 * new connection is under way. */
static bool offer_older_protocol(capture_t *c)
{
    session_t *s = &c->session;
    if (s->state != SESSION_REJECTED || s->status != HS_PROTOCOL_MISMATCH || c->opts->protocol ||
        c->stop_requested)
        return false;
    const proto_desc_t *next = proto_older(c->offer);
    if (!next) return false;
    session_free(s);
    c->offer = next;
    session_init(s, next, on_query_bytes, c);
    c->rx_bytes = 0;
    c->connected = false;
    c->read_failed = false;
    c->addr_next = c->addr_now;    /* the same address again */
    uv_read_stop((uv_stream_t *)&c->tcp);
    close_for_retry(c);
    return true;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    capture_t *c = s->data;
    (void)buf;
    if (nread < 0) {
        if (nread != UV_EOF && !c->stop_requested)   /* a stop keeps its own reason */
            snprintf(c->stop_reason, sizeof c->stop_reason, "%s", uv_strerror((int)nread));
        c->read_failed = nread != UV_EOF;   /* a reset: nothing can be written either */
        uv_read_stop(s);
        if (c->dec) netdec_end(c->dec);   /* the rest comes as the END item */
        else if (c->jobs && input_backlog(c)) c->input_over = true;   /* on_job_done, once decoded */
        else on_input_end(c);
        return;
    }
    if (nread == 0) return;
    c->t_last_rx = uv_hrtime();
    c->rx_bytes += (uint64_t)nread;
    const uint8_t *p = (const uint8_t *)buf->base;
    size_t n = (size_t)nread;
    if (c->jobs && p != c->rxbuf) {
        jobdec_commit(c->jobs, n);      /* read into the queue (on_alloc) */
        n = 0;
    } else if (!c->decoding) {
        const size_t used = session_feed_handshake(&c->session, p, n);
        if (!c->hooks) spool_handshake(c, p, used);
        p += used;
        n -= used;
        if (c->session.state != SESSION_STREAMING) {
            if (!offer_older_protocol(c)) settle(c);
            return;
        }
        on_welcome(c);
        if (c->hooks) spool_welcome(c);
        if (!start_decoding(c)) return;
    }
    if (c->jobs) {
        if (n) jobdec_push(c->jobs, p, n);
    } else if (p == c->rxbuf && n >= c->rxcap / 4) {
        netdec_push_owned(c->dec, c->rxbuf, n, c->rxcap);   /* a big read: no copy */
        c->rxbuf = NULL;
    } else {
        netdec_push(c->dec, p, n);
    }
    if (input_in_memory(c) > input_high(c)) {
        c->reading_paused = true;
        uv_read_stop(s);
    }
}

/* A job decoded what was queued (on the loop thread): as on_decoded does
 * for netdec's frames, and what waited for the session to be free. */
static void on_job_done(jobdec_t *d, void *ctx)
{
    capture_t *c = ctx;
    (void)d;
    note_decoded(c);
    if (c->finishing) {            /* the input left after the connection, decoded */
        if (c->session.state == SESSION_BROKEN && c->outcome != OUT_ABORTED) c->outcome = OUT_BROKEN;
        if (!jobdec_continue(c->jobs)) maybe_done(c);
        return;
    }
    flush_out(c);
    if (c->finish_pending != OUT_NONE) {
        const outcome_t o = c->finish_pending;
        c->finish_pending = OUT_NONE;
        finish(c, o);
        if (!jobdec_continue(c->jobs)) maybe_done(c);
        return;
    }
    if (c->stop_pending) {
        c->stop_pending = false;
        conn_request_stop(c, c->pending_reason);
    }
    settle(c);
    if (!c->finishing && c->input_over && input_backlog(c) == 0) on_input_end(c);
    if (c->finishing) {
        if (!jobdec_continue(c->jobs)) maybe_done(c);
        return;
    }
    jobdec_continue(c->jobs);
    resume_reading(c);
}

static bool start_decoding(capture_t *c)
{
    c->decoding = true;
    if (c->pool) {
        /* the daemon's: jobs on its pool, the spool written by them */
        c->jobs = xmalloc(sizeof *c->jobs);
        jobdec_init(c->jobs, c->pool, &c->session, c->spool.fd >= 0 ? &c->spool : NULL, on_job_done, c);
        return true;
    }
    int err;
    c->dec = netdec_start(session_frames_offset(&c->session), c->session.desc, notify_decoded, c, &err);
    if (!c->dec) {
        cannot_run(c, "cannot start the decoder thread", err);
        return false;
    }
    err = netdec_spool(c->dec, &c->spool);
    if (err) {
        char why[160];
        diag_warn("cannot start the thread that writes the spool %s: %s; capturing goes on without the spool "
                  "(a capture killed from now on cannot be recovered)", c->spool.path,
                  strerror_limit(err, why, sizeof why));
        spool_remove(&c->spool);
        c->spool_warned = true;
    }
    warn_spool_failure(c);      /* it may have failed on the handshake */
    /* Memory for the zone logs is prepared on a thread of its own (if it
     * cannot start, the model allocates its own). */
    c->session.model.chunk_pool = chunkpool_new(ZLOG_POOL_CHUNK, 8);
    (void)chunkpool_start(c->session.model.chunk_pool);
    return true;
}

/* ---- connecting -------------------------------------------------------------------------- */

/* The socket of a failed attempt is closed; then try the next address, or
 * after the last one start over in 10 ms (upstream's pace). */
static void on_closed_for_retry(uv_handle_t *h)
{
    capture_t *c = h->data;
    c->tcp_open = false;
    c->open_handles--;
    if (c->finishing) {
        maybe_done(c);
        return;
    }
    if (c->addr_next) {
        try_connect(c);
        return;
    }
    c->addr_next = c->addrs;
    uv_timer_start(&c->retry_timer, on_retry, c->silent_drops ? SILENT_DROP_RETRY_MS : RETRY_MS, 0);
}

static void close_for_retry(capture_t *c)
{
    uv_close((uv_handle_t *)&c->tcp, on_closed_for_retry);
}

/* A connection attempt short of something: our own descriptors (EMFILE)
 * will not come back while we wait, so the capture cannot run; the
 * machine's (ENFILE, kernel memory) may, so the attempt is tried again,
 * said once. Returns whether the capture ended. */
static bool connect_short_of(capture_t *c, const char *what, int uverr)
{
    const int err = shortage_errno(uverr);
    if (err == EMFILE) {
        cannot_run(c, what, err);
        return true;
    }
    if (!c->shortage_warned) {
        c->shortage_warned = true;
        progress_clear(c);
        diag_warn("%s: %s; trying again", what, strerror(err));
    }
    return false;
}

static void on_connected(uv_connect_t *req, int status)
{
    capture_t *c = req->data;
    if (c->finishing) return;
    if (shortage_errno(status) && connect_short_of(c, "cannot connect", status)) return;
    if (status < 0) {
        snprintf(c->connect_error, sizeof c->connect_error, "%s", uv_strerror(status));
        close_for_retry(c);
        return;
    }
    c->connected = true;
    c->t_connected = uv_hrtime();
    uv_tcp_nodelay(&c->tcp, 1);
    uint8_t hs[PROTO_SHIBBOLETH_SIZE + 4];
    handshake_bytes(c, hs);
    write_bytes(c, hs, sizeof hs, NULL);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void on_retry(uv_timer_t *t)
{
    capture_t *c = t->data;
    if (c->finishing) return;
    if (c->addrs) try_connect(c);
    else start_resolve(c);
}

static void try_connect(capture_t *c)
{
    struct addrinfo *ai = c->addr_next;
    c->addr_now = ai;
    c->addr_next = ai->ai_next;
    c->connect_attempts++;
    if (setup_failed(c, uv_tcp_init(c->loop, &c->tcp), "cannot set up the connection")) return;
    c->tcp.data = c;
    c->tcp_open = true;
    c->open_handles++;
    c->connect_req.data = c;
    int rc = uv_tcp_connect(&c->connect_req, &c->tcp, ai->ai_addr, on_connected);
    if (shortage_errno(rc) && connect_short_of(c, "cannot create the connection's socket", rc)) return;
    if (rc < 0) {
        snprintf(c->connect_error, sizeof c->connect_error, "%s", uv_strerror(rc));
        close_for_retry(c);
    }
}

/* The errno of a shortage a failed lookup says, or 0. */
static int lookup_shortage(int status, int sys_errno)
{
    if (status == EAI_MEMORY) return ENOMEM;
    if (status != EAI_SYSTEM) return 0;
    return is_shortage(sys_errno) ? sys_errno : 0;
}

static void on_resolved(void *ctx, int status, int sys_errno, struct addrinfo *res)
{
    capture_t *c = ctx;
    c->lookup = NULL;
    if (c->finishing) {
        if (res) freeaddrinfo(res);
        return;
    }
    /* the C library says a name it could not look up for want of a
     * descriptor (for /etc/hosts) is unknown */
    const int short_of = lookup_shortage(status, sys_errno) ? lookup_shortage(status, sys_errno)
                         : status != 0                      ? check_free_descriptors(1)
                                                            : 0;
    if (short_of) {
        cannot_look_up(c, short_of);
        return;
    }
    if (status != 0) {
        snprintf(c->connect_error, sizeof c->connect_error, "%s",
                 status == EAI_SYSTEM ? strerror(sys_errno) : gai_strerror(status));
        if (status == EAI_AGAIN) {
            /* Temporary failure: try again in a second. */
            uv_timer_start(&c->retry_timer, on_retry, 1000, 0);
            return;
        }
        finish(c, OUT_RESOLVE_FAILED);
        return;
    }
    c->addrs = c->addr_next = res;
    try_connect(c);
}

/* A numeric address needs no lookup, so no thread of libuv's pool (which
 * ends the process when it cannot start one, as under ulimit -v): it is
 * converted here. Returns whether it was numeric. */
static bool resolve_numeric(capture_t *c)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV };
    struct addrinfo *res = NULL;
    if (getaddrinfo(c->opts->address, c->opts->port, &hints, &res) != 0 || !res) return false;
    c->addrs = c->addr_next = res;
    try_connect(c);
    return true;
}

static void start_resolve(capture_t *c)
{
    if (resolve_numeric(c)) return;
    int err;
    c->lookup = lookup_start(c->loop, c->opts->address, c->opts->port, on_resolved, c, &err);
    if (!c->lookup) cannot_run(c, "cannot start the address lookup", err);
}

/* ---- timers and signals ------------------------------------------------------------------ */

/* Begin the orderly end: ask the client to disconnect and wait (bounded)
 * for what it still sends. */
void conn_request_stop(capture_t *c, const char *why)
{
    if (c->stop_requested || c->finishing) return;
    if (session_busy(c)) {          /* after the job (on_job_done) */
        if (!c->stop_pending) snprintf(c->pending_reason, sizeof c->pending_reason, "%s", why);
        c->stop_pending = true;
        return;
    }
    c->stop_requested = true;
    snprintf(c->stop_reason, sizeof c->stop_reason, "%s", why);
    if (c->session.state != SESSION_STREAMING) {
        finish(c, OUT_INTERRUPTED);
        return;
    }
    c->t_last_rx = c->t_stop = uv_hrtime();
    session_request_disconnect(&c->session);
    flush_out(c);
}

void conn_abort(capture_t *c)
{
    if (c->finishing) {         /* only the Terminate is still going out */
        close_all(c);
        return;
    }
    spool_stop_waiting(&c->spool);  /* nor for a FIFO spool's reader */
    finish(c, OUT_ABORTED);
}

static void on_signal(uv_signal_t *h, int signum)
{
    capture_t *c = h->data;
    if (c->finishing) {
        conn_abort(c);
        return;
    }
    if (++c->signal_count == 1) {
        conn_request_stop(c, signum == SIGINT ? "interrupted" : signum == SIGTERM ? "terminated" : "hung up");
        if (!c->opts->quiet && c->session.state == SESSION_STREAMING) progress_stopping(c);
    } else {
        conn_abort(c);
    }
}

/* Past -m, nothing more is taken in: the capture ends at once, and input
 * received but not yet decoded (with a spool, possibly the rest of the
 * whole stream) is left out, kept in the spool (main.c says so). */
static void stop_at_memory_limit(capture_t *c)
{
    conn_request_stop(c, "memory limit reached");
    if (c->finishing) return;       /* before streaming, the stop ended it */
    c->save_at_once = true;
    finish(c, OUT_STOPPED);
}

static void on_stop_timer(uv_timer_t *t)
{
    conn_request_stop(t->data, "time limit reached");
}

/* Connected, and the handshake unanswered for long enough to say so:
 * 5 s, or half of --connect-timeout, and past the moments a dropped
 * connection that is being tried again spends open. */
static bool handshake_unanswered(const capture_t *c, uint64_t now)
{
    uint64_t notice_ns = HANDSHAKE_NOTICE_NS;
    if (c->opts->connect_timeout >= 0 && c->opts->connect_timeout * 0.5e9 < (double)notice_ns)
        notice_ns = (uint64_t)(c->opts->connect_timeout * 0.5e9);
    return c->connected && c->session.state == SESSION_HANDSHAKE && now - c->t_connected > notice_ns;
}

static void on_connect_timeout(uv_timer_t *t)
{
    capture_t *c = t->data;
    if (c->session.state != SESSION_HANDSHAKE) return;
    c->handshake_unanswered = handshake_unanswered(c, uv_hrtime());
    finish(c, OUT_CONNECT_TIMEOUT);
}

/* The end wait is bounded three ways (c->end_wait says which ended it):
 * --end-timeout without an answer to a query (KeepAlives and other events
 * are no answer), counted once no input is left to decode (the answers
 * may be in it); --end-timeout in all after our own stop request (a
 * client that keeps streaming instead of ending must not keep us); and
 * END_WAIT_TERMINATE_FACTOR times that after the client's own Terminate,
 * however the answers trickle in. Input received by then is still decoded
 * (drain_decoder). */
static bool end_wait_over(capture_t *c, uint64_t now)
{
    if (c->session.state != SESSION_STREAMING || !(c->stop_requested || c->t_terminated)) return false;
    const uint64_t limit = (uint64_t)(c->opts->end_timeout * 1e9);
    uint64_t began = c->t_terminated;
    if (c->stop_requested && (!began || c->t_stop < began)) began = c->t_stop;
    const uint64_t since = c->t_last_answer > began ? c->t_last_answer : began;
    const bool drained = input_backlog(c) == 0;
    c->end_wait = c->stop_requested && now - c->t_stop > limit ? END_WAIT_AFTER_STOP
                  : c->t_terminated && now - c->t_terminated > limit * END_WAIT_TERMINATE_FACTOR
                      ? END_WAIT_AFTER_TERMINATE
                      : END_WAIT_NO_ANSWER;
    return c->end_wait != END_WAIT_NO_ANSWER || (drained && now - since > limit);
}

/* Every 100 ms: memory limit, the bounded end wait, progress. */
static void on_tick(uv_timer_t *t)
{
    capture_t *c = t->data;
    const uint64_t now = uv_hrtime();
    if (session_busy(c)) return;    /* the job has the session: next tick */
    /* -m: the process's memory, or on a host with many clients each one's
     * own (its model, and the input it holds) */
    uint64_t rss = process_rss();
    if (rss > c->peak_rss) c->peak_rss = rss;
    const uint64_t used = c->hooks ? model_memory(&c->session.model) + input_in_memory(c) : rss;
    c->mem_now = used;
    if (c->hooks && used > c->peak_mem) c->peak_mem = used;
    if (c->mem_limit_bytes > 0 && (int64_t)used > c->mem_limit_bytes) stop_at_memory_limit(c);

    if (end_wait_over(c, now)) {
        session_waiting(&c->session, c->gave_up_on, sizeof c->gave_up_on);
        finish(c, OUT_GAVE_UP);
        return;
    }
    /* the note comes in time to be read before --connect-timeout ends it */
    if (!c->handshake_notice && handshake_unanswered(c, now)) {
        c->handshake_notice = true;
        if (!c->opts->quiet) progress_handshake_wait(c);
    }
    if (c->tty && !c->opts->quiet && c->session.state == SESSION_STREAMING) progress_update(c);
    warn_spool_failure(c);
    resume_reading(c);
}

/* Saving at once (a second signal) leaves out what was received but not
 * yet taken from the decoder; the spool still has it (main.c keeps it). */
static void note_dropped_input(capture_t *c)
{
    c->input_dropped = netdec_backlog(c->dec) > 0;
    netdec_item_t it;
    while (netdec_pop(c->dec, &it)) {
        if (it.kind != NETDEC_FRAME) continue;
        c->input_dropped = true;
        netdec_release(c->dec, &it);
    }
}

static volatile sig_atomic_t drain_stop;   /* a signal came while draining */

static void on_drain_signal(int signum)
{
    (void)signum;
    drain_stop = 1;
}

/* After the connection: decode what was received and not yet decoded
 * (with a spool, that may be much), unless the user asked to save at once. */
static void drain_decoder(capture_t *c)
{
    /* The loop's signal handles are gone: a signal now stops the draining
     * and saves what is in, as a second signal would have. */
    struct sigaction sa = { .sa_handler = on_drain_signal };
    sigemptyset(&sa.sa_mask);
    const int signums[3] = { SIGINT, SIGTERM, SIGHUP };
    for (int i = 0; i < 3; i++) sigaction(signums[i], &sa, NULL);
    netdec_end(c->dec);
    const bool show = c->tty && !c->opts->quiet;
    const uint64_t total = netdec_backlog(c->dec);
    netdec_item_t it;
    while (!drain_stop && netdec_pop_wait(c->dec, &it)) {
        if (it.kind == NETDEC_FRAME) {
            feed_decoded(c, &it);
            if (show && total >= (1u << 20)) progress_decoding(c, "what was received", netdec_backlog(c->dec), total);
        } else if (it.kind == NETDEC_ERROR && c->session.state == SESSION_STREAMING) {
            mark_broken(c);
            c->outcome = OUT_BROKEN;
        }
    }
    if (drain_stop) {
        spool_stop_waiting(&c->spool);
        note_dropped_input(c);
        c->outcome = OUT_ABORTED;
        return;
    }
    /* the end the wait gave up on may have been in that input */
    const session_t *s = &c->session;
    if (c->outcome == OUT_GAVE_UP &&
        (s->state == SESSION_COMPLETE || (s->model.terminate && !session_waiting(s, NULL, 0))))
        c->outcome = capture_outcome(c, true);
}

/* The descriptors libuv's first loop takes before any it could fail
 * without harm: the loop's epoll descriptor, then the pipe libuv makes
 * once per process for its signal handling, whose failure aborts the
 * process (libuv 1.44: uv__signal_global_init, 3 in all); later releases
 * may open io_uring's first, hence the margin. */
#define LOOP_FIRST_DESCRIPTORS 6

/* The capture's own loop (conn_run); false (the reason in
 * c->start_error, c->outcome OUT_CANNOT_RUN) if it cannot be had. */
static bool setup_own_loop(capture_t *c)
{
    const int err = check_free_descriptors(LOOP_FIRST_DESCRIPTORS);
    if (err) {
        char why[160];
        snprintf(c->start_error, sizeof c->start_error, "cannot set up the event loop: %s",
                 strerror_limit(err, why, sizeof why));
        c->outcome = OUT_CANNOT_RUN;
        return false;
    }
    const int rc = uv_loop_init(&c->loop_store);
    if (rc < 0) {
        setup_failed(c, rc, "cannot set up the event loop");   /* (finish() touches no handle yet) */
        return false;
    }
    c->loop = &c->loop_store;
    return true;
}

/* Count a handle that was set up (closed through close_handle). */
static bool handle_failed(capture_t *c, int uverr, uv_handle_t *h, const char *what)
{
    if (setup_failed(c, uverr, what)) return true;
    h->data = c;
    c->open_handles++;
    return false;
}

/* Every handle of the loop the capture uses; false (the reason in
 * c->start_error, c->outcome OUT_CANNOT_RUN) if any cannot be had. With
 * `signals`, it also handles SIGINT, SIGTERM and SIGHUP. */
static bool setup_handles(capture_t *c, bool signals)
{
    if (handle_failed(c, uv_async_init(c->loop, &c->decoded, on_decoded), (uv_handle_t *)&c->decoded,
                      "cannot set up the event loop's wake-up"))
        return false;
    uv_timer_t *timers[] = { &c->retry_timer, &c->connect_timer, &c->stop_timer, &c->tick_timer };
    for (size_t i = 0; i < 4; i++)
        if (handle_failed(c, uv_timer_init(c->loop, timers[i]), (uv_handle_t *)timers[i], "cannot set up a timer"))
            return false;
    const int signums[3] = { SIGINT, SIGTERM, SIGHUP };
    for (int i = 0; signals && i < 3; i++) {
        if (handle_failed(c, uv_signal_init(c->loop, &c->signals[i]), (uv_handle_t *)&c->signals[i],
                          "cannot set up the signal handling"))
            return false;
        if (setup_failed(c, uv_signal_start(&c->signals[i], on_signal, signums[i]), "cannot set up the signal handling"))
            return false;
    }
    if (c->opts->connect_timeout >= 0)
        uv_timer_start(&c->connect_timer, on_connect_timeout, (uint64_t)(c->opts->connect_timeout * 1000), 0);
    uv_timer_start(&c->tick_timer, on_tick, TICK_MS, TICK_MS);
    return true;
}

/* What either way of running a capture sets up first. */
static void begin(capture_t *c)
{
    c->rxcap = 256u << 10;
    c->rxbuf = xmalloc(c->rxcap);
    c->t_start = c->t_last_rx = uv_hrtime();
    c->offer = c->opts->protocol ? c->opts->protocol : proto_all[0];
    session_init(&c->session, c->offer, on_query_bytes, c);
}

/* What either way frees once the connection is over and the input
 * decoded. */
static void end(capture_t *c)
{
    /* No zone log grows any more: give the prepared chunks back. */
    model_drop_chunk_pool(&c->session.model);
    if (c->addrs) freeaddrinfo(c->addrs);
    c->addrs = NULL;
    free(c->rxbuf);
    c->rxbuf = NULL;
    bytes_free(&c->out);
    uint64_t rss = process_rss();
    if (rss > c->peak_rss) c->peak_rss = rss;
}

void conn_run(capture_t *c)
{
    begin(c);
    if (!setup_own_loop(c)) {
        free(c->rxbuf);
        c->rxbuf = NULL;
        return;
    }
    if (setup_handles(c, true) && !c->finishing) start_resolve(c);
    uv_run(c->loop, UV_RUN_DEFAULT);
    if (c->dec) {
        if (c->outcome != OUT_ABORTED && !c->save_at_once) drain_decoder(c);
        else note_dropped_input(c);
        c->t_end = uv_hrtime();     /* the elapsed time includes that decoding */
        netdec_stats(c->dec, &c->frames, &c->compressed, &c->decompressed);
        c->partial_frame = netdec_partial(c->dec);
        netdec_stop(c->dec);
        c->dec = NULL;
    }
    end(c);
    uv_loop_close(c->loop);
}

/* A capture on a host's loop is over once its connection is closed,
 * every handle of it too, and no job decodes for it any more (the input
 * left after the connection is decoded first, unless saving at once). */
static void maybe_done(capture_t *c)
{
    if (!c->hooks || c->done_said || !c->finishing || c->open_handles > 0) return;
    if (c->jobs && (jobdec_running(c->jobs) || jobdec_backlog(c->jobs))) return;
    c->done_said = true;
    if (c->jobs) {
        const session_t *s = &c->session;
        /* the end the wait gave up on may have been in that input */
        if (c->outcome == OUT_GAVE_UP &&
            (s->state == SESSION_COMPLETE || (s->model.terminate && !session_waiting(s, NULL, 0))))
            c->outcome = capture_outcome(c, true);
        c->t_end = uv_hrtime();
        if (s->frames_ready) {
            c->frames = s->frames.frames;
            c->compressed = s->frames.compressed;
            c->decompressed = s->frames.decompressed;
            c->partial_frame = frame_partial(&s->frames);
        }
    }
    end(c);
    c->hooks->done(c);
}

void conn_start(capture_t *c, uv_loop_t *loop)
{
    c->loop = loop;
    begin(c);
    if (setup_handles(c, false) && !c->finishing) start_resolve(c);
    maybe_done(c);      /* it could not start */
}

void conn_tick(capture_t *c)
{
    if (!(c->jobs && jobdec_running(c->jobs))) spool_flush_stale(&c->spool, 1000);
}

void conn_free(capture_t *c)
{
    if (c->jobs) jobdec_free(c->jobs);
    free(c->jobs);
    c->jobs = NULL;
}
