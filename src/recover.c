/* recover.c - a capture read from a recorded client stream (see recover.h). */
#include "recover.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"

#define READ_CHUNK (1u << 20)

/* Name how the session ended once the recording ran out. */
static outcome_t outcome_at_end_of_input(capture_t *c)
{
    switch (c->session.state) {
    case SESSION_HANDSHAKE: return OUT_DROPPED;
    case SESSION_REJECTED:
        return c->session.status == HS_PROTOCOL_MISMATCH ? OUT_MISMATCH
               : c->session.status == HS_NOT_AVAILABLE   ? OUT_NOT_AVAILABLE
                                                         : OUT_DROPPED;
    case SESSION_BROKEN: return OUT_BROKEN;
    case SESSION_COMPLETE: return OUT_COMPLETE;
    default: break;
    }
    if (c->session.model.terminate && !session_waiting(&c->session, NULL, 0)) return OUT_COMPLETE;
    snprintf(c->stop_reason, sizeof c->stop_reason, "the recording ends");
    return OUT_CLIENT_GONE;
}

int recover_run(capture_t *c, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_error("cannot read recording %s: %s", path, strerror(errno));
        return -1;
    }
    session_init(&c->session, NULL, NULL);
    c->t_start = c->t_connected = uv_hrtime();
    uint8_t *buf = xmalloc(READ_CHUNK);
    size_t n;
    while (c->session.state <= SESSION_STREAMING && (n = fread(buf, 1, READ_CHUNK, f)) > 0) {
        c->rx_bytes += n;
        session_feed(&c->session, buf, n);
    }
    const bool read_error = ferror(f);
    fclose(f);
    free(buf);
    if (read_error) diag_warn("reading recording %s failed after %llu bytes; using what was read", path,
                              (unsigned long long)c->rx_bytes);
    c->frames = c->session.frames.frames;
    c->compressed = c->session.frames.compressed;
    c->decompressed = c->session.frames.decompressed;
    c->outcome = outcome_at_end_of_input(c);
    c->t_end = uv_hrtime();
    return 0;
}
