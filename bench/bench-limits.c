/* bench-limits.c - the physical limits the benchmark compares against, on
 * this machine:
 *   bench-limits lz4 RECORDING     decode a recorded client stream's LZ4
 *                                  frames (the decode ring, no events)
 *   bench-limits zstd FILE.tracy   recompress a .tracy payload with the
 *          [LEVEL]                 capture's own writer (zstd level 2,
 *                                  the default, or LEVEL; 4 streams, the
 *                                  capture's threads)
 *   bench-limits codecs FILE.tracy the same with each compression the
 *                                  capture offers: zstd 1, 2, 3 (upstream's)
 *                                  and 9, LZ4,
 *                                  LZ4HC and extreme LZ4HC (4 streams)
 *   bench-limits decode RECORDING [LOG]  feed a recording through the
 *                                  session (frames, events, model) without
 *                                  a socket; report the zone log's size
 *                                  (and write the raw logs to LOG)
 * Each prints "<what> <bytes> bytes in <seconds> s (<MB/s>)". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <zstd.h>

#include "frame.h"
#include "session.h"
#include "writer.h"
#include "proto.h"
#include "tfile.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU seconds of this process so far (all threads). */
static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static uint8_t *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)len);
    if (!p || fread(p, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *n = (size_t)len;
    return p;
}

static int count_frame(void *ctx, const uint8_t *p, size_t n)
{
    (void)p;
    *(uint64_t *)ctx += n;
    return 0;
}

static int bench_lz4(const char *path)
{
    size_t n;
    uint8_t *rec = read_all(path, &n);
    size_t start = 1 + PROTO_WELCOME_SIZE + ((rec[1 + 64] & WF_ON_DEMAND) ? PROTO_ONDEMAND_SIZE : 0);
    frame_decoder_t f;
    uint64_t out = 0;
    frame_decoder_init(&f, start);
    const double t0 = now();
    int rc = frame_feed(&f, rec + start, n - start, count_frame, &out);
    const double dt = now() - t0;
    frame_decoder_free(&f);
    if (rc < 0) {
        fprintf(stderr, "%s\n", f.err);
        return 1;
    }
    printf("lz4-decode %llu bytes in %.3f s (%.0f MB/s of decoded data)\n", (unsigned long long)out, dt,
           (double)out / 1e6 / dt);
    free(rec);
    return 0;
}

/* The payload of a .tracy file (zstd, any stream count). */
static uint8_t *payload_of(const uint8_t *file, size_t len, size_t *out_len)
{
    if (len < 6 || memcmp(file, "tr\xfdP", 4) || file[4] != 1) {
        fprintf(stderr, "not a zstd .tracy file\n");
        exit(2);
    }
    const int streams = file[5];
    ZSTD_DStream *ds[256];
    for (int i = 0; i < streams; i++) ds[i] = ZSTD_createDStream();
    size_t cap = len * 8 + 65536, o = 0, pos = 6, k = 0;
    uint8_t *out = malloc(cap);
    while (pos + 4 <= len) {
        uint32_t size;
        memcpy(&size, file + pos, 4);
        pos += 4;
        if (o + 65536 > cap) out = realloc(out, cap *= 2);
        ZSTD_inBuffer in = { file + pos, size, 0 };
        ZSTD_outBuffer ob = { out + o, 65536, 0 };
        ZSTD_decompressStream(ds[k++ % (size_t)streams], &ob, &in);
        o += ob.pos;
        pos += size;
    }
    for (int i = 0; i < streams; i++) ZSTD_freeDStream(ds[i]);
    *out_len = o;
    return out;
}

/* Compress the payload as p says into /dev/null; print the line for it. */
static void compress_into_sink(const char *label, const tfile_params_t *p, const uint8_t *payload, size_t plen)
{
    FILE *sink = fopen("/dev/null", "wb");
    tfile_t t;
    const double t0 = now(), c0 = cpu_seconds();
    tfile_open_with(&t, sink, p);
    tfile_write(&t, payload, plen);
    tfile_close(&t);
    const double dt = now() - t0, cpu = cpu_seconds() - c0;
    fclose(sink);
    printf("%s %zu bytes in %.3f s, %.2f s CPU (%.0f MB/s of payload, %llu bytes out)\n", label, plen, dt, cpu,
           (double)plen / 1e6 / dt, (unsigned long long)t.file_bytes);
    fflush(stdout);
}

/* zstd 2 (the default) alone, or (all) every compression -z and --lz4*
 * offer. */
static int bench_compress(const char *path, bool all, const char *level)
{
    static const struct {
        const char *label;
        tfile_codec_t codec;
        int level;
    } modes[] = {
        { "zstd-1x4", TFILE_ZSTD, 1 }, { "zstd-2x4", TFILE_ZSTD, 2 }, { "zstd-3x4", TFILE_ZSTD, 3 },
        { "zstd-9x4", TFILE_ZSTD, 9 },
        { "lz4x4", TFILE_LZ4, 0 }, { "lz4hc-x4", TFILE_LZ4HC, 0 }, { "lz4-extreme-x4", TFILE_LZ4_EXTREME, 0 },
    };
    size_t n, plen;
    uint8_t *file = read_all(path, &n);
    uint8_t *payload = payload_of(file, n, &plen);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (!all && strcmp(modes[i].label, "zstd-2x4") != 0) continue;
        char label[32];
        int lv = modes[i].level;
        if (level) {
            lv = atoi(level);
            snprintf(label, sizeof label, "zstd-%dx4", lv);
        } else {
            snprintf(label, sizeof label, "%s", modes[i].label);
        }
        /* BENCH_WORKERS=0: compressed on this thread, as the daemon saves */
        const char *w = getenv("BENCH_WORKERS");
        const char *ns = getenv("BENCH_STREAMS");
        const tfile_params_t p = { .codec = modes[i].codec, .level = lv, .streams = ns ? atoi(ns) : 4,
                                   .workers = w ? atoi(w) : tfile_workers_for(4) };
        compress_into_sink(label, &p, payload, plen);
    }
    free(payload);
    free(file);
    return 0;
}

static int bench_decode(const char *path, const char *log_path)
{
    size_t n;
    uint8_t *rec = read_all(path, &n);
    /* BENCH_PROTOCOL=N: a recording of an older protocol */
    const char *pname = getenv("BENCH_PROTOCOL");
    const proto_desc_t *desc = pname ? proto_by_name(pname) : proto_all[0];
    if (!desc) {
        fprintf(stderr, "bench-limits: unknown protocol %s\n", pname);
        free(rec);
        return 1;
    }
    session_t s;
    session_init(&s, desc, NULL, NULL);
    const double t0 = now();
    for (size_t off = 0; off < n && s.state <= SESSION_STREAMING;) {
        size_t k = n - off < (1u << 20) ? n - off : (1u << 20);
        session_feed(&s, rec + off, k);
        off += k;
    }
    const double dt = now() - t0;
    model_seal_logs(&s.model);
    uint64_t bytes = 0, used = 0;
    FILE *log = log_path ? fopen(log_path, "wb") : NULL;
    for (size_t i = 0; i < s.model.nthreads; i++) {
        bytes += s.model.threads[i]->log_bytes;
        for (const zchunk_t *c = s.model.threads[i]->log_head; c; c = c->next) {
            used += c->used;
            if (log) fwrite(c->data, 1, c->used, log);
        }
    }
    if (log) fclose(log);
    if (getenv("BENCH_WRITE")) {
        /* time the payload production alone, then with compression */
        model_finish(&s.model);
        FILE *sink = fopen("/dev/null", "wb");
        tfile_t tf;
        double w0 = now();
        struct timespec c0, c1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        /* BENCH_WORKERS=0: compressed on this thread, as the daemon saves */
        const char *w = getenv("BENCH_WORKERS");
        tfile_open(&tf, sink, atoi(getenv("BENCH_WRITE")), 4, w ? atoi(w) : tfile_workers_for(4));
        writer_write_trace(&s.model, file_format_default(), &tf);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        tfile_close(&tf);
        printf("write %llu payload bytes at level %s in %.3f s (producing: %.3f s of CPU)\n",
               (unsigned long long)tf.payload_bytes, getenv("BENCH_WRITE"), now() - w0,
               (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9);
        fclose(sink);
    }
    printf("decode %zu bytes in %.3f s (%.0f MB/s on the wire, %.1f M zones/s); zone log %.2f bytes/zone "
           "(%.2f allocated)\n", n, dt, (double)n / 1e6 / dt, (double)s.model.zone_count / 1e6 / dt,
           (double)used / (double)(s.model.zone_count ? s.model.zone_count : 1),
           (double)bytes / (double)(s.model.zone_count ? s.model.zone_count : 1));
    uint64_t mem_events = 0, mem_bytes = 0, lates = 0;
    for (size_t i = 0; i < s.model.pools.n; i++) {
        const memlog_t *ml = &s.model.pools.v[i].events;
        mem_events += memlog_count(ml);
        mem_bytes += ml->bytes + ml->window.cap * sizeof *ml->window.v + ml->lates.cap * sizeof *ml->lates.v;
        lates += ml->lates.n;
    }
    if (mem_events)
        printf("memory log: %llu allocations in %.1f MB (%.2f bytes each), %llu late frees\n",
               (unsigned long long)mem_events, (double)mem_bytes / 1e6,
               (double)mem_bytes / (double)mem_events, (unsigned long long)lates);
    session_free(&s);
    free(rec);
    return 0;
}

int main(int argc, char **argv)
{
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "decode") == 0) return bench_decode(argv[2], argc == 4 ? argv[3] : NULL);
    if (argc == 3 && strcmp(argv[1], "lz4") == 0) return bench_lz4(argv[2]);
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "zstd") == 0)
        return bench_compress(argv[2], false, argc == 4 ? argv[3] : NULL);
    if (argc == 3 && strcmp(argv[1], "codecs") == 0) return bench_compress(argv[2], true, NULL);
    fprintf(stderr, "usage: bench-limits lz4 RECORDING | zstd FILE.tracy [LEVEL] | codecs FILE.tracy | decode RECORDING [LOG]\n");
    return 2;
}
