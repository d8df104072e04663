/* tf-repack: test helper that decodes a .tracy file's payload and writes it
 * again with another container layout (zstd or LZ4, N streams, legacy
 * magics) and optionally a deliberately broken payload or chunking, so the
 * reader's container handling and strictness can be tested on variants of
 * the fixtures.
 *
 * Usage: tf-repack [--lz4] [--streams N] [--legacy] [--append N]
 *                  [--truncate N] [--patch OFFSET=HEXBYTES] [--short-chunk]
 *                  IN OUT */
#include <getopt.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "tfread.h"

enum { OPT_LZ4 = 256, OPT_STREAMS, OPT_LEGACY, OPT_APPEND, OPT_TRUNCATE, OPT_PATCH, OPT_SHORT };

typedef struct repack_opts {
    int lz4;
    int streams;
    int legacy;
    size_t append, truncate;
    const char *patch;
    int short_chunk;
} repack_opts;

typedef struct out_stream {
    ZSTD_CCtx *zstd;
    LZ4_stream_t *lz4;
    char *buf[2];            /* LZ4 keeps the previous chunk in place */
    int cur;
} out_stream;

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* OFFSET=HEXBYTES: overwrite payload bytes at OFFSET. */
static int apply_patch(uint8_t *p, size_t len, const char *spec)
{
    char *end;
    unsigned long long off = strtoull(spec, &end, 0);
    if (*end != '=')
        return -1;
    for (const char *h = end + 1; h[0] && h[1]; h += 2, off++) {
        int hi = hexval(h[0]), lo = hexval(h[1]);
        if (hi < 0 || lo < 0 || off >= len)
            return -1;
        p[off] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

static int write_block(FILE *f, const void *data, size_t size)
{
    uint32_t sz = (uint32_t)size;
    return fwrite(&sz, 4, 1, f) == 1 && fwrite(data, 1, size, f) == size ? 0 : -1;
}

static int compress_chunk(out_stream *s, int lz4, const uint8_t *src, size_t n, char *dst, size_t cap, size_t *out)
{
    if (lz4) {
        memcpy(s->buf[s->cur], src, n);
        int r = LZ4_compress_fast_continue(s->lz4, s->buf[s->cur], dst, (int)n, (int)cap, 1);
        s->cur ^= 1;
        if (r <= 0)
            return -1;
        *out = (size_t)r;
        return 0;
    }
    ZSTD_outBuffer ob = { dst, cap, 0 };
    ZSTD_inBuffer ib = { src, n, 0 };
    size_t r = ZSTD_compressStream2(s->zstd, &ob, &ib, ZSTD_e_flush);
    if (ZSTD_isError(r) || r != 0)
        return -1;
    *out = ob.pos;
    return 0;
}

static int write_header(FILE *f, const repack_opts *o)
{
    if (o->legacy)
        return fwrite(o->lz4 ? "tlZ\x04" : "tZst", 1, 4, f) == 4 ? 0 : -1;
    uint8_t hdr[6] = { 't', 'r', 0xFD, 'P', (uint8_t)(o->lz4 ? 0 : 1), (uint8_t)o->streams };
    return fwrite(hdr, 1, 6, f) == 6 ? 0 : -1;
}

static int write_container(FILE *f, const repack_opts *o, const uint8_t *p, size_t len)
{
    int n = o->legacy ? 1 : o->streams;
    out_stream *st = calloc((size_t)n, sizeof *st);
    size_t cap = ZSTD_compressBound(TF_CHUNK) + LZ4_compressBound(TF_CHUNK);
    char *dst = malloc(cap);
    int rc = st && dst ? write_header(f, o) : -1;
    for (int i = 0; i < n && rc == 0; i++) {
        st[i].buf[0] = malloc(TF_CHUNK);
        st[i].buf[1] = malloc(TF_CHUNK);
        if (o->lz4)
            st[i].lz4 = LZ4_createStream();
        else if ((st[i].zstd = ZSTD_createCCtx()) != NULL) {
            ZSTD_CCtx_setParameter(st[i].zstd, ZSTD_c_compressionLevel, 1);
            ZSTD_CCtx_setParameter(st[i].zstd, ZSTD_c_contentSizeFlag, 0);
        }
        if (!st[i].buf[0] || !st[i].buf[1] || (!st[i].lz4 && !st[i].zstd))
            rc = -1;
    }
    size_t off = 0, k = 0;
    while (rc == 0 && off < len) {
        size_t chunk = len - off < TF_CHUNK ? len - off : TF_CHUNK;
        if (o->short_chunk && k == 0 && chunk > 1000)
            chunk = 1000;
        size_t produced;
        rc = compress_chunk(&st[k % (size_t)n], o->lz4, p + off, chunk, dst, cap, &produced);
        if (rc == 0)
            rc = write_block(f, dst, produced);
        off += chunk;
        k++;
    }
    for (int i = 0; st && i < n; i++) {
        ZSTD_freeCCtx(st[i].zstd);
        if (st[i].lz4)
            LZ4_freeStream(st[i].lz4);
        free(st[i].buf[0]);
        free(st[i].buf[1]);
    }
    free(st);
    free(dst);
    return rc;
}

static int parse_opts(repack_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "lz4", no_argument, NULL, OPT_LZ4 },
        { "streams", required_argument, NULL, OPT_STREAMS },
        { "legacy", no_argument, NULL, OPT_LEGACY },
        { "append", required_argument, NULL, OPT_APPEND },
        { "truncate", required_argument, NULL, OPT_TRUNCATE },
        { "patch", required_argument, NULL, OPT_PATCH },
        { "short-chunk", no_argument, NULL, OPT_SHORT },
        { NULL, 0, NULL, 0 },
    };
    memset(o, 0, sizeof *o);
    o->streams = 4;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_LZ4: o->lz4 = 1; break;
        case OPT_STREAMS: o->streams = atoi(optarg); break;
        case OPT_LEGACY: o->legacy = 1; break;
        case OPT_APPEND: o->append = (size_t)atol(optarg); break;
        case OPT_TRUNCATE: o->truncate = (size_t)atol(optarg); break;
        case OPT_PATCH: o->patch = optarg; break;
        case OPT_SHORT: o->short_chunk = 1; break;
        default: return -1;
        }
    }
    if (argc != optind + 2 || o->streams < 1 || o->streams > 255)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    repack_opts o;
    if (parse_opts(&o, argc, argv) != 0) {
        fputs("usage: tf-repack [--lz4] [--streams N] [--legacy] [--append N] [--truncate N]\n"
              "                 [--patch OFFSET=HEXBYTES] [--short-chunk] IN OUT\n", stderr);
        return 1;
    }
    char err[256];
    int open_failed;
    tfread *r;
    if (tfread_open(&r, argv[optind], &open_failed, err, sizeof err) != 0) {
        fprintf(stderr, "tf-repack: %s\n", err);
        return 1;
    }
    uint8_t *p;
    size_t len;
    if (tfread_read_rest(r, &p, &len) != 0) {
        fprintf(stderr, "tf-repack: %s\n", tfread_error(r));
        tfread_close(r);
        return 1;
    }
    tfread_close(r);
    uint8_t *np = realloc(p, len + o.append + 1);
    if (!np) {
        free(p);
        return 1;
    }
    p = np;
    memset(p + len, 0, o.append);
    len += o.append;
    len -= o.truncate < len ? o.truncate : len;
    if (o.patch && apply_patch(p, len, o.patch) != 0) {
        fprintf(stderr, "tf-repack: bad --patch %s\n", o.patch);
        free(p);
        return 1;
    }
    FILE *f = fopen(argv[optind + 1], "wb");
    int rc = f ? write_container(f, &o, p, len) : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    free(p);
    if (rc != 0) {
        fprintf(stderr, "tf-repack: cannot write %s\n", argv[optind + 1]);
        return 1;
    }
    return 0;
}
