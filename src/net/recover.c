/* recover.c - a capture read from a recorded client stream (see recover.h).
 *
 * The recording's first megabytes are read ahead (its head), to tell its
 * protocol (choose_protocol), and then fed first, so that a pipe works as
 * a file does. The handshake bytes go through the session directly; the
 * frames after them are decoded on netdec's thread, as a live capture's
 * are, so LZ4 and the model share the two cores the same way. */
#include "recover.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "infer.h"
#include "netdec.h"
#include "proto.h"
#include "protocols.h"
#include "progress.h"

#define READ_CHUNK (1u << 20)
#define BACKLOG_HIGH (8u << 20)   /* read ahead of the decoder at most this */
#define HEAD_SIZE (4u << 20)       /* read first, for the protocol of a bare recording */

/* The decoder thread's wake-ups, for the reading thread to sleep on. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool ready;
} wakeup_t;

typedef struct {
    capture_t *c;
    FILE *f;
    const char *path;
    uint8_t *buf;
    uint8_t *head;              /* the recording's first bytes, fed before the rest */
    size_t head_len, head_pos;
    netdec_t *dec;
    wakeup_t wake;
    bool input_done, ended, read_error;
    bool start_failed;          /* the decoder thread could not start (c->start_error) */
    bool show;                  /* a progress line (on a terminal) */
    uint64_t size;              /* of the recording, for the progress line */
} recovery_t;

/* Called on the decoder thread when items are ready or input was used. */
static void on_decoded(void *ctx)
{
    wakeup_t *w = ctx;
    pthread_mutex_lock(&w->lock);
    w->ready = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static void wait_for_decoder(wakeup_t *w)
{
    pthread_mutex_lock(&w->lock);
    while (!w->ready) pthread_cond_wait(&w->cond, &w->lock);
    w->ready = false;
    pthread_mutex_unlock(&w->lock);
}

/* The next chunk of the recording, from its head while any is left (0 at
 * its end or on a read error); *data points at it. */
static size_t read_chunk(recovery_t *r, const uint8_t **data)
{
    size_t n;
    if (r->head_pos < r->head_len) {
        n = r->head_len - r->head_pos < READ_CHUNK ? r->head_len - r->head_pos : READ_CHUNK;
        *data = r->head + r->head_pos;
        r->head_pos += n;
    } else {
        n = r->read_error ? 0 : fread(r->buf, 1, READ_CHUNK, r->f);
        if (n == 0 && ferror(r->f)) r->read_error = true;
        *data = r->buf;
    }
    r->c->rx_bytes += n;
    return n;
}

/* Read the recording's head (up to HEAD_SIZE bytes, less at its end). */
static void read_head(recovery_t *r)
{
    r->head = xmalloc(HEAD_SIZE);
    while (r->head_len < HEAD_SIZE) {
        const size_t n = fread(r->head + r->head_len, 1, HEAD_SIZE - r->head_len, r->f);
        r->head_len += n;
        if (n == 0) {
            if (ferror(r->f)) r->read_error = true;
            break;
        }
    }
}

/* Feed the handshake; returns with the session streaming (and the rest of
 * the chunk that held the welcome's end queued for the decoder), or done. */
static void feed_handshake(recovery_t *r)
{
    session_t *s = &r->c->session;
    size_t n;
    const uint8_t *data;
    while (s->state == SESSION_HANDSHAKE && (n = read_chunk(r, &data)) > 0) {
        const size_t used = session_feed_handshake(s, data, n);
        if (s->state != SESSION_STREAMING) continue;
        int err;
        r->dec = netdec_start(session_frames_offset(s), s->desc, on_decoded, &r->wake, &err);
        if (!r->dec) {
            char why[160];
            snprintf(r->c->start_error, sizeof r->c->start_error, "cannot start the decoder thread: %s",
                     strerror_limit(err, why, sizeof why));
            r->start_failed = true;
            return;
        }
        s->model.chunk_pool = chunkpool_new(ZLOG_POOL_CHUNK, 8);
        (void)chunkpool_start(s->model.chunk_pool);
        netdec_push(r->dec, data + used, n - used);
    }
}

/* Process every item the decoder has ready. */
static void take_items(recovery_t *r)
{
    session_t *s = &r->c->session;
    netdec_item_t it;
    while (!r->ended && netdec_pop(r->dec, &it)) {
        switch (it.kind) {
        case NETDEC_FRAME:
            session_feed_frame(s, it.data, it.n, it.frame_no, it.offset, it.numbered);
            netdec_release(r->dec, &it);
            if (s->state != SESSION_STREAMING) r->ended = true;
            break;
        case NETDEC_ERROR:
            snprintf(s->err, sizeof s->err, "%s", netdec_error(r->dec));
            s->state = SESSION_BROKEN;
            r->ended = true;
            break;
        case NETDEC_END:
            r->ended = true;
            break;
        }
    }
}

/* Read ahead of the decoder while it keeps up; sleep when it is behind.
 * On a terminal the progress line is shown before the items are taken,
 * so that it appears even when the decoder thread has a small recording
 * decoded by the first look (then the summary erases it at once). */
static void stream_frames(recovery_t *r)
{
    for (;;) {
        if (r->show) {
            const uint64_t decoded = r->c->rx_bytes - netdec_backlog(r->dec);
            progress_decoding(r->c, "the recording", r->size > decoded ? r->size - decoded : 0, r->size);
        }
        take_items(r);
        if (r->ended) return;
        if (!r->input_done && netdec_backlog(r->dec) < BACKLOG_HIGH) {
            const uint8_t *data;
            const size_t n = read_chunk(r, &data);
            if (n) {
                netdec_push(r->dec, data, n);
            } else {
                r->input_done = true;
                netdec_end(r->dec);
            }
            continue;
        }
        wait_for_decoder(&r->wake);
    }
}

/* "82, 76": the versions of a list of descriptors, for messages. */
static void versions_text(const proto_desc_t *const *d, unsigned n, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(out + at, len - at, "%s%u", i ? ", " : "", d[i]->version);
}

/* Feed the inference the head, and of a file the bytes after it until the
 * answer is known, then go back to the end of the head. -1 when the file
 * cannot be gone back in (the reason is printed). */
static int infer_recording(recovery_t *r, infer_t *in, infer_status_t *status)
{
    infer_state_t *s = infer_new();
    bool known = infer_feed(s, r->head, r->head_len);
    if (!known && r->size > r->head_len && !r->read_error) {
        size_t n;
        while (!known && (n = fread(r->buf, 1, READ_CHUNK, r->f)) > 0) known = infer_feed(s, r->buf, n);
        if (fseeko(r->f, (off_t)r->head_len, SEEK_SET) != 0) {
            infer_finish(s, in);
            diag_error("cannot go back in recording %s after reading ahead to tell its protocol: %s", r->path,
                       strerror(errno));
            return -1;
        }
    }
    *status = infer_finish(s, in);
    return 0;
}

/* The protocol of a recording that holds no handshake of ours: as
 * --protocol says, else the one its welcome and first frames fit (infer.h),
 * which a note names (a warning when several fit: oldest_alike() picks;
 * when none fits, the nearest, with a warning). Returns 0, or -1 when the
 * recording cannot be read (the reason is printed). */
/* Of the protocols a recording fits, the one to read it as: the newest,
 * or the oldest that numbers its events as the newest does (72 and 74
 * differ only in the sizes of two events, which a recording both fit does
 * not hold): it decodes every event the same way, and its release's file
 * format is the one every release of them opens. */
static const proto_desc_t *oldest_alike(const infer_t *in)
{
    const proto_desc_t *newest = in->fits[0], *pick = newest;
    for (unsigned i = 1; i < in->nfits; i++) {
        const proto_desc_t *d = in->fits[i];
        if (d->ntypes == newest->ntypes && memcmp(d->types, newest->types, d->ntypes) == 0) pick = d;
    }
    return pick;
}

static int infer_bare(recovery_t *r)
{
    capture_t *c = r->c;
    c->offer = c->opts->protocol ? c->opts->protocol : proto_all[0];
    if (c->opts->protocol) return 0;
    infer_t in;
    infer_status_t status;
    if (infer_recording(r, &in, &status) < 0) return -1;
    if (status == INFER_NOTHING) return 0;   /* no welcome to go on: the session says what the recording holds */
    char list[64], what[48];
    if (in.nfits == 0) {
        /* a stream broken further on: read it as the nearest, so that what
         * comes before the break is saved and the break is named (exit 8) */
        proto_list_text(list, sizeof list);
        diag_warn("the recording %s holds no handshake, and its first frames fit none of the protocols this tool "
                  "speaks (%s) to their end; read as protocol %u (Tracy %s), the nearest, which breaks at %s; if "
                  "it is of another, name it with --protocol N", r->path, list, in.nearest->version,
                  in.nearest->release, in.why);
        c->offer = in.nearest;
        return 0;
    }
    c->offer = oldest_alike(&in);
    if (in.frames) snprintf(what, sizeof what, "its first %llu frames", (unsigned long long)in.frames);
    else snprintf(what, sizeof what, "its welcome (it holds no whole frame)");
    if (in.nfits > 1) {
        versions_text(in.fits, in.nfits, list, sizeof list);
        if (c->offer != in.fits[0])
            diag_warn("the recording %s holds no handshake, and %s fit protocols %s alike (they number events "
                      "alike and differ only in events it does not hold): read as %u (Tracy %s), whose file "
                      "format the profilers of all of them open; if it is of another, name it with --protocol N",
                      r->path, what, list, c->offer->version, c->offer->release);
        else
            diag_warn("the recording %s holds no handshake, and %s fit protocols %s alike: read as the newest, %u "
                      "(Tracy %s); if it is of another, name it with --protocol N", r->path, what, list,
                      c->offer->version, c->offer->release);
    } else if (!c->opts->quiet) {
        diag_note("the recording %s holds no handshake: read as protocol %u (Tracy %s), the only one %s fit; "
                  "--protocol N says otherwise", r->path, c->offer->version, c->offer->release, what);
    }
    return 0;
}

/* The protocol of the recording: a spool of ours begins with the handshake
 * we sent (the shibboleth and the version offered), a bare recording with
 * the client's status byte (infer_bare). Reads the recording's head, sets
 * c->offer and leaves the head at the client's first byte; -1 when the
 * recording's protocol cannot be read with (the reason is printed). */
static int choose_protocol(recovery_t *r)
{
    capture_t *c = r->c;
    read_head(r);
    const uint8_t *hs = r->head;
    if (r->head_len < PROTO_SHIBBOLETH_SIZE + 4 || memcmp(hs, PROTO_SHIBBOLETH, PROTO_SHIBBOLETH_SIZE) != 0)
        return infer_bare(r);
    uint32_t version;
    memcpy(&version, hs + PROTO_SHIBBOLETH_SIZE, 4);
    r->head_pos = PROTO_SHIBBOLETH_SIZE + 4;
    const proto_desc_t *d = proto_by_version(version);
    char list[64];
    proto_list_text(list, sizeof list);
    if (!d) {
        diag_error("the spool %s holds a session of protocol %u, which this tool does not speak (it speaks %s)",
                   r->path, version, list);
        return -1;
    }
    if (c->opts->protocol && c->opts->protocol != d) {
        diag_error("the spool %s holds a session of protocol %u (Tracy %s), not of protocol %u as --protocol "
                   "says; leave --protocol out", r->path, version, d->release, c->opts->protocol->version);
        return -1;
    }
    c->offer = d;
    return 0;
}

int recover_run(capture_t *c, const char *path)
{
    recovery_t r = { .c = c, .path = path, .wake.ready = false };
    r.f = fopen(path, "rb");
    if (!r.f) {
        diag_error("cannot read recording %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    r.size = fstat(fileno(r.f), &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    r.show = c->tty && !c->opts->quiet && r.size > 0;
    pthread_mutex_init(&r.wake.lock, NULL);
    pthread_cond_init(&r.wake.cond, NULL);
    r.buf = xmalloc(READ_CHUNK);
    if (choose_protocol(&r) < 0) {
        fclose(r.f);
        free(r.buf);
        free(r.head);
        return -1;
    }
    session_init(&c->session, c->offer, NULL, NULL);
    c->t_start = c->t_connected = uv_hrtime();
    feed_handshake(&r);
    if (r.dec) {
        stream_frames(&r);
        netdec_stats(r.dec, &c->frames, &c->compressed, &c->decompressed);
        c->partial_frame = netdec_partial(r.dec);
        netdec_stop(r.dec);
        model_drop_chunk_pool(&c->session.model);
    }
    fclose(r.f);
    free(r.buf);
    free(r.head);
    pthread_cond_destroy(&r.wake.cond);
    pthread_mutex_destroy(&r.wake.lock);
    if (r.read_error)
        diag_warn("reading recording %s failed after %llu bytes; using what was read", path,
                  (unsigned long long)c->rx_bytes);
    c->outcome = r.start_failed ? OUT_CANNOT_RUN : capture_outcome(c, true);
    c->t_end = uv_hrtime();
    return 0;
}
