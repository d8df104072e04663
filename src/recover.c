/* recover.c - a capture read from a recorded client stream (see recover.h). */
#include "recover.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"

#define READ_CHUNK (1u << 20)

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
    c->outcome = capture_outcome(c, true);
    c->t_end = uv_hrtime();
    return 0;
}
