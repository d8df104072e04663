/* test_families.c - unit tests of families.c and require.c: the names
 * --require takes, when a family counts as present (the base frames, the
 * client's own plots and the runs of fibers do not), and what is said of
 * a missing one. */
#include <check.h>
#include <string.h>

#include "families.h"
#include "require.h"
#include "unit.h"

START_TEST(require_takes_comma_separated_names)
{
    family_set_t set = 0;
    ck_assert_int_eq(require_parse("memory,sampling", &set), 0);
    ck_assert_uint_eq(set, (1u << FAM_MEMORY) | (1u << FAM_SAMPLING));
    /* given again, it adds; empty items are none */
    ck_assert_int_eq(require_parse(",gpu,,context-switches,", &set), 0);
    ck_assert_uint_eq(set, (1u << FAM_MEMORY) | (1u << FAM_SAMPLING) | (1u << FAM_GPU) |
                               (1u << FAM_CONTEXT_SWITCHES));
    family_set_t none = 0;
    ck_assert_int_eq(require_parse("memory,sampels", &none), -1);
    ck_assert_int_eq(require_parse("", &none), -1);
    ck_assert_int_eq(require_parse(",", &none), -1);
    /* the summary's other families are not required */
    ck_assert_int_eq(require_parse("sections", &none), -1);
    ck_assert_int_eq(require_parse("Memory", &none), -1);
    ck_assert_uint_eq(none, 0);
    ck_assert_int_eq(family_by_name("zonesx", 5), FAM_ZONES);
    ck_assert_int_eq(family_by_name("zone", 4), -1);
    ck_assert_int_eq(family_by_name("source-files", 12), FAM_SOURCE_FILES);
    char list[256];
    family_names_text(list, sizeof list);
    ck_assert_str_eq(list, "zones, frames, messages, plots, locks, memory, callstacks, sampling, context-switches, "
                           "gpu, source-files");
}
END_TEST

START_TEST(what_counts_as_present)
{
    /* a capture with nothing but its base frame set and default pool */
    model_counts_t k = { .threads = 1, .frame_sets = 1, .frames = 2, .memory_pools = 1 };
    for (int f = 0; f < FAM_COUNT; f++) ck_assert_msg(!family_present((family_t)f, &k), "%s", family_name(f));
    ck_assert_uint_eq(require_missing((1u << FAM_REQUIRABLE) - 1, &k), (1u << FAM_REQUIRABLE) - 1);
    k.marked_frames = 1;
    ck_assert(family_present(FAM_FRAMES, &k));
    /* the client's CPU usage and power plots are no program's plots */
    k.plots = k.system_plots = 2;
    ck_assert(!family_present(FAM_PLOTS, &k));
    k.plots = 3;
    ck_assert(family_present(FAM_PLOTS, &k));
    /* fibers' runs are no context switches */
    k.context_switches = k.fiber_runs = 40;
    ck_assert(!family_present(FAM_CONTEXT_SWITCHES, &k));
    k.cpu_context_switches = 1;
    ck_assert(family_present(FAM_CONTEXT_SWITCHES, &k));
    /* GPU contexts without a zone, messages of app info alone */
    k.gpu_contexts = 1;
    ck_assert(!family_present(FAM_GPU, &k));
    k.app_info = 1;
    ck_assert(family_present(FAM_MESSAGES, &k));
    ck_assert_uint_eq(require_missing((1u << FAM_FRAMES) | (1u << FAM_GPU) | (1u << FAM_PLOTS), &k), 1u << FAM_GPU);
}
END_TEST

START_TEST(counts_name_their_json_keys)
{
    const model_counts_t k = { .memory_events = 191, .memory_pools = 2, .frames = 406, .marked_frames = 403 };
    family_count_t v[FAMILY_COUNTS_MAX];
    ck_assert_int_eq(family_counts(FAM_MEMORY, &k, v), 2);
    ck_assert_str_eq(v[0].key, "memory_events");
    ck_assert_uint_eq(v[0].n, 191);
    ck_assert_str_eq(v[1].key, "pools");
    ck_assert_int_eq(family_counts(FAM_FRAMES, &k, v), 4);
    ck_assert_str_eq(v[1].key, "marked_frames");
    ck_assert_ptr_null(v[1].many);     /* in the JSON only */
    for (int f = 0; f < FAM_COUNT; f++) {
        const int n = family_counts((family_t)f, &k, v);
        ck_assert_msg(n >= 1 && n <= FAMILY_COUNTS_MAX, "%s: %d", family_name(f), n);
    }
}
END_TEST

START_TEST(missing_families_say_their_causes)
{
    model_counts_t k = { 0 };
    char buf[640];
    ck_assert_ptr_nonnull(strstr(family_missing_text(FAM_MEMORY, &k, 0, buf, sizeof buf), "LD_PRELOAD"));
    family_missing_text(FAM_SAMPLING, &k, 0, buf, sizeof buf);
    ck_assert_msg(strstr(buf, "perf_event_paranoid at most 1") && strstr(buf, "TRACY_NO_SAMPLING") &&
                  strstr(buf, "TRACY_NO_SYSTEM_TRACING") && strstr(buf, "virtual machines") &&
                  strstr(buf, "sampling period is 0"), "%s", buf);
    /* a client whose system tracing started says no sampling period of 0 */
    family_missing_text(FAM_SAMPLING, &k, 125000, buf, sizeof buf);
    ck_assert_msg(!strstr(buf, "period"), "%s", buf);
    ck_assert_ptr_nonnull(strstr(family_missing_text(FAM_CALLSTACKS, &k, 0, buf, sizeof buf), "depth is 0"));
    ck_assert_ptr_nonnull(strstr(family_missing_text(FAM_SOURCE_FILES, &k, 0, buf, sizeof buf), "debug information"));
    ck_assert_ptr_nonnull(strstr(family_missing_text(FAM_GPU, &k, 0, buf, sizeof buf), "no GPU instrumentation"));
    k.gpu_contexts = 2;
    ck_assert_ptr_nonnull(strstr(family_missing_text(FAM_GPU, &k, 0, buf, sizeof buf), "2 GPU contexts were created"));
    for (int f = 0; f < FAM_REQUIRABLE; f++)
        ck_assert_msg(strlen(family_missing_text((family_t)f, &k, 0, buf, sizeof buf)) < sizeof buf - 1, "%s cut",
                      family_name(f));
}
END_TEST

Suite *families_suite(void)
{
    Suite *s = suite_create("families");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, require_takes_comma_separated_names);
    tcase_add_test(tc, what_counts_as_present);
    tcase_add_test(tc, counts_name_their_json_keys);
    tcase_add_test(tc, missing_families_say_their_causes);
    suite_add_tcase(s, tc);
    return s;
}
