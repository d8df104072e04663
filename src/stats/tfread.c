/* tfread: .tracy container reader (header, block framing, per-stream
 * zstd/LZ4 decoding) producing the payload as a byte stream.  See tfread.h. */
#include "tfread.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lz4.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

typedef struct tf_stream {
    ZSTD_DStream *zstd;
    LZ4_streamDecode_t *lz4;
    char *buf[2];            /* LZ4 needs the previous chunk kept in place */
    int cur;
} tf_stream;

/* The file is read block by block (pread), not mapped: a mapping would
 * keep every page read resident, and the peak memory of a reader that
 * streams its payload would grow with the file. */
struct tfread {
    tfread_info info;
    int fd;
    uint64_t file_size;
    uint64_t *block_off;     /* file offset of each block's data */
    uint32_t *block_size;
    size_t block_cap;
    uint8_t *in;             /* the compressed block being decoded */
    size_t in_cap;
    tf_stream *streams;
    size_t next_block;       /* next block to decode */
    const uint8_t *chunk;    /* current decoded chunk */
    size_t chunk_size;
    size_t chunk_pos;
    uint64_t consumed;       /* payload bytes before the current chunk */
    char err[256];
};

static const uint8_t MAGIC_CURRENT[4] = { 't', 'r', 0xFD, 'P' };
static const uint8_t MAGIC_LZ4[4] = { 't', 'l', 'Z', 0x04 };
static const uint8_t MAGIC_ZSTD[4] = { 't', 'Z', 's', 't' };

static void set_err(char *err, size_t errsz, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsz, fmt, ap);
    va_end(ap);
}

/* Exactly n bytes at file offset off; 0, or -1 (errno set, EIO for a short read). */
static int read_at(const tfread *r, void *dst, size_t n, uint64_t off)
{
    uint8_t *d = dst;
    while (n > 0) {
        ssize_t got = pread(r->fd, d, n, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got == 0)
                errno = EIO;
            return -1;
        }
        d += got;
        off += (uint64_t)got;
        n -= (size_t)got;
    }
    return 0;
}

/* Parse the 4..6 header bytes; returns the offset of the first block or 0. */
static size_t parse_header(tfread *r, char *err, size_t errsz)
{
    uint8_t h[6] = { 0 };
    if (r->file_size < 4) {
        set_err(err, errsz, "container: file shorter than the 4-byte magic");
        return 0;
    }
    if (read_at(r, h, r->file_size < 6 ? (size_t)r->file_size : 6, 0) != 0) {
        set_err(err, errsz, "container: reading the header: %s", strerror(errno));
        return 0;
    }
    if (memcmp(h, MAGIC_CURRENT, 4) == 0) {
        if (r->file_size < 6) {
            set_err(err, errsz, "container: missing compression type or stream count byte");
            return 0;
        }
        r->info.magic = TF_MAGIC_CURRENT;
        r->info.compression = h[4];
        r->info.streams = h[5];
        if (r->info.compression > 1) {
            set_err(err, errsz, "container: unknown compression type %d", r->info.compression);
            return 0;
        }
        if (r->info.streams == 0) {
            set_err(err, errsz, "container: stream count 0");
            return 0;
        }
        return 6;
    }
    if (memcmp(h, MAGIC_LZ4, 4) == 0 || memcmp(h, MAGIC_ZSTD, 4) == 0) {
        int lz4 = memcmp(h, MAGIC_LZ4, 4) == 0;
        r->info.magic = lz4 ? TF_MAGIC_LEGACY_LZ4 : TF_MAGIC_LEGACY_ZSTD;
        r->info.compression = lz4 ? 0 : 1;
        r->info.streams = 1;
        return 4;
    }
    set_err(err, errsz, "container: not a Tracy dump (bad magic %02x %02x %02x %02x)", h[0], h[1], h[2], h[3]);
    return 0;
}

static int add_block(tfread *r, uint64_t off, uint32_t size)
{
    size_t n = r->info.blocks;
    if (n == r->block_cap) {
        size_t cap = r->block_cap ? r->block_cap * 2 : 1024;
        uint64_t *o = realloc(r->block_off, cap * sizeof *o);
        if (o)
            r->block_off = o;
        uint32_t *s = realloc(r->block_size, cap * sizeof *s);
        if (s)
            r->block_size = s;
        if (!o || !s)
            return -1;
        r->block_cap = cap;
    }
    r->block_off[n] = off;
    r->block_size[n] = size;
    r->info.blocks = n + 1;
    return 0;
}

/* Walk the u32-size-prefixed blocks; the last one must end at end of file. */
static int scan_blocks(tfread *r, uint64_t off, char *err, size_t errsz)
{
    size_t largest = 0;
    while (off < r->file_size) {
        size_t n = r->info.blocks;
        if (r->file_size - off < 4) {
            set_err(err, errsz, "container: block %zu at file offset %" PRIu64 ": truncated size field", n, off);
            return -1;
        }
        uint32_t sz;
        if (read_at(r, &sz, 4, off) != 0) {
            set_err(err, errsz, "container: block %zu at file offset %" PRIu64 ": %s", n, off, strerror(errno));
            return -1;
        }
        off += 4;
        if (sz > r->file_size - off) {
            set_err(err, errsz, "container: block %zu at file offset %" PRIu64 ": size %u exceeds end of file",
                    n, off - 4, sz);
            return -1;
        }
        if (sz == 0) {
            set_err(err, errsz, "container: block %zu at file offset %" PRIu64 ": empty block", n, off - 4);
            return -1;
        }
        if (add_block(r, off, sz) != 0) {
            set_err(err, errsz, "out of memory");
            return -1;
        }
        if (sz > largest)
            largest = sz;
        off += sz;
    }
    r->in = malloc(largest ? largest : 1);
    if (!r->in) {
        set_err(err, errsz, "out of memory");
        return -1;
    }
    r->in_cap = largest;
    return 0;
}

static int create_streams(tfread *r, char *err, size_t errsz)
{
    r->streams = calloc((size_t)r->info.streams, sizeof *r->streams);
    if (!r->streams) {
        set_err(err, errsz, "out of memory");
        return -1;
    }
    for (int i = 0; i < r->info.streams; i++) {
        tf_stream *s = &r->streams[i];
        s->buf[0] = malloc(TF_CHUNK);
        s->buf[1] = malloc(TF_CHUNK);
        if (r->info.compression == 1)
            s->zstd = ZSTD_createDStream();
        else
            s->lz4 = LZ4_createStreamDecode();
        if (!s->buf[0] || !s->buf[1] || (!s->zstd && !s->lz4)) {
            set_err(err, errsz, "out of memory");
            return -1;
        }
        if (s->zstd)
            ZSTD_initDStream(s->zstd);
    }
    return 0;
}

int tfread_open(tfread **out, const char *path, int *open_failed, char *err, size_t errsz)
{
    *out = NULL;
    *open_failed = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *open_failed = 1;
        set_err(err, errsz, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    const int stat_failed = fstat(fd, &st) != 0;
    if (stat_failed || !S_ISREG(st.st_mode)) {
        *open_failed = 1;
        set_err(err, errsz, "%s: %s", path, stat_failed ? strerror(errno) : S_ISDIR(st.st_mode) ? "is a directory"
                : "not a regular file");
        close(fd);
        return -1;
    }
    tfread *r = calloc(1, sizeof *r);
    if (!r) {
        close(fd);
        set_err(err, errsz, "out of memory");
        return -1;
    }
    r->fd = fd;
    r->file_size = (uint64_t)st.st_size;
    r->info.file_size = (uint64_t)st.st_size;
    size_t off = parse_header(r, err, errsz);
    if (off == 0 || scan_blocks(r, off, err, errsz) != 0 || create_streams(r, err, errsz) != 0) {
        tfread_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

void tfread_close(tfread *r)
{
    if (!r)
        return;
    if (r->streams) {
        for (int i = 0; i < r->info.streams; i++) {
            ZSTD_freeDStream(r->streams[i].zstd);
            if (r->streams[i].lz4)
                LZ4_freeStreamDecode(r->streams[i].lz4);
            free(r->streams[i].buf[0]);
            free(r->streams[i].buf[1]);
        }
        free(r->streams);
    }
    close(r->fd);
    free(r->in);
    free(r->block_off);
    free(r->block_size);
    free(r);
}

const tfread_info *tfread_get_info(const tfread *r)
{
    return &r->info;
}

static void rd_err(tfread *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
}

/* One zstd call per block, like upstream; then make sure nothing is left. */
static int decode_zstd(tfread *r, tf_stream *s, size_t b, size_t *produced)
{
    ZSTD_outBuffer out = { s->buf[s->cur], TF_CHUNK, 0 };
    ZSTD_inBuffer in = { r->in, r->block_size[b], 0 };
    size_t ret = ZSTD_decompressStream(s->zstd, &out, &in);
    if (ZSTD_isError(ret)) {
        rd_err(r, "container: block %zu: zstd error: %s", b, ZSTD_getErrorName(ret));
        return -1;
    }
    if (in.pos != in.size) {
        rd_err(r, "container: block %zu: not fully decoded by one call (%zu of %zu bytes used)",
               b, in.pos, in.size);
        return -1;
    }
    if (out.pos == TF_CHUNK) {
        char probe;
        ZSTD_outBuffer pout = { &probe, 1, 0 };
        ZSTD_inBuffer pin = { NULL, 0, 0 };
        ret = ZSTD_decompressStream(s->zstd, &pout, &pin);
        if (!ZSTD_isError(ret) && pout.pos != 0) {
            rd_err(r, "container: block %zu: decodes to more than 64 KiB", b);
            return -1;
        }
    }
    *produced = out.pos;
    return 0;
}

static int decode_lz4(tfread *r, tf_stream *s, size_t b, size_t *produced)
{
    int n = LZ4_decompress_safe_continue(s->lz4, (const char *)r->in,
                                         s->buf[s->cur], (int)r->block_size[b], TF_CHUNK);
    if (n < 0) {
        rd_err(r, "container: block %zu: LZ4 decode error", b);
        return -1;
    }
    *produced = (size_t)n;
    return 0;
}

/* Decode the next block into its stream's buffer and make it current. */
static int next_chunk(tfread *r)
{
    size_t b = r->next_block;
    tf_stream *s = &r->streams[b % (size_t)r->info.streams];
    if (read_at(r, r->in, r->block_size[b], r->block_off[b]) != 0) {
        rd_err(r, "container: block %zu at file offset %" PRIu64 ": %s", b, r->block_off[b], strerror(errno));
        return -1;
    }
    s->cur ^= 1;
    size_t produced = 0;
    int rc = r->info.compression == 1 ? decode_zstd(r, s, b, &produced)
                                      : decode_lz4(r, s, b, &produced);
    if (rc != 0)
        return -1;
    int last = b + 1 == r->info.blocks;
    if (!last && produced != TF_CHUNK) {
        rd_err(r, "container: block %zu of %zu decodes to %zu bytes, not 65536", b, r->info.blocks,
               produced);
        return -1;
    }
    if (produced == 0) {
        rd_err(r, "container: last block %zu decodes to 0 bytes", b);
        return -1;
    }
    r->consumed += r->chunk_size;
    r->chunk = (const uint8_t *)s->buf[s->cur];
    r->chunk_size = produced;
    r->chunk_pos = 0;
    r->next_block++;
    return 0;
}

int tfread_read(tfread *r, void *dst, size_t n)
{
    if (n <= r->chunk_size - r->chunk_pos) {   /* the common case: within the chunk */
        if (dst && n)
            memcpy(dst, r->chunk + r->chunk_pos, n);
        r->chunk_pos += n;
        return 0;
    }
    uint8_t *d = dst;
    while (n > 0) {
        if (r->chunk_pos == r->chunk_size) {
            if (r->next_block == r->info.blocks) {
                rd_err(r, "unexpected end of payload (%zu more bytes needed)", n);
                return -1;
            }
            if (next_chunk(r) != 0)
                return -1;
        }
        size_t avail = r->chunk_size - r->chunk_pos;
        size_t take = n < avail ? n : avail;
        if (d) {
            memcpy(d, r->chunk + r->chunk_pos, take);
            d += take;
        }
        r->chunk_pos += take;
        n -= take;
    }
    return 0;
}

int tfread_peek(tfread *r, void *dst, size_t n)
{
    if (r->chunk_pos == r->chunk_size && r->next_block < r->info.blocks && next_chunk(r) != 0)
        return -1;
    if (n > r->chunk_size - r->chunk_pos) {
        rd_err(r, "unexpected end of payload (%zu bytes to look at, %zu there)", n, r->chunk_size - r->chunk_pos);
        return -1;
    }
    memcpy(dst, r->chunk + r->chunk_pos, n);
    return 0;
}

int tfread_read_rest(tfread *r, uint8_t **buf, size_t *len)
{
    size_t cap = (size_t)tfread_remaining_bound(r) + 1;
    uint8_t *p = malloc(cap);
    if (!p) {
        rd_err(r, "out of memory");
        return -1;
    }
    size_t n = 0;
    while (!tfread_at_end(r)) {
        if (r->chunk_pos == r->chunk_size && next_chunk(r) != 0) {
            free(p);
            return -1;
        }
        size_t take = r->chunk_size - r->chunk_pos;
        memcpy(p + n, r->chunk + r->chunk_pos, take);
        r->chunk_pos += take;
        n += take;
    }
    *buf = p;
    *len = n;
    return 0;
}

uint64_t tfread_offset(const tfread *r)
{
    return r->consumed + r->chunk_pos;
}

uint64_t tfread_remaining_bound(const tfread *r)
{
    return (uint64_t)(r->info.blocks - r->next_block) * TF_CHUNK + (r->chunk_size - r->chunk_pos);
}

int tfread_at_end(tfread *r)
{
    if (r->chunk_pos < r->chunk_size)
        return 0;
    return r->next_block == r->info.blocks ? 1 : 0;
}

const char *tfread_error(const tfread *r)
{
    return r->err;
}
