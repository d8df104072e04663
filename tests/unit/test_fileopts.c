/* test_fileopts.c - unit tests of the save options of the command lines
 * (cli/fileopts.c) and of --strip's letters (file/strip.c): zstd levels,
 * stream counts, the LZ4 modes, contradictions, the 0.10 container's one
 * stream, and tracy-update -s's letters. */
#include <check.h>
#include <string.h>
#include <zstd.h>

#include "fileopts.h"
#include "strip.h"
#include "unit.h"

START_TEST(strip_letters_are_tracy_updates)
{
    unsigned mask;
    char bad;
    ck_assert_int_eq(strip_parse("lmpMicsCS", &mask, &bad), 0);
    ck_assert_uint_eq(mask, STRIP_LOCKS | STRIP_MESSAGES | STRIP_PLOTS | STRIP_MEMORY | STRIP_FRAME_IMAGES |
                                STRIP_CONTEXT_SWITCHES | STRIP_SAMPLES | STRIP_SYMBOL_CODE | STRIP_SOURCE_CACHE);
    ck_assert_int_eq(strip_parse("MM", &mask, &bad), 0);
    ck_assert_uint_eq(mask, STRIP_MEMORY);
    ck_assert_int_eq(strip_parse("sS", &mask, &bad), 0);
    ck_assert_uint_eq(mask, STRIP_SAMPLES | STRIP_SOURCE_CACHE);
    ck_assert_int_eq(strip_parse("lxM", &mask, &bad), -1);
    ck_assert_int_eq(bad, 'x');
    ck_assert_int_eq(strip_parse("L", &mask, &bad), -1);        /* letters are case-sensitive */
    ck_assert_int_eq(bad, 'L');
    ck_assert_int_eq(strip_parse("", &mask, &bad), -1);
    ck_assert_int_eq(bad, '\0');
    char text[256];
    strip_describe(STRIP_MEMORY | STRIP_LOCKS | STRIP_SOURCE_CACHE, text, sizeof text);
    ck_assert_str_eq(text, "locks, memory, source cache");
    strip_describe(0, text, sizeof text);
    ck_assert_str_eq(text, "");
    strip_letters_text(text, sizeof text);
    ck_assert(strncmp(text, "l (locks), m (messages), p (plots), M (memory), ", 48) == 0);
}
END_TEST

START_TEST(levels_are_zstds)
{
    file_opts_t o = FILE_OPTS_DEFAULT;
    char err[256], arg[16];
    ck_assert_int_eq(o.codec, TFILE_ZSTD);
    ck_assert_int_eq(o.level, 2);
    ck_assert_int_eq(o.streams, 4);
    ck_assert_int_eq(file_opts_level(&o, "9", err, sizeof err), 0);
    ck_assert_int_eq(o.level, 9);
    snprintf(arg, sizeof arg, "%d", ZSTD_maxCLevel());
    ck_assert_int_eq(file_opts_level(&o, arg, err, sizeof err), 0);
    snprintf(arg, sizeof arg, "%d", ZSTD_minCLevel());
    ck_assert_int_eq(file_opts_level(&o, arg, err, sizeof err), 0);
    ck_assert_int_eq(o.level, ZSTD_minCLevel());
    snprintf(arg, sizeof arg, "%d", ZSTD_maxCLevel() + 1);
    ck_assert_int_eq(file_opts_level(&o, arg, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "-z needs a zstd level from"));
    ck_assert_int_eq(file_opts_level(&o, "3x", err, sizeof err), -1);
    ck_assert_int_eq(file_opts_level(&o, "", err, sizeof err), -1);
}
END_TEST

START_TEST(streams_are_1_to_255_or_one_per_core)
{
    file_opts_t o = FILE_OPTS_DEFAULT;
    char err[256];
    ck_assert(!o.streams_given);
    ck_assert_int_eq(file_opts_streams(&o, "1", err, sizeof err), 0);
    ck_assert_int_eq(o.streams, 1);
    ck_assert(o.streams_given);
    ck_assert_int_eq(file_opts_streams(&o, "255", err, sizeof err), 0);
    ck_assert_int_eq(o.streams, 255);
    ck_assert_int_eq(file_opts_streams(&o, "-1", err, sizeof err), 0);
    ck_assert_int_ge(o.streams, 1);
    const char *bad[] = { "0", "256", "-2", "2.5", "four", "" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(file_opts_streams(&o, bad[i], err, sizeof err) == -1, "'%s'", bad[i]);
}
END_TEST

START_TEST(one_compression_per_file)
{
    file_opts_t o = FILE_OPTS_DEFAULT;
    char err[256];
    ck_assert_int_eq(file_opts_codec(&o, TFILE_LZ4HC, "--lz4hc", err, sizeof err), 0);
    ck_assert_int_eq(file_opts_codec(&o, TFILE_LZ4HC, "--lz4hc", err, sizeof err), 0);   /* said twice */
    ck_assert_int_eq(file_opts_codec(&o, TFILE_LZ4, "--lz4", err, sizeof err), -1);
    ck_assert_str_eq(err, "--lz4hc and --lz4 contradict each other: a file has one compression");
    ck_assert_int_eq(file_opts_level(&o, "5", err, sizeof err), -1);
    ck_assert_str_eq(err, "--lz4hc and -z contradict each other: a file has one compression");
    o = FILE_OPTS_DEFAULT;
    ck_assert_int_eq(file_opts_level(&o, "5", err, sizeof err), 0);
    ck_assert_int_eq(file_opts_level(&o, "7", err, sizeof err), 0);                     /* the last level */
    ck_assert_int_eq(o.level, 7);
    ck_assert_int_eq(file_opts_codec(&o, TFILE_LZ4_EXTREME, "--lz4-extreme", err, sizeof err), -1);
}
END_TEST

/* The 0.10 container has one stream: -j more is refused, the default four
 * become one; every other format takes the count, and every format each
 * codec and strip. */
START_TEST(the_legacy_container_has_one_stream)
{
    const file_format_t *old = file_format_by_name("0.10"), *cur = file_format_default();
    file_opts_t o = FILE_OPTS_DEFAULT;
    char err[256];
    save_opts_t s = { 0 };
    ck_assert_int_eq(file_opts_check(&o, old, err, sizeof err), 0);
    file_opts_apply(&o, old, &s);
    ck_assert_int_eq(s.streams, 1);
    file_opts_apply(&o, cur, &s);
    ck_assert_int_eq(s.streams, 4);
    ck_assert_int_eq(file_opts_streams(&o, "8", err, sizeof err), 0);
    ck_assert_int_eq(file_opts_check(&o, old, err, sizeof err), -1);
    ck_assert_str_eq(err, "-j 8: the 0.10.0 format's container has one compression stream");
    ck_assert_int_eq(file_opts_check(&o, file_format_by_name("0.11.0"), err, sizeof err), 0);
    ck_assert_int_eq(file_opts_streams(&o, "1", err, sizeof err), 0);
    ck_assert_int_eq(file_opts_codec(&o, TFILE_LZ4, "--lz4", err, sizeof err), 0);
    ck_assert_int_eq(file_opts_strip(&o, "Mi", err, sizeof err), 0);
    ck_assert_int_eq(file_opts_check(&o, old, err, sizeof err), 0);
    file_opts_apply(&o, old, &s);
    ck_assert_int_eq(s.codec, TFILE_LZ4);
    ck_assert_uint_eq(s.strip, STRIP_MEMORY | STRIP_FRAME_IMAGES);
    char text[256];
    file_opts_describe(&s, text, sizeof text);
    ck_assert_str_eq(text, "LZ4, 1 stream; without memory, frame images");
    ck_assert_int_eq(file_opts_strip(&o, "Mz", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "unknown letter 'z' in 'Mz'"));
}
END_TEST

Suite *fileopts_suite(void)
{
    Suite *s = suite_create("save options");
    TCase *tc = tcase_create("fileopts");
    tcase_add_test(tc, strip_letters_are_tracy_updates);
    tcase_add_test(tc, levels_are_zstds);
    tcase_add_test(tc, streams_are_1_to_255_or_one_per_core);
    tcase_add_test(tc, one_compression_per_file);
    tcase_add_test(tc, the_legacy_container_has_one_stream);
    suite_add_tcase(s, tc);
    return s;
}
