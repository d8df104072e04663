/* test_format.c - unit tests of the file formats (file/format.c) and of
 * the writer's bytes that differ between them: the names --format takes
 * and the stamps they give, the queue delay after the header, the CPU
 * topology with and without dies, and the legacy container of 0.10. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "format.h"
#include "model.h"
#include "unit.h"
#include "writer.h"

START_TEST(every_release_name_gives_its_stamp)
{
    static const struct { const char *name, *stamp; } names[] = {
        { "0.14", "0.14.0" }, { "0.14.0", "0.14.0" }, { "v0.14", "0.14.0" },
        { "0.13", "0.13.0" }, { "0.13.0", "0.13.0" }, { "0.13.1", "0.13.1" }, { "v0.13.1", "0.13.1" },
        { "0.12", "0.12.0" }, { "0.12.0", "0.12.0" }, { "0.12.1", "0.12.1" }, { "0.12.2", "0.12.2" },
        { "0.11.2", "0.11.2" }, { "5479a42", "0.11.2" }, { "5479a42e", "0.11.2" },
        { "0.11.1", "0.11.1" }, { "0.11", "0.11.0" }, { "0.11.0", "0.11.0" },
        { "0.10", "0.10.0" }, { "0.10.0", "0.10.0" }, { "v0.10", "0.10.0" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const file_format_t *f = file_format_by_name(names[i].name);
        ck_assert_msg(f != NULL, "%s", names[i].name);
        ck_assert_str_eq(f->name, names[i].stamp);
        char stamp[16];
        snprintf(stamp, sizeof stamp, "%u.%u.%u", f->stamp[0], f->stamp[1], f->stamp[2]);
        ck_assert_str_eq(stamp, names[i].stamp);
    }
    ck_assert_ptr_eq(file_format_default(), file_format_by_name("0.14.0"));
}
END_TEST

START_TEST(unknown_names_are_refused)
{
    static const char *const bad[] = { "", "v", "0.9", "0.9.0", "0.13.2", "0.14.1", "14", "0.1", "5479a4",
                                       "0.12.x", " 0.13", "0.13 " };
    ck_assert_ptr_null(file_format_by_name(NULL));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(file_format_by_name(bad[i]) == NULL, "'%s'", bad[i]);
}
END_TEST

START_TEST(list_text_names_every_format)
{
    char list[512];
    file_format_list_text(list, sizeof list);
    ck_assert_str_eq(list, "0.14.0 (0.14), 0.13.0 (0.13), 0.13.1, 0.12.0 (0.12), 0.12.1, 0.12.2, "
                           "0.11.2 (5479a42, 5479a42e), 0.11.1, 0.11.0 (0.11), 0.10.0 (0.10)");
    /* cut to the buffer, ended */
    char small[8];
    file_format_list_text(small, sizeof small);
    ck_assert_uint_eq(strlen(small), 7);
    ck_assert(strncmp(small, "0.14.0", 6) == 0);
}
END_TEST

/* What each release added, cumulatively (tracy-file-older.md 0.2). */
START_TEST(formats_hold_what_their_release_added)
{
    const file_format_t *f = file_format_by_name("0.10");
    ck_assert(f->legacy && f->delay && !f->group_hint && !f->dies && !f->wakeup_cpu && !f->gpu_notes);
    f = file_format_by_name("0.11");
    ck_assert(!f->legacy && f->delay && !f->group_hint && !f->dies);
    f = file_format_by_name("0.11.1");
    ck_assert(f->delay && f->group_hint && !f->dies && !f->wakeup_cpu);
    f = file_format_by_name("0.11.2");
    ck_assert(f->delay && f->group_hint && f->dies && !f->wakeup_cpu);
    f = file_format_by_name("0.12.2");
    ck_assert(f->delay && f->dies && f->wakeup_cpu && !f->gpu_notes);
    f = file_format_by_name("0.13.1");
    ck_assert(!f->delay && f->wakeup_cpu && f->gpu_notes && !f->sections && !f->msg_meta);
    f = file_format_default();
    ck_assert(!f->legacy && !f->delay && f->group_hint && f->dies && f->wakeup_cpu && f->gpu_notes && f->sections &&
              f->msg_meta);
}
END_TEST

/* ---- the writer's bytes -------------------------------------------------- */

typedef struct {
    queryq_t q;
    model_t m;
} fixture_t;

/* A model with a queue delay of 46 ns and a topology of two packages:
 * package 0 with cores 0 and 1 on die 0 and the same ids on die 1,
 * package 1 with core 5 on die 0. */
static void setup(fixture_t *f)
{
    queryq_init(&f->q, 1000, NULL, NULL);
    model_init(&f->m, &f->q);
    const welcome_t w = { .timer_mul = 1.0, .delay = 46 };
    model_welcome(&f->m, &w);
    model_cpu_topology(&f->m, 0, 0, 0, 0);
    model_cpu_topology(&f->m, 0, 0, 1, 1);
    model_cpu_topology(&f->m, 0, 1, 0, 2);
    model_cpu_topology(&f->m, 0, 1, 1, 3);
    model_cpu_topology(&f->m, 1, 0, 5, 4);
    model_finish(&f->m);
}

static void teardown(fixture_t *f)
{
    model_free(&f->m);
    queryq_free(&f->q);
}

/* The model written in format fmt, its payload decompressed; the
 * container's header is checked (`tZst` for legacy). */
static uint8_t *payload_of(const model_t *m, const file_format_t *fmt, size_t *len)
{
    char *buf = NULL;
    size_t blen = 0;
    FILE *fp = open_memstream(&buf, &blen);
    tfile_t t;
    ck_assert_int_eq(fmt->legacy ? tfile_open_legacy(&t, fp, 1, 0) : tfile_open(&t, fp, 1, 0, 0), 0);
    writer_write_trace(m, fmt, &t);
    ck_assert_int_eq(tfile_close(&t), 0);
    fclose(fp);
    const size_t head = fmt->legacy ? 4 : 6;
    ck_assert(memcmp(buf, fmt->legacy ? "tZst" : "tr\xfdP\x01\x01", head) == 0);
    uint8_t *out = malloc(blen * 64 + 65536);
    ZSTD_DStream *ds = ZSTD_createDStream();
    size_t o = 0;
    for (size_t pos = head; pos < blen;) {
        uint32_t size;
        memcpy(&size, buf + pos, 4);
        ZSTD_inBuffer in = { buf + pos + 4, size, 0 };
        ZSTD_outBuffer ob = { out + o, 65536, 0 };
        ck_assert(!ZSTD_isError(ZSTD_decompressStream(ds, &ob, &in)));
        o += ob.pos;
        pos += 4 + size;
    }
    ZSTD_freeDStream(ds);
    free(buf);
    *len = o;
    return out;
}

static uint64_t get_u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* Where the topology starts: after the header, the delay if any, and the
 * capture information (66 fixed bytes, three strings, two u64). */
static size_t topology_offset(const uint8_t *p, bool delay)
{
    size_t o = 8 + (delay ? 8 : 0) + 66;
    o += 8 + get_u64(p + o);            /* capture name */
    o += 8 + get_u64(p + o);            /* capture program */
    o += 16;                            /* capture time, executable time */
    o += 8 + get_u64(p + o);            /* host info */
    return o;
}

/* A byte string of u32 and u64 values, as the topology is written. */
typedef struct { uint8_t b[512]; size_t n; } topo_bytes_t;
static void put32(topo_bytes_t *s, uint32_t v) { memcpy(s->b + s->n, &v, 4); s->n += 4; }
static void put64(topo_bytes_t *s, uint64_t v) { memcpy(s->b + s->n, &v, 8); s->n += 8; }

static topo_bytes_t topology_with_dies(void)
{
    topo_bytes_t s = { .n = 0 };
    put64(&s, 2);                                               /* packages */
    put32(&s, 0); put64(&s, 2);                                 /* package 0: 2 dies */
    put32(&s, 0); put64(&s, 2);                                 /*   die 0: 2 cores */
    put32(&s, 0); put64(&s, 1); put32(&s, 0);                   /*     core 0: cpu 0 */
    put32(&s, 1); put64(&s, 1); put32(&s, 1);                   /*     core 1: cpu 1 */
    put32(&s, 1); put64(&s, 2);                                 /*   die 1: 2 cores */
    put32(&s, 0); put64(&s, 1); put32(&s, 2);                   /*     core 0: cpu 2 */
    put32(&s, 1); put64(&s, 1); put32(&s, 3);                   /*     core 1: cpu 3 */
    put32(&s, 1); put64(&s, 1);                                 /* package 1: 1 die */
    put32(&s, 0); put64(&s, 1);                                 /*   die 0: 1 core */
    put32(&s, 5); put64(&s, 1); put32(&s, 4);                   /*     core 5: cpu 4 */
    return s;
}

/* Without dies, the cores of the same id on both dies are one. */
static topo_bytes_t topology_without_dies(void)
{
    topo_bytes_t s = { .n = 0 };
    put64(&s, 2);                                               /* packages */
    put32(&s, 0); put64(&s, 2);                                 /* package 0: 2 cores */
    put32(&s, 0); put64(&s, 2); put32(&s, 0); put32(&s, 2);     /*   core 0: cpus 0, 2 */
    put32(&s, 1); put64(&s, 2); put32(&s, 1); put32(&s, 3);     /*   core 1: cpus 1, 3 */
    put32(&s, 1); put64(&s, 1);                                 /* package 1: 1 core */
    put32(&s, 5); put64(&s, 1); put32(&s, 4);                   /*   core 5: cpu 4 */
    return s;
}

START_TEST(header_delay_and_topology_follow_the_format)
{
    fixture_t f;
    setup(&f);
    ck_assert_int_eq(f.m.delay_ns, 46);
    static const char *const names[] = { "0.14.0", "0.13.0", "0.13.1", "0.12.0", "0.12.2", "0.11.2", "0.11.1",
                                         "0.11.0", "0.10.0" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const file_format_t *fmt = file_format_by_name(names[i]);
        size_t len;
        uint8_t *p = payload_of(&f.m, fmt, &len);
        ck_assert(memcmp(p, "tracy", 5) == 0);
        ck_assert(memcmp(p + 5, fmt->stamp, 3) == 0);
        if (fmt->delay) ck_assert_uint_eq(get_u64(p + 8), 46);
        /* resolution follows at once: the welcome's 0 */
        const size_t o = topology_offset(p, fmt->delay);
        const topo_bytes_t want = fmt->dies ? topology_with_dies() : topology_without_dies();
        ck_assert_uint_ge(len, o + want.n);
        ck_assert_msg(memcmp(p + o, want.b, want.n) == 0, "topology of %s", names[i]);
        free(p);
    }
    teardown(&f);
}
END_TEST

/* A payload differs from 0.14.0's by what its format leaves out: here
 * (no threads, messages, GPU or scheduling) the delay, the two empty
 * section counts, and the dies. */
START_TEST(payload_sizes_differ_by_the_fields_left_out)
{
    fixture_t f;
    setup(&f);
    size_t n14, n13, n12, n111;
    free(payload_of(&f.m, file_format_by_name("0.14"), &n14));
    free(payload_of(&f.m, file_format_by_name("0.13"), &n13));
    free(payload_of(&f.m, file_format_by_name("0.12"), &n12));
    free(payload_of(&f.m, file_format_by_name("0.11.1"), &n111));
    ck_assert_uint_eq(n13, n14 - 16);                   /* no section counts */
    ck_assert_uint_eq(n12, n13 + 8);                    /* the delay */
    /* dies: package 0's 2 dies (12 bytes each) and 4 cores become 2 cores
     * of 2 cpus (-2 * 12 bytes); package 1's one die goes (-12) */
    ck_assert_uint_eq(n111, n12 - 24 - 24 - 12);
    teardown(&f);
}
END_TEST

Suite *format_suite(void)
{
    Suite *s = suite_create("file formats");
    TCase *tc = tcase_create("formats");
    tcase_add_test(tc, every_release_name_gives_its_stamp);
    tcase_add_test(tc, unknown_names_are_refused);
    tcase_add_test(tc, list_text_names_every_format);
    tcase_add_test(tc, formats_hold_what_their_release_added);
    tcase_add_test(tc, header_delay_and_topology_follow_the_format);
    tcase_add_test(tc, payload_sizes_differ_by_the_fields_left_out);
    suite_add_tcase(s, tc);
    return s;
}
