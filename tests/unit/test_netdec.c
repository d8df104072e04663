/* test_netdec.c - unit tests of the decoder thread's input: with a spool,
 * received bytes waiting for the decoder leave memory once spooled and are
 * read back in their turn, in order and intact; without one they stay in
 * memory. A write-behind spool (the daemon's) gets every byte, also when
 * a direct write fails. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "netdec.h"
#include "proto.h"
#include "spoolread.h"
#include "unit.h"

#define FRAMES 64
#define FRAME_BYTES PROTO_TARGET_FRAME_SIZE
#define PUSH_BYTES 65536

typedef struct {
    uint8_t *raw;               /* FRAMES decoded frames */
    uint8_t *wire;              /* their LZ4 frames, as a client sends them */
    size_t wire_n;
} stream_t;

/* Incompressible frames, each opening with a byte that is no event type
 * (the decoder thread's payload numbering then leaves them as they are). */
static void make_stream(stream_t *s)
{
    s->raw = malloc((size_t)FRAMES * FRAME_BYTES);
    s->wire = malloc((size_t)FRAMES * (4 + PROTO_LZ4_MAX_FRAME));
    s->wire_n = 0;
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < (size_t)FRAMES * FRAME_BYTES; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        s->raw[i] = (uint8_t)x;
    }
    LZ4_stream_t *lz4 = LZ4_createStream();
    static char ring[3 * FRAME_BYTES];
    size_t off = 0;
    for (int f = 0; f < FRAMES; f++) {
        uint8_t *frame = s->raw + (size_t)f * FRAME_BYTES;
        frame[0] = 0xFF;
        memcpy(ring + off, frame, FRAME_BYTES);
        int sz = LZ4_compress_fast_continue(lz4, ring + off, (char *)s->wire + s->wire_n + 4, FRAME_BYTES,
                                           PROTO_LZ4_MAX_FRAME, 1);
        ck_assert_int_gt(sz, 0);
        uint32_t size = (uint32_t)sz;
        memcpy(s->wire + s->wire_n, &size, 4);
        s->wire_n += 4 + (size_t)sz;
        off += FRAME_BYTES;
        if (off > 2 * FRAME_BYTES) off = 0;
    }
    LZ4_freeStream(lz4);
}

static void free_stream(stream_t *s)
{
    free(s->raw);
    free(s->wire);
}

static void on_ready(void *ctx)
{
    (void)ctx;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void push_all(netdec_t *d, const stream_t *s)
{
    for (size_t off = 0; off < s->wire_n; off += PUSH_BYTES)
        netdec_push(d, s->wire + off, s->wire_n - off < PUSH_BYTES ? s->wire_n - off : PUSH_BYTES);
    netdec_end(d);
}

/* Take every item, checking each frame against the one sent; returns the
 * frames seen before END. */
static int drain_and_check(netdec_t *d, const stream_t *s)
{
    int frames = 0;
    for (int idle = 0; idle < 20000;) {
        netdec_item_t it;
        if (!netdec_pop(d, &it)) {
            sleep_ms(1);
            idle++;
            continue;
        }
        ck_assert_int_ne(it.kind, NETDEC_ERROR);
        if (it.kind == NETDEC_END) return frames;
        ck_assert_uint_eq(it.n, FRAME_BYTES);
        ck_assert_int_lt(frames, FRAMES);
        ck_assert(memcmp(it.data, s->raw + (size_t)frames * FRAME_BYTES, FRAME_BYTES) == 0);
        frames++;
        netdec_release(d, &it);
    }
    ck_abort_msg("no END item");
    return -1;
}

/* A spool in a directory of its own, removed (and checked gone) at close. */
typedef struct {
    char dir[32], path[64];
    spool_t spool;
} temp_spool_t;

static void temp_spool_open(temp_spool_t *ts)
{
    snprintf(ts->dir, sizeof ts->dir, "/tmp/tc-netdec-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(ts->dir));
    snprintf(ts->path, sizeof ts->path, "%s/x.spool", ts->dir);
    ck_assert_int_eq(spool_open(&ts->spool, ts->path, false), 0);
}

/* A spool closed with keep: its file holds exactly the n bytes at buf;
 * then it is removed. */
static void expect_kept_spool(temp_spool_t *ts, const uint8_t *buf, size_t n)
{
    FILE *f = fopen(ts->path, "rb");
    ck_assert_ptr_nonnull(f);
    uint8_t *back = malloc(n + 1);
    ck_assert_uint_eq(fread(back, 1, n + 1, f), n);
    fclose(f);
    ck_assert(memcmp(back, buf, n) == 0);
    free(back);
    unlink(ts->path);
    rmdir(ts->dir);
}

static void temp_spool_close(temp_spool_t *ts)
{
    spool_close(&ts->spool, false);
    ck_assert_int_ne(access(ts->path, F_OK), 0);
    rmdir(ts->dir);
}

/* Wait (up to 10 s) until the spool thread has written every pushed byte. */
static void wait_until_spooled(netdec_t *d)
{
    for (int i = 0; i < 10000 && netdec_unspooled(d) > 0; i++) sleep_ms(1);
    ck_assert_uint_eq(netdec_unspooled(d), 0);
}

/* A decoder with this spool, the whole stream pushed and spooled, no
 * frame taken yet. */
static netdec_t *push_all_spooled(const stream_t *s, temp_spool_t *ts)
{
    int start_err;
    netdec_t *d = netdec_start(0, proto_by_version(82), on_ready, NULL, &start_err);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(netdec_spool(d, &ts->spool), 0);
    push_all(d, s);
    wait_until_spooled(d);
    return d;
}

/* With a spool written through the page cache (_i 0) or to the disk
 * (_i 1, tracy-capture's: spool_direct), where chunks leave memory only
 * once their megabyte is on the disk, and may go through the page cache
 * when the spool thread falls behind. */
START_TEST(waiting_input_leaves_memory_once_spooled)
{
    stream_t s;
    make_stream(&s);
    temp_spool_t ts;
    temp_spool_open(&ts);
    if (_i == 1) spool_direct(&ts.spool);

    /* nobody takes the frames: the decoder stops after its few slots and
     * the rest of the 16 MB waits */
    netdec_t *d = push_all_spooled(&s, &ts);
    ck_assert_uint_le(netdec_in_memory(d), NETDEC_KEEP_IN_MEMORY + 2 * PUSH_BYTES);
    /* all but what the decoder took into its slots, the megabyte kept and
     * (a direct spool's) the last, partial one */
    ck_assert_uint_ge(netdec_spilled(d) + 12 * FRAME_BYTES + NETDEC_KEEP_IN_MEMORY + SPOOL_STAGE, s.wire_n);
    ck_assert_uint_gt(netdec_backlog(d), s.wire_n / 2);
    ck_assert_uint_gt(netdec_spilled(d), s.wire_n / 2);

    ck_assert_int_eq(drain_and_check(d, &s), FRAMES);
    netdec_stop(d);
    /* the spool holds exactly what was pushed */
    ck_assert_uint_eq(ts.spool.bytes, s.wire_n);
    uint8_t *back = malloc(s.wire_n);
    ck_assert_int_eq(spool_read_at(&ts.spool, 0, back, s.wire_n), 0);
    ck_assert(memcmp(back, s.wire, s.wire_n) == 0);
    free(back);
    temp_spool_close(&ts);
    free_stream(&s);
}
END_TEST

static off_t file_size(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return st.st_size;
}

/* A spool that stops being written (here: a file size limit, as a full
 * disk would) loses no input: what was spilled to it before is still read
 * back in its turn, the rest stays in memory; once nothing waits in it, it
 * is emptied, to give a full disk its space back. */
START_TEST(a_failed_spool_is_emptied_once_nothing_waits_in_it)
{
    const rlim_t limit = 4u << 20;
    void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);  /* writes past the limit fail with EFBIG */
    struct rlimit old, rl = { limit, limit };
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    rl.rlim_max = old.rlim_max;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    stream_t s;
    make_stream(&s);
    ck_assert_uint_gt(s.wire_n, 3 * limit);
    temp_spool_t ts;
    temp_spool_open(&ts);

    netdec_t *d = push_all_spooled(&s, &ts);
    ck_assert_int_eq(netdec_spool_error(d), EFBIG);
    /* input spilled before the failure still waits in the spool */
    ck_assert_uint_gt(netdec_spilled(d), 0);
    ck_assert(!ts.spool.abandoned);
    ck_assert_int_eq(file_size(ts.path), (off_t)limit);

    ck_assert_int_eq(drain_and_check(d, &s), FRAMES);
    ck_assert(ts.spool.abandoned);
    ck_assert_int_eq(file_size(ts.path), 0);
    netdec_stop(d);
    temp_spool_close(&ts);      /* and removed */
    free_stream(&s);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_xfsz);
}
END_TEST

START_TEST(without_a_spool_waiting_input_stays_in_memory)
{
    stream_t s;
    make_stream(&s);
    int start_err;
    netdec_t *d = netdec_start(0, proto_by_version(82), on_ready, NULL, &start_err);
    ck_assert_ptr_nonnull(d);
    push_all(d, &s);
    sleep_ms(50);
    ck_assert_uint_eq(netdec_spilled(d), 0);
    ck_assert_uint_gt(netdec_in_memory(d), s.wire_n / 2);
    ck_assert_int_eq(drain_and_check(d, &s), FRAMES);
    ck_assert_uint_eq(netdec_in_memory(d), 0);
    netdec_stop(d);
    free_stream(&s);
}
END_TEST

/* Input leaves memory only for a spool it can be read back from (here:
 * one marked write-only). */
START_TEST(an_unreadable_spool_keeps_input_in_memory)
{
    stream_t s;
    make_stream(&s);
    temp_spool_t ts;
    temp_spool_open(&ts);
    ts.spool.readable = false;
    netdec_t *d = push_all_spooled(&s, &ts);
    ck_assert_uint_eq(netdec_spilled(d), 0);
    ck_assert_uint_gt(netdec_in_memory(d), s.wire_n / 2);
    ck_assert_int_eq(drain_and_check(d, &s), FRAMES);
    netdec_stop(d);
    ck_assert_uint_eq(ts.spool.bytes, s.wire_n);
    temp_spool_close(&ts);
    free_stream(&s);
}
END_TEST

/* Pages of the file at path [off, off + len) held in the page cache. */
static size_t cached_pages(const char *path, off_t off, size_t len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fileno(f), off);
    ck_assert_ptr_ne(map, MAP_FAILED);
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page;
    unsigned char *vec = malloc(n);
    ck_assert_int_eq(mincore(map, len, vec), 0);
    size_t held = 0;
    for (size_t i = 0; i < n; i++) held += vec[i] & 1;
    free(vec);
    munmap(map, len);
    fclose(f);
    return held;
}

/* A spool nobody reads back (the daemon's) leaves the page cache behind
 * its writes, and holds every byte written, in order. */
START_TEST(a_drop_behind_spool_leaves_the_page_cache_and_keeps_every_byte)
{
    temp_spool_t ts;
    temp_spool_open(&ts);
    spool_drop_behind(&ts.spool);
    const size_t chunk = 300007, total = 48u << 20;
    uint8_t *buf = malloc(chunk);
    uint64_t written = 0;
    while (written < total) {
        for (size_t i = 0; i < chunk; i++) buf[i] = (uint8_t)((written + i) * 2654435761u >> 13);
        spool_write(&ts.spool, buf, chunk);
        written += chunk;
    }
    ck_assert_int_eq(ts.spool.err, 0);
    ck_assert_uint_eq(ts.spool.bytes, written);
    /* the first windows are on the disk and out of memory (not in a
     * tmpfs, which is memory itself): written around the page cache, the
     * whole megabytes (the rest staged), or dropped from it behind */
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (ts.spool.stage) {
        ck_assert_uint_eq(ts.spool.direct_at, written / SPOOL_STAGE * SPOOL_STAGE);
        ck_assert_uint_eq(ts.spool.staged, written % SPOOL_STAGE);
    } else {
        ck_assert_uint_ge(ts.spool.dropped_to, 32u << 20);
    }
    struct statfs fs;
    ck_assert_int_eq(statfs(ts.path, &fs), 0);
    if (fs.f_type != 0x01021994)    /* TMPFS_MAGIC */
        ck_assert_uint_lt(cached_pages(ts.path, 0, 16u << 20), (16u << 20) / page / 4);
    /* and read back, every byte is what was written */
    uint8_t *back = malloc(chunk);
    for (uint64_t at = 0; at < written; at += chunk) {
        ck_assert_int_eq(spool_read_at(&ts.spool, at, back, chunk), 0);
        for (size_t i = 0; i < chunk; i++) buf[i] = (uint8_t)((at + i) * 2654435761u >> 13);
        ck_assert(memcmp(back, buf, chunk) == 0);
    }
    free(back);
    free(buf);
    temp_spool_close(&ts);
}
END_TEST

/* The file of a drop-behind spool itself: what a paused client sent last
 * is in it a second later (spool_flush_stale; before that it may be only
 * in memory), and a spool kept at close holds every byte, in order. */
START_TEST(a_drop_behind_spool_file_gets_every_byte)
{
    temp_spool_t ts;
    temp_spool_open(&ts);
    spool_drop_behind(&ts.spool);
    const size_t n = 3 * SPOOL_STAGE + 12345;
    uint8_t *buf = malloc(n);
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)(i * 2654435761u >> 11);
    spool_write(&ts.spool, buf, 1000);
    spool_write(&ts.spool, buf + 1000, n - 1000 - 77);
    spool_flush_stale(&ts.spool, 1000);           /* too recent: stays in memory */
    struct stat st;
    ck_assert_int_eq(stat(ts.path, &st), 0);
    if (ts.spool.stage) ck_assert_uint_eq((uint64_t)st.st_size, 3 * SPOOL_STAGE);
    sleep_ms(1100);
    spool_flush_stale(&ts.spool, 1000);
    ck_assert_int_eq(stat(ts.path, &st), 0);
    ck_assert_uint_eq((uint64_t)st.st_size, n - 77);
    spool_write(&ts.spool, buf + n - 77, 77);
    ck_assert_int_eq(ts.spool.err, 0);
    spool_close(&ts.spool, true);
    expect_kept_spool(&ts, buf, n);
    free(buf);
}
END_TEST

/* Write-behind (the daemon's): the io thread writes the full megabytes
 * while the writer fills the next; what is under way reads back from
 * memory, and the file gets every byte, in place, by close. */
START_TEST(a_write_behind_spool_file_gets_every_byte)
{
    temp_spool_t ts;
    temp_spool_open(&ts);
    spool_drop_behind(&ts.spool);
    struct spool_io *io = spool_io_start();
    ck_assert_ptr_nonnull(io);
    spool_write_behind(&ts.spool, io);
    const size_t n = 5 * SPOOL_STAGE + 4321;
    uint8_t *buf = malloc(n);
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)(i * 2654435761u >> 13);
    uint8_t *back = malloc(n + 1);
    for (size_t off = 0; off < n;) {
        const size_t k = n - off < 70000 ? n - off : 70000;
        spool_write(&ts.spool, buf + off, k);
        off += k;
        /* everything written so far reads back, wherever it is */
        const size_t from = off > 3 * 70000 ? off - 3 * 70000 : 0;
        ck_assert_int_eq(spool_read_at(&ts.spool, from, back, off - from), 0);
        ck_assert(memcmp(back, buf + from, off - from) == 0);
        ck_assert_uint_le(spool_on_disk(&ts.spool), off);
    }
    spool_settle(&ts.spool);
    ck_assert_int_eq(ts.spool.err, 0);
    ck_assert_uint_eq(ts.spool.bytes, n);
    if (ts.spool.stage) {        /* O_DIRECT here: the five whole megabytes are in the file */
        struct stat st;
        ck_assert_int_eq(stat(ts.path, &st), 0);
        ck_assert_uint_eq((uint64_t)st.st_size, 5 * SPOOL_STAGE);
        ck_assert_uint_eq(spool_on_disk(&ts.spool), 5 * SPOOL_STAGE);
    }
    spool_close(&ts.spool, true);
    spool_io_stop(io);
    expect_kept_spool(&ts, buf, n);
    free(back);
    free(buf);
}
END_TEST

/* A megabyte the io thread cannot write (here its descriptor is made a
 * read-only one) goes through the page cache at its place when the writer
 * settles, with what was staged after it, and the spool goes on that way:
 * the file still gets every byte. */
START_TEST(a_write_behind_spool_falls_back_when_a_megabyte_fails)
{
    temp_spool_t ts;
    temp_spool_open(&ts);
    spool_drop_behind(&ts.spool);
    if (!ts.spool.stage) {          /* no O_DIRECT here: nothing is written behind */
        spool_close(&ts.spool, false);
        rmdir(ts.dir);
        return;
    }
    struct spool_io *io = spool_io_start();
    ck_assert_ptr_nonnull(io);
    spool_write_behind(&ts.spool, io);
    const int ro = open(ts.path, O_RDONLY | O_CLOEXEC);
    ck_assert_int_ge(ro, 0);
    ck_assert_int_ge(dup2(ro, ts.spool.dfd), 0);    /* every direct write fails (EBADF) */
    close(ro);
    const size_t n = 2 * SPOOL_STAGE + 999;
    uint8_t *buf = malloc(n);
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)(i * 40503u >> 7);
    for (size_t off = 0; off < n; off += 4096) spool_write(&ts.spool, buf + off, n - off < 4096 ? n - off : 4096);
    spool_settle(&ts.spool);
    ck_assert_ptr_null(ts.spool.stage);              /* through the page cache from then on */
    ck_assert_int_eq(ts.spool.err, 0);
    ck_assert_uint_eq(ts.spool.bytes, n);
    spool_close(&ts.spool, true);
    spool_io_stop(io);
    expect_kept_spool(&ts, buf, n);
    free(buf);
}
END_TEST

/* A client that sends a little now and then: a direct spool's file has
 * it within moments (SPOOL_HOLD_MS), not only once a megabyte came. */
START_TEST(a_slow_stream_reaches_a_direct_spool_file_within_moments)
{
    stream_t s;
    make_stream(&s);
    temp_spool_t ts;
    temp_spool_open(&ts);
    spool_direct(&ts.spool);
    int start_err;
    netdec_t *d = netdec_start(0, proto_by_version(82), on_ready, NULL, &start_err);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(netdec_spool(d, &ts.spool), 0);
    netdec_push(d, s.wire, 1000);
    wait_until_spooled(d);
    struct stat st;
    for (int i = 0; i < 100 && stat(ts.path, &st) == 0 && st.st_size < 1000; i++) sleep_ms(10);
    ck_assert_int_eq(stat(ts.path, &st), 0);
    ck_assert_int_eq(st.st_size, 1000);
    /* a steady trickle too, while the thread never waits long */
    for (int i = 1; i <= 20; i++) {
        netdec_push(d, s.wire + 1000 * i, 1000);
        sleep_ms(10);
    }
    wait_until_spooled(d);
    sleep_ms(20);
    ck_assert_int_eq(stat(ts.path, &st), 0);
    ck_assert_int_ge(st.st_size, 10000);
    netdec_end(d);
    netdec_stop(d);
    ck_assert_int_eq(stat(ts.path, &st), 0);
    ck_assert_int_eq(st.st_size, 21000);        /* all of it once stopped */
    uint8_t back[21000];
    ck_assert_int_eq(spool_read_at(&ts.spool, 0, back, sizeof back), 0);
    ck_assert(memcmp(back, s.wire, sizeof back) == 0);
    temp_spool_close(&ts);
    free_stream(&s);
}
END_TEST

static void fill_pattern(uint8_t *p, uint64_t at, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)((at + i) * 2654435761u >> 13);
}

/* spool_write_now (the writer is behind) goes through the page cache,
 * staged bytes first; spool_write goes back to the disk from the next
 * whole megabyte. Every byte lands at its place; what spool_on_disk says
 * is readable is. */
START_TEST(a_spool_behind_goes_through_the_cache_and_back_to_the_disk)
{
    temp_spool_t ts;
    temp_spool_open(&ts);
    spool_direct(&ts.spool);
    const bool direct = ts.spool.stage != NULL;
    const size_t total = 5 * SPOOL_STAGE + 4321;
    uint8_t *buf = malloc(total);
    fill_pattern(buf, 0, total);
    spool_write(&ts.spool, buf, 300000);
    if (direct) ck_assert_uint_eq(spool_on_disk(&ts.spool), 0);        /* staged */
    spool_write_now(&ts.spool, buf + 300000, 1500000);
    ck_assert_uint_eq(spool_on_disk(&ts.spool), 1800000);
    ck_assert(!spool_holds_back(&ts.spool));
    spool_write(&ts.spool, buf + 1800000, 2 * SPOOL_STAGE);
    if (direct) {
        /* through the cache up to 2 MiB, then staged, the 3rd MiB on disk */
        ck_assert(!ts.spool.cached);
        ck_assert_uint_eq(spool_on_disk(&ts.spool), 3 * SPOOL_STAGE);
        ck_assert_uint_eq(ts.spool.staged, 1800000 - SPOOL_STAGE);
    }
    spool_write_now(&ts.spool, buf + 1800000 + 2 * SPOOL_STAGE, 1000);
    const size_t sofar = 1800000 + 2 * SPOOL_STAGE + 1000;
    spool_write(&ts.spool, buf + sofar, total - sofar);
    ck_assert_int_eq(ts.spool.err, 0);
    ck_assert_uint_eq(ts.spool.bytes, total);
    spool_reader_t r;
    ck_assert_int_eq(spool_reader_open(&r, &ts.spool), 0);
    const uint64_t on_disk = spool_on_disk(&ts.spool);
    ck_assert_uint_ge(on_disk, total - SPOOL_STAGE);
    for (uint64_t at = 0; at + 65536 <= on_disk; at += 65536) {
        int err = 0;
        const uint8_t *p = spool_reader_get(&r, at, 65536, on_disk, &err);
        ck_assert_msg(p != NULL, "offset %llu: %s", (unsigned long long)at, strerror(err));
        ck_assert(memcmp(p, buf + at, 65536) == 0);
    }
    spool_reader_close(&r);
    spool_close(&ts.spool, true);
    FILE *f = fopen(ts.path, "rb");
    ck_assert_ptr_nonnull(f);
    uint8_t *back = malloc(total + 1);
    ck_assert_uint_eq(fread(back, 1, total + 1, f), total);
    fclose(f);
    ck_assert(memcmp(back, buf, total) == 0);
    free(back);
    free(buf);
    unlink(ts.path);
    rmdir(ts.dir);
}
END_TEST

/* The reader: any range below what is on the disk, across its windows
 * and back; none beyond. _i 1: a direct spool, read around the page cache
 * (unaligned ranges from aligned reads; the file's end inside a block). */
START_TEST(the_reader_reads_windows_and_nothing_unwritten)
{
    temp_spool_t ts;
    temp_spool_open(&ts);
    if (_i == 1) spool_direct(&ts.spool);
    const size_t total = 3 * SPOOL_READ_WINDOW + 999;
    uint8_t *buf = malloc(total);
    fill_pattern(buf, 0, total);
    spool_write(&ts.spool, buf, total);
    /* a direct spool's last, partial megabyte is held back */
    const uint64_t end = spool_on_disk(&ts.spool);
    ck_assert_uint_eq(end, ts.spool.stage ? total / SPOOL_STAGE * SPOOL_STAGE : total);
    spool_reader_t r;
    ck_assert_int_eq(spool_reader_open(&r, &ts.spool), 0);
    /* (where the file system takes O_DIRECT, the reader does too) */
    ck_assert_int_eq(r.dfd >= 0, ts.spool.stage != NULL);
    const struct { uint64_t at; size_t n; } reads[] = {
        { 0, 10 }, { 5, 100000 }, { SPOOL_READ_WINDOW - 3, 7 }, { 1, 1 }, { end - 999, 999 },
        { 12345, SPOOL_READ_WINDOW + 5 }, { 4095, 4097 }, { end - 1, 1 }, { 0, end },
    };
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
        int err = 0;
        const uint8_t *p = spool_reader_get(&r, reads[i].at, reads[i].n, end, &err);
        ck_assert_msg(p != NULL, "read %zu: %s", i, strerror(err));
        ck_assert(memcmp(p, buf + reads[i].at, reads[i].n) == 0);
    }
    int err = 0;
    ck_assert_ptr_null(spool_reader_get(&r, end - 10, 20, end, &err));
    ck_assert_int_eq(err, EIO);
    /* in order, as the decoder reads: every window after the first read
     * ahead (direct), but a last one of less than 1 MiB */
    spool_reader_close(&r);
    ck_assert_int_eq(spool_reader_open(&r, &ts.spool), 0);
    for (uint64_t at = 0; at < end; at += 100000) {
        const size_t n = end - at < 100000 ? (size_t)(end - at) : 100000;
        const uint8_t *p = spool_reader_get(&r, at, n, end, &err);
        ck_assert_msg(p != NULL, "offset %llu: %s", (unsigned long long)at, strerror(err));
        ck_assert(memcmp(p, buf + at, n) == 0);
    }
    ck_assert_uint_eq(r.windows, 4);
    if (r.dfd >= 0) ck_assert_uint_eq(r.ahead, 2);
    spool_reader_close(&r);
    free(buf);
    temp_spool_close(&ts);
}
END_TEST

Suite *netdec_suite(void)
{
    Suite *s = suite_create("netdec");
    TCase *tc = tcase_create("spill");
    tcase_add_loop_test(tc, waiting_input_leaves_memory_once_spooled, 0, 2);
    tcase_add_test(tc, a_slow_stream_reaches_a_direct_spool_file_within_moments);
    tcase_add_test(tc, a_spool_behind_goes_through_the_cache_and_back_to_the_disk);
    tcase_add_loop_test(tc, the_reader_reads_windows_and_nothing_unwritten, 0, 2);
    tcase_add_test(tc, without_a_spool_waiting_input_stays_in_memory);
    tcase_add_test(tc, an_unreadable_spool_keeps_input_in_memory);
    tcase_add_test(tc, a_failed_spool_is_emptied_once_nothing_waits_in_it);
    tcase_add_test(tc, a_drop_behind_spool_leaves_the_page_cache_and_keeps_every_byte);
    tcase_add_test(tc, a_drop_behind_spool_file_gets_every_byte);
    tcase_add_test(tc, a_write_behind_spool_file_gets_every_byte);
    tcase_add_test(tc, a_write_behind_spool_falls_back_when_a_megabyte_fails);
    suite_add_tcase(s, tc);
    return s;
}
