/* tfile.c - .tracy container writer (see tfile.h). */
#include "tfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "util.h"

static void fail(tfile_t *t, int err, const char *what)
{
    if (!t->err) {
        t->err = err ? err : EIO;
        t->err_what = what;
    }
}

int tfile_open(tfile_t *t, FILE *fp, int level, int streams)
{
    memset(t, 0, sizeof *t);
    t->fp = fp;
    t->streams = streams < 1 ? 1 : streams > TFILE_MAX_STREAMS ? TFILE_MAX_STREAMS : streams;
    for (int i = 0; i < t->streams; i++) {
        ZSTD_CCtx *c = ZSTD_createCCtx();
        if (!c) {
            errno = ENOMEM;
            return -1;
        }
        ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
        ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
        t->zc[i] = c;
    }
    t->chunk = xmalloc(TFILE_CHUNK);
    t->outcap = ZSTD_compressBound(TFILE_CHUNK);
    t->out = xmalloc(t->outcap);
    const uint8_t header[6] = { 't', 'r', 0xFD, 'P', 1, (uint8_t)t->streams };
    if (fwrite(header, 1, sizeof header, fp) != sizeof header) fail(t, errno, "writing the file header");
    t->file_bytes = sizeof header;
    return 0;
}

/* Compress the buffered chunk with its stream and write it. */
static void emit_chunk(tfile_t *t)
{
    if (t->used == 0) return;
    ZSTD_CCtx *c = t->zc[t->nchunks % (uint64_t)t->streams];
    ZSTD_inBuffer in = { t->chunk, t->used, 0 };
    ZSTD_outBuffer out = { t->out, t->outcap, 0 };
    size_t rc = ZSTD_compressStream2(c, &out, &in, ZSTD_e_flush);
    if (ZSTD_isError(rc) || rc != 0 || in.pos != in.size) {
        fail(t, EIO, "compressing a block");
    } else if (!t->err) {
        uint32_t size = (uint32_t)out.pos;
        if (fwrite(&size, 4, 1, t->fp) != 1 || fwrite(t->out, 1, out.pos, t->fp) != out.pos)
            fail(t, errno, "writing a block");
        t->file_bytes += 4 + out.pos;
    }
    t->nchunks++;
    t->used = 0;
}

void tfile_write(tfile_t *t, const void *p, size_t n)
{
    const uint8_t *b = p;
    t->payload_bytes += n;
    while (n > 0) {
        size_t take = TFILE_CHUNK - t->used < n ? TFILE_CHUNK - t->used : n;
        memcpy(t->chunk + t->used, b, take);
        t->used += take;
        b += take;
        n -= take;
        if (t->used == TFILE_CHUNK) emit_chunk(t);
    }
}

int tfile_close(tfile_t *t)
{
    emit_chunk(t);
    for (int i = 0; i < t->streams; i++) ZSTD_freeCCtx(t->zc[i]);
    free(t->chunk);
    free(t->out);
    t->chunk = t->out = NULL;
    return t->err ? -1 : 0;
}
