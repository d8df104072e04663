/* test_tfile.c - unit tests of the .tracy container writer: header, 64 KiB
 * chunks, round-robin zstd streams that continue across blocks, the LZ4
 * modes (blocks that refer back to their stream's previous one), up to 255
 * streams, the legacy single-stream containers of 0.10 ('tZst', 'tlZ' 4),
 * and write errors reported at close. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <lz4.h>
#include <zstd.h>

#include "tfile.h"
#include "unit.h"

/* Read the blocks after the header (`pos` bytes) back the way the 0.14
 * loader does, with `streams` zstd streams. */
static uint8_t *read_blocks(const uint8_t *file, size_t len, size_t pos, int streams, size_t *out_len)
{
    ZSTD_DStream *ds[256];
    for (int i = 0; i < streams; i++) ds[i] = ZSTD_createDStream();
    uint8_t *out = malloc(len * 64 + 65536);
    size_t o = 0, k = 0;
    while (pos < len) {
        uint32_t size;
        memcpy(&size, file + pos, 4);
        pos += 4;
        ZSTD_inBuffer in = { file + pos, size, 0 };
        ZSTD_outBuffer ob = { out + o, 65536, 0 };
        size_t rc = ZSTD_decompressStream(ds[k % (size_t)streams], &ob, &in);
        ck_assert(!ZSTD_isError(rc));
        ck_assert_uint_eq(in.pos, size);
        /* every block but the last decodes to exactly 64 KiB */
        if (pos + size < len) ck_assert_uint_eq(ob.pos, 65536);
        o += ob.pos;
        pos += size;
        k++;
    }
    for (int i = 0; i < streams; i++) ZSTD_freeDStream(ds[i]);
    *out_len = o;
    return out;
}

/* Read the container back the way the 0.14 loader does. */
static uint8_t *read_back(const uint8_t *file, size_t len, size_t *out_len, int *streams)
{
    ck_assert_uint_ge(len, 6);
    ck_assert(memcmp(file, "tr\xfdP", 4) == 0);
    ck_assert_int_eq(file[4], 1);
    *streams = file[5];
    return read_blocks(file, len, 6, *streams, out_len);
}

/* Four streams on `workers` compression threads (0: the caller's, with
 * a helper while *spare > 0), in odd-sized writes. */
static char *write_four_streams_sparing(const uint8_t *payload, size_t n, int workers, const atomic_int *spare,
                                        size_t *blen, tfile_t *t)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, blen);
    const tfile_params_t p = { .codec = TFILE_ZSTD, .level = 3, .streams = 4, .workers = workers, .spare = spare };
    ck_assert_int_eq(tfile_open_with(t, fp, &p), 0);
    ck_assert_int_eq(t->workers, workers);
    /* odd-sized writes across chunk boundaries */
    for (size_t off = 0; off < n;) {
        size_t k = (off * 13 + 777) % 40000 + 1;
        if (k > n - off) k = n - off;
        tfile_write(t, payload + off, k);
        off += k;
    }
    ck_assert_int_eq(tfile_close(t), 0);
    fclose(fp);
    return buf;
}

static char *write_four_streams(const uint8_t *payload, size_t n, int workers, size_t *blen, tfile_t *t)
{
    return write_four_streams_sparing(payload, n, workers, NULL, blen, t);
}

START_TEST(payload_round_trips_through_four_streams)
{
    const size_t n = 9 * 65536 + 123;
    uint8_t *payload = malloc(n);
    for (size_t i = 0; i < n; i++) payload[i] = (uint8_t)(i * 31 / 7 ^ (i >> 11));
    size_t blen = 0;
    tfile_t t;
    char *buf = write_four_streams(payload, n, 4, &blen, &t);
    ck_assert_uint_eq(t.nchunks, 10);
    ck_assert_uint_eq(t.file_bytes, blen);
    size_t got_len;
    int streams;
    uint8_t *got = read_back((uint8_t *)buf, blen, &got_len, &streams);
    ck_assert_int_eq(streams, 4);
    ck_assert_uint_eq(got_len, n);
    ck_assert(memcmp(got, payload, n) == 0);
    /* the fifth block continues stream 0: no new frame header */
    size_t pos = 6;
    for (int b = 0; b < 4; b++) {
        uint32_t size;
        memcpy(&size, buf + pos, 4);
        ck_assert(memcmp(buf + pos + 4, "\x28\xb5\x2f\xfd", 4) == 0);
        pos += 4 + size;
    }
    ck_assert(memcmp(buf + pos + 4, "\x28\xb5\x2f\xfd", 4) != 0);
    free(got);
    free(payload);
    free(buf);
}
END_TEST

/* The file is a property of the stream count alone: 1, 2 or 3 threads
 * compressing the four streams, or the caller's thread alone (the
 * daemon's saves, on its pool, a stream at a time over the slots), with
 * or without the helper a spare pool thread allows, write the same bytes
 * as four, through more than two rounds of the slots. */
START_TEST(file_does_not_depend_on_the_compression_threads)
{
    const size_t n = (2 * TFILE_SLOTS + 13) * (size_t)65536 + 7;
    uint8_t *payload = malloc(n);
    for (size_t i = 0; i < n; i++) payload[i] = (uint8_t)(i * 37 / 11 ^ (i >> 10));
    size_t ref_len = 0;
    tfile_t t;
    char *ref = write_four_streams(payload, n, 4, &ref_len, &t);
    for (int workers = 0; workers <= 3; workers++) {   /* 0: all on this thread */
        size_t len = 0;
        char *buf = write_four_streams(payload, n, workers, &len, &t);
        ck_assert_uint_eq(len, ref_len);
        ck_assert(memcmp(buf, ref, len) == 0);
        free(buf);
    }
    /* the helper takes each round while the pool has a thread to spare,
     * and none while it has not */
    atomic_int spare = 1;
    for (int round = 0; round < 2; round++) {
        size_t len = 0;
        char *buf = write_four_streams_sparing(payload, n, 0, &spare, &len, &t);
        ck_assert_uint_eq(t.rounds_helped, spare ? 3 : 0);   /* two full rounds and the last */
        ck_assert_uint_eq(len, ref_len);
        ck_assert(memcmp(buf, ref, len) == 0);
        free(buf);
        spare = 0;
    }
    free(ref);
    free(payload);
}
END_TEST

/* streams 0: one stream compressed on the caller's thread, through more
 * chunks than there are slots. */
START_TEST(payload_round_trips_without_threads)
{
    const size_t n = (TFILE_SLOTS + 40) * (size_t)65536 + 5;
    uint8_t *payload = malloc(n);
    for (size_t i = 0; i < n; i++) payload[i] = (uint8_t)(i * 29 / 5 ^ (i >> 9));
    char *buf = NULL;
    size_t blen = 0;
    FILE *fp = open_memstream(&buf, &blen);
    tfile_t t;
    ck_assert_int_eq(tfile_open(&t, fp, 1, 0, 2), 0);
    ck_assert_int_eq(t.workers, 0);
    for (size_t off = 0; off < n; off += 1000) tfile_write(&t, payload + off, n - off < 1000 ? n - off : 1000);
    ck_assert_int_eq(tfile_close(&t), 0);
    fclose(fp);
    ck_assert_uint_eq(t.nchunks, TFILE_SLOTS + 41);
    size_t got_len;
    int streams;
    uint8_t *got = read_back((uint8_t *)buf, blen, &got_len, &streams);
    ck_assert_int_eq(streams, 1);
    ck_assert_uint_eq(got_len, n);
    ck_assert(memcmp(got, payload, n) == 0);
    free(got);
    free(payload);
    free(buf);
}
END_TEST

/* Write n payload bytes (in 1000-byte writes) into memory with the legacy
 * container (legacy) or the current one, of `streams` streams. */
static char *write_payload(const uint8_t *payload, size_t n, bool legacy, int streams, size_t *blen, tfile_t *t)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, blen);
    ck_assert_int_eq(legacy ? tfile_open_legacy(t, fp, 3, streams) : tfile_open(t, fp, 3, streams, 1), 0);
    for (size_t off = 0; off < n; off += 1000) tfile_write(t, payload + off, n - off < 1000 ? n - off : 1000);
    ck_assert_int_eq(tfile_close(t), 0);
    fclose(fp);
    return buf;
}

/* The legacy container: 'tZst', then the blocks of one zstd stream (one
 * frame across all of them), compressed by a worker or, with streams 0,
 * on the caller's thread; asked for more streams, it still has one. Its
 * blocks are those of the current container with one stream. */
START_TEST(legacy_container_is_one_stream_after_tZst)
{
    const size_t n = 5 * 65536 + 999;
    uint8_t *payload = malloc(n);
    for (size_t i = 0; i < n; i++) payload[i] = (uint8_t)(i * 41 / 3 ^ (i >> 8));
    size_t cur_len = 0;
    tfile_t t;
    char *cur = write_payload(payload, n, false, 1, &cur_len, &t);
    const int asked[] = { 0, 1, 4 };
    for (size_t a = 0; a < sizeof asked / sizeof asked[0]; a++) {
        size_t blen = 0;
        char *buf = write_payload(payload, n, true, asked[a], &blen, &t);
        ck_assert_int_eq(t.streams, 1);
        ck_assert_int_eq(t.workers, asked[a] == 0 ? 0 : 1);
        ck_assert_uint_eq(t.nchunks, 6);
        ck_assert_uint_eq(t.file_bytes, blen);
        ck_assert(memcmp(buf, "tZst", 4) == 0);
        ck_assert_uint_eq(blen, cur_len - 2);
        ck_assert(memcmp(buf + 4, cur + 6, blen - 4) == 0);
        /* one frame: only the first block starts with zstd's magic */
        ck_assert(memcmp(buf + 8, "\x28\xb5\x2f\xfd", 4) == 0);
        uint32_t first;
        memcpy(&first, buf + 4, 4);
        ck_assert(memcmp(buf + 8 + first + 4, "\x28\xb5\x2f\xfd", 4) != 0);
        size_t got_len;
        uint8_t *got = read_blocks((uint8_t *)buf, blen, 4, 1, &got_len);
        ck_assert_uint_eq(got_len, n);
        ck_assert(memcmp(got, payload, n) == 0);
        free(got);
        free(buf);
    }
    free(cur);
    free(payload);
}
END_TEST

START_TEST(empty_legacy_payload_is_the_magic_alone)
{
    size_t blen = 0;
    tfile_t t;
    char *buf = write_payload(NULL, 0, true, 1, &blen, &t);
    ck_assert_uint_eq(blen, 4);
    ck_assert(memcmp(buf, "tZst", 4) == 0);
    free(buf);
}
END_TEST

/* A FILE that records where and how much each write put. */
typedef struct {
    uint8_t *data;
    size_t len;
    size_t writes, odd_writes;  /* odd: not TFILE_OUT_BATCH at a multiple of it */
    size_t last_off, last_len;
} recorder_t;

static ssize_t record_write(void *cookie, const char *p, size_t n)
{
    recorder_t *r = cookie;
    if (r->len % TFILE_OUT_BATCH || n != TFILE_OUT_BATCH) r->odd_writes++;
    r->last_off = r->len;
    r->last_len = n;
    r->data = realloc(r->data, r->len + n);
    memcpy(r->data + r->len, p, n);
    r->len += n;
    r->writes++;
    return (ssize_t)n;
}

/* The kernel sees whole, aligned megabytes (a partly written new page-cache
 * folio is zeroed first), and only the file's tail in a shorter write. */
START_TEST(file_is_written_in_aligned_megabytes)
{
    const size_t n = 3 * TFILE_OUT_BATCH + 12345;
    uint8_t *payload = malloc(n);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {  /* xorshift: nothing for zstd to find */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        payload[i] = (uint8_t)x;
    }
    recorder_t r = {0};
    FILE *fp = fopencookie(&r, "w", (cookie_io_functions_t){ .write = record_write });
    setvbuf(fp, NULL, _IONBF, 0);       /* as tfile_open makes a FILE on a descriptor: */
    tfile_t t;
    ck_assert_int_eq(tfile_open(&t, fp, 3, 4, 2), 0);
    for (size_t off = 0; off < n; off += 5000) tfile_write(&t, payload + off, n - off < 5000 ? n - off : 5000);
    ck_assert_int_eq(tfile_close(&t), 0);
    fclose(fp);
    ck_assert_uint_eq(r.len, t.file_bytes);
    ck_assert_uint_ge(r.writes, 4);
    /* the only odd write is the last, from a multiple of the batch */
    ck_assert_uint_eq(r.odd_writes, 1);
    ck_assert_uint_eq(r.last_off % TFILE_OUT_BATCH, 0);
    ck_assert_uint_eq(r.last_off + r.last_len, r.len);
    size_t got_len;
    int streams;
    uint8_t *got = read_back(r.data, r.len, &got_len, &streams);
    ck_assert_uint_eq(got_len, n);
    ck_assert(memcmp(got, payload, n) == 0);
    free(got);
    free(r.data);
    free(payload);
}
END_TEST

/* ...checked here: a FILE on a descriptor is left unbuffered. */
START_TEST(a_file_on_a_descriptor_is_left_unbuffered)
{
    FILE *fp = tmpfile();
    ck_assert_ptr_nonnull(fp);
    tfile_t t;
    ck_assert_int_eq(tfile_open(&t, fp, 3, 4, 2), 0);
    tfile_write(&t, "x", 1);
    ck_assert_int_eq(tfile_close(&t), 0);
    ck_assert_uint_le(__fbufsize(fp), 1);   /* fully buffered, it would be 4096 */
    fclose(fp);
}
END_TEST

START_TEST(empty_payload_has_no_blocks)
{
    char *buf = NULL;
    size_t blen = 0;
    FILE *fp = open_memstream(&buf, &blen);
    tfile_t t;
    ck_assert_int_eq(tfile_open(&t, fp, 3, 4, 2), 0);
    ck_assert_int_eq(tfile_close(&t), 0);
    fclose(fp);
    ck_assert_uint_eq(blen, 6);
    free(buf);
}
END_TEST

START_TEST(write_errors_are_reported_at_close)
{
    FILE *fp = fopen("/dev/full", "wb");
    if (!fp) return;
    setvbuf(fp, NULL, _IONBF, 0);
    tfile_t t;
    tfile_open(&t, fp, 3, 4, 2);
    uint8_t junk[70000] = {1};
    tfile_write(&t, junk, sizeof junk);
    ck_assert_int_eq(tfile_close(&t), -1);
    ck_assert_int_ne(t.err, 0);
    ck_assert_ptr_nonnull(t.err_what);
    fclose(fp);
}
END_TEST

/* ---- LZ4 ---- */

/* Read LZ4 blocks after `pos` back as every release's loader does: each
 * stream decodes into two 64 KiB buffers in turn, so a block may refer
 * back into the stream's previous block alone. */
static uint8_t *read_lz4_blocks(const uint8_t *file, size_t len, size_t pos, int streams, size_t *out_len)
{
    LZ4_streamDecode_t *ds[256];
    char *buf[256][2];
    for (int i = 0; i < streams; i++) {
        ds[i] = LZ4_createStreamDecode();
        buf[i][0] = malloc(65536);
        buf[i][1] = malloc(65536);
    }
    uint8_t *out = malloc(len * 300 + 65536);
    size_t o = 0, k = 0;
    while (pos < len) {
        uint32_t size;
        memcpy(&size, file + pos, 4);
        pos += 4;
        const int s = (int)(k % (size_t)streams);
        char *dst = buf[s][(k / (size_t)streams) % 2];
        const int n = LZ4_decompress_safe_continue(ds[s], (const char *)file + pos, dst, (int)size, 65536);
        ck_assert_int_gt(n, 0);
        if (pos + size < len) ck_assert_int_eq(n, 65536);
        memcpy(out + o, dst, (size_t)n);
        o += (size_t)n;
        pos += size;
        k++;
    }
    for (int i = 0; i < streams; i++) {
        LZ4_freeStreamDecode(ds[i]);
        free(buf[i][0]);
        free(buf[i][1]);
    }
    *out_len = o;
    return out;
}

/* n bytes in which chunk k repeats chunk k - 4 from its 100th byte on (so
 * each of four streams sees its own previous chunk again, within LZ4's
 * reach of 65535 bytes back), each chunk noise to LZ4 itself. */
static uint8_t *repeating_payload(size_t n)
{
    uint8_t *p = malloc(n);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        if (i >= 4 * 65536) {
            p[i] = p[i - 4 * 65536 + 100];
            continue;
        }
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (uint8_t)x;
    }
    return p;
}

/* Write n payload bytes in odd-sized writes with params p into memory. */
static char *write_with(const tfile_params_t *p, const uint8_t *payload, size_t n, size_t *blen, tfile_t *t)
{
    char *buf = NULL;
    FILE *fp = open_memstream(&buf, blen);
    ck_assert_int_eq(tfile_open_with(t, fp, p), 0);
    for (size_t off = 0; off < n;) {
        size_t k = (off * 7 + 333) % 30000 + 1;
        if (k > n - off) k = n - off;
        tfile_write(t, payload + off, k);
        off += k;
    }
    ck_assert_int_eq(tfile_close(t), 0);
    fclose(fp);
    return buf;
}

static const tfile_codec_t lz4_codecs[] = { TFILE_LZ4, TFILE_LZ4HC, TFILE_LZ4_EXTREME };

/* Each LZ4 mode: type byte 0, four streams, the payload back whole; a
 * chunk its stream saw in its previous block compresses to next to
 * nothing (the block refers back), and so cannot be decoded alone. */
START_TEST(lz4_modes_round_trip_through_four_streams)
{
    const tfile_codec_t codec = lz4_codecs[_i];
    const size_t n = 10 * 65536 + 4321;
    uint8_t *payload = repeating_payload(n);
    const tfile_params_t p = { .codec = codec, .streams = 4, .workers = 2 };
    size_t blen = 0;
    tfile_t t;
    char *buf = write_with(&p, payload, n, &blen, &t);
    ck_assert_uint_eq(t.file_bytes, blen);
    ck_assert(memcmp(buf, "tr\xfdP\x00\x04", 6) == 0);
    size_t got_len;
    uint8_t *got = read_lz4_blocks((uint8_t *)buf, blen, 6, 4, &got_len);
    ck_assert_uint_eq(got_len, n);
    ck_assert(memcmp(got, payload, n) == 0);
    size_t pos = 6;
    for (int b = 0; b < 5; b++) {
        uint32_t size;
        memcpy(&size, buf + pos, 4);
        if (b < 4) ck_assert_uint_gt(size, 65536);         /* noise: stored as it is */
        else {
            ck_assert_uint_lt(size, 2000);                  /* block 4 repeats block 0 */
            char out[65536];
            ck_assert_int_lt(LZ4_decompress_safe(buf + pos + 4, out, (int)size, sizeof out), 65536);
        }
        pos += 4 + size;
    }
    free(got);
    free(payload);
    free(buf);
}
END_TEST

/* As for zstd, the file does not depend on the threads compressing it. */
START_TEST(lz4_file_does_not_depend_on_the_compression_threads)
{
    const tfile_codec_t codec = lz4_codecs[_i];
    const size_t n = (TFILE_SLOTS + 11) * (size_t)65536 + 99;
    uint8_t *payload = malloc(n);
    for (size_t i = 0; i < n; i++) payload[i] = (uint8_t)(i * 37 / 11 ^ (i >> 10));
    tfile_params_t p = { .codec = codec, .streams = 4, .workers = 4 };
    size_t ref_len = 0;
    tfile_t t;
    char *ref = write_with(&p, payload, n, &ref_len, &t);
    for (p.workers = 0; p.workers <= 3; p.workers++) {
        size_t len = 0;
        char *buf = write_with(&p, payload, n, &len, &t);
        ck_assert_int_eq(t.workers, p.workers);
        ck_assert_uint_eq(len, ref_len);
        ck_assert(memcmp(buf, ref, len) == 0);
        free(buf);
    }
    /* streams 0: one stream on this thread, through more chunks than slots */
    const size_t big = (TFILE_SLOTS + 40) * (size_t)65536 + 3;
    uint8_t *more = malloc(big);
    for (size_t i = 0; i < big; i++) more[i] = (uint8_t)(i * 29 / 5 ^ (i >> 9));
    p = (tfile_params_t){ .codec = codec, .streams = 0, .workers = 2 };
    size_t len = 0;
    char *buf = write_with(&p, more, big, &len, &t);
    ck_assert_int_eq(t.workers, 0);
    ck_assert(memcmp(buf, "tr\xfdP\x00\x01", 6) == 0);
    size_t got_len;
    uint8_t *got = read_lz4_blocks((uint8_t *)buf, len, 6, 1, &got_len);
    ck_assert_uint_eq(got_len, big);
    ck_assert(memcmp(got, more, big) == 0);
    free(got);
    free(buf);
    free(more);
    free(ref);
    free(payload);
}
END_TEST

/* The legacy LZ4 container: 'tlZ' 4 and one stream, its blocks those of
 * the current container with one LZ4 stream. */
START_TEST(legacy_lz4_container_is_one_stream_after_tlZ4)
{
    const tfile_codec_t codec = lz4_codecs[_i];
    const size_t n = 6 * 65536 + 17;
    uint8_t *payload = repeating_payload(n);
    tfile_params_t p = { .codec = codec, .streams = 1, .workers = 1 };
    size_t cur_len = 0;
    tfile_t t;
    char *cur = write_with(&p, payload, n, &cur_len, &t);
    p.legacy = true;
    p.streams = 4;
    size_t blen = 0;
    char *buf = write_with(&p, payload, n, &blen, &t);
    ck_assert_int_eq(t.streams, 1);
    ck_assert(memcmp(buf, "tlZ\x04", 4) == 0);
    ck_assert_uint_eq(blen, cur_len - 2);
    ck_assert(memcmp(buf + 4, cur + 6, blen - 4) == 0);
    size_t got_len;
    uint8_t *got = read_lz4_blocks((uint8_t *)buf, blen, 4, 1, &got_len);
    ck_assert_uint_eq(got_len, n);
    ck_assert(memcmp(got, payload, n) == 0);
    free(got);
    free(buf);
    free(cur);
    free(payload);
}
END_TEST

/* Up to 255 streams, upstream's limit (the header's byte); more are 255. */
START_TEST(up_to_255_streams)
{
    const size_t n = 300 * 65536 + 1;
    uint8_t *payload = malloc(n);
    for (size_t i = 0; i < n; i++) payload[i] = (uint8_t)(i * 13 / 3 ^ (i >> 12));
    const tfile_codec_t codecs[] = { TFILE_ZSTD, TFILE_LZ4 };
    for (size_t c = 0; c < 2; c++) {
        const tfile_params_t p = { .codec = codecs[c], .level = 1, .streams = 300, .workers = 2 };
        size_t blen = 0;
        tfile_t t;
        char *buf = write_with(&p, payload, n, &blen, &t);
        ck_assert_int_eq(t.streams, 255);
        ck_assert_uint_eq((uint8_t)buf[5], 255);
        ck_assert_uint_eq((uint8_t)buf[4], codecs[c] == TFILE_ZSTD ? 1 : 0);
        size_t got_len;
        uint8_t *got = codecs[c] == TFILE_ZSTD ? read_blocks((uint8_t *)buf, blen, 6, 255, &got_len)
                                              : read_lz4_blocks((uint8_t *)buf, blen, 6, 255, &got_len);
        ck_assert_uint_eq(got_len, n);
        ck_assert(memcmp(got, payload, n) == 0);
        free(got);
        free(buf);
    }
    free(payload);
}
END_TEST

/* Whether the file system of /tmp takes O_DIRECT writes (a tmpfs refuses
 * them), tried on a file of its own. */
static bool takes_direct_writes(void)
{
    bool ok = false;
#ifdef O_DIRECT
    char path[] = "/tmp/tc-tfile-probe-XXXXXX";
    const int tmp = mkstemp(path);
    if (tmp < 0) return false;
    close(tmp);
    const int fd = open(path, O_WRONLY | O_DIRECT);
    void *b = NULL;
    if (fd >= 0 && posix_memalign(&b, 4096, 4096) == 0) {
        memset(b, 0, 4096);
        ok = pwrite(fd, b, 4096, 0) == 4096;
    }
    free(b);
    if (fd >= 0) close(fd);
    unlink(path);
#endif
    return ok;
}

/* n bytes of xorshift noise from `seed`; with `every`, byte i is i
 * wherever i % every == 0 (a payload that compresses, but not to nothing). */
static uint8_t *noise(size_t n, uint64_t seed, unsigned every)
{
    uint8_t *p = malloc(n);
    uint64_t x = seed;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (uint8_t)(every && i % every == 0 ? i : x);
    }
    return p;
}

/* The file at path holds exactly the ref_len bytes of ref; it is removed. */
static void expect_file_holds(const char *path, const char *ref, size_t ref_len)
{
    FILE *in = fopen(path, "rb");
    ck_assert_ptr_nonnull(in);
    char *got = malloc(ref_len + 1);
    ck_assert_uint_eq(fread(got, 1, ref_len + 1, in), ref_len);
    fclose(in);
    unlink(path);
    ck_assert(memcmp(got, ref, ref_len) == 0);
    free(got);
}

/* Written around the page cache (the daemon's saves), a file on the disk
 * is the same file: its whole megabytes directly, each written behind the
 * compressing thread's back where the file system takes O_DIRECT, its end
 * through the FILE's descriptor, which is left at the end; one with few
 * blocks too. */
START_TEST(a_direct_file_is_the_same_file)
{
    const size_t sizes[] = { (size_t)5 * 1024 * 1024 + 4321, 1000 };
    for (size_t c = 0; c < 2; c++) {
        const size_t n = sizes[c];
        uint8_t *payload = noise(n, 88172645463325252ull, 3);
        tfile_params_t p = { .codec = TFILE_ZSTD, .level = 1, .streams = 4, .workers = 0 };
        size_t ref_len = 0;
        tfile_t t;
        char *ref = write_with(&p, payload, n, &ref_len, &t);
        char path[] = "/tmp/tc-tfile-XXXXXX";
        const int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        const bool direct_ok = takes_direct_writes();
        FILE *fp = fdopen(fd, "wb");
        p.direct = true;
        ck_assert_int_eq(tfile_open_with(&t, fp, &p), 0);
        for (size_t off = 0; off < n; off += 5000) tfile_write(&t, payload + off, n - off < 5000 ? n - off : 5000);
        ck_assert_int_eq(tfile_close(&t), 0);
        if (direct_ok) ck_assert_uint_eq(t.batches_behind, ref_len / TFILE_OUT_BATCH);
        if (c == 0 && direct_ok) ck_assert_uint_ge(t.batches_behind, 2);
        ck_assert_int_eq(fflush(fp), 0);
        ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), (off_t)ref_len);
        fclose(fp);
        expect_file_holds(path, ref, ref_len);
        free(ref);
        free(payload);
    }
}
END_TEST

/* A whole megabyte the disk refuses, written behind: the file fails with
 * the write's error, named, not an unwritten megabyte in a file said to
 * be saved. (The direct descriptor is swapped for a read-only one.) */
START_TEST(a_direct_write_that_fails_fails_the_file)
{
    const size_t n = (size_t)4 * 1024 * 1024;
    uint8_t *payload = noise(n, 88172645463325252ull, 0);   /* does not compress: every chunk a full block */
    char path[] = "/tmp/tc-tfile-XXXXXX";
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *fp = fdopen(fd, "wb");
    const tfile_params_t p = { .codec = TFILE_ZSTD, .level = 1, .streams = 4, .workers = 0, .direct = true };
    tfile_t t;
    ck_assert_int_eq(tfile_open_with(&t, fp, &p), 0);
    if (t.dfd >= 0) {
        const int ro = open(path, O_RDONLY);
        ck_assert_int_ge(ro, 0);
        ck_assert_int_ge(dup2(ro, t.dfd), 0);
        close(ro);
    }
    tfile_write(&t, payload, n);
    const int rc = tfile_close(&t);
    if (p.direct && t.direct) {
        ck_assert_int_eq(rc, -1);
        ck_assert_int_eq(t.err, EBADF);
        ck_assert_str_eq(t.err_what, "writing a block");
        ck_assert_uint_ge(t.batches_behind, 1);
    }
    fclose(fp);
    unlink(path);
    free(payload);
}
END_TEST

/* A file system that refuses the direct writes after all (EINVAL before
 * any byte, as one that takes O_DIRECT opens but not such writes): the
 * batch written behind when it says so, and every one after it, go
 * through the FILE at their places, and the file is the same file. The
 * refusal is a descriptor whose writes the kernel rejects with EINVAL
 * (/proc/self/coredump_filter takes a number, not a megabyte). */
START_TEST(a_refused_direct_write_goes_through_the_file)
{
    const size_t n = (size_t)5 * 1024 * 1024 + 777;
    uint8_t *payload = noise(n, 2463534242ull, 4);
    tfile_params_t p = { .codec = TFILE_ZSTD, .level = 1, .streams = 4, .workers = 0 };
    size_t ref_len = 0;
    tfile_t t;
    char *ref = write_with(&p, payload, n, &ref_len, &t);
    char path[] = "/tmp/tc-tfile-XXXXXX";
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *fp = fdopen(fd, "wb");
    p.direct = true;
    ck_assert_int_eq(tfile_open_with(&t, fp, &p), 0);
    const int refuses = open("/proc/self/coredump_filter", O_WRONLY);
    const bool tried = t.dfd >= 0 && refuses >= 0;
    if (tried) ck_assert_int_ge(dup2(refuses, t.dfd), 0);
    if (refuses >= 0) close(refuses);
    tfile_write(&t, payload, n);
    ck_assert_int_eq(tfile_close(&t), 0);
    if (tried) ck_assert_uint_eq(t.batches_behind, 1);   /* the first, refused; the rest through the FILE */
    ck_assert_int_eq(fflush(fp), 0);
    fclose(fp);
    expect_file_holds(path, ref, ref_len);
    free(ref);
    free(payload);
}
END_TEST

START_TEST(codec_names)
{
    char b[32];
    ck_assert_str_eq(tfile_codec_name(TFILE_ZSTD, 9, b, sizeof b), "zstd 9");
    ck_assert_str_eq(tfile_codec_name(TFILE_LZ4, 0, b, sizeof b), "LZ4");
    ck_assert_str_eq(tfile_codec_name(TFILE_LZ4HC, 0, b, sizeof b), "LZ4HC");
    ck_assert_str_eq(tfile_codec_name(TFILE_LZ4_EXTREME, 0, b, sizeof b), "LZ4 extreme");
}
END_TEST

Suite *tfile_suite(void)
{
    Suite *s = suite_create("file container");
    TCase *tc = tcase_create("container");
    tcase_add_test(tc, payload_round_trips_through_four_streams);
    tcase_add_test(tc, file_does_not_depend_on_the_compression_threads);
    tcase_add_test(tc, payload_round_trips_without_threads);
    tcase_add_test(tc, legacy_container_is_one_stream_after_tZst);
    tcase_add_test(tc, empty_legacy_payload_is_the_magic_alone);
    tcase_add_test(tc, file_is_written_in_aligned_megabytes);
    tcase_add_test(tc, a_file_on_a_descriptor_is_left_unbuffered);
    tcase_add_test(tc, empty_payload_has_no_blocks);
    tcase_add_test(tc, write_errors_are_reported_at_close);
    tcase_add_loop_test(tc, lz4_modes_round_trip_through_four_streams, 0, 3);
    tcase_add_loop_test(tc, lz4_file_does_not_depend_on_the_compression_threads, 0, 3);
    tcase_add_loop_test(tc, legacy_lz4_container_is_one_stream_after_tlZ4, 0, 3);
    tcase_add_test(tc, up_to_255_streams);
    tcase_add_test(tc, codec_names);
    tcase_add_test(tc, a_direct_file_is_the_same_file);
    tcase_add_test(tc, a_direct_write_that_fails_fails_the_file);
    tcase_add_test(tc, a_refused_direct_write_goes_through_the_file);
    suite_add_tcase(s, tc);
    return s;
}
