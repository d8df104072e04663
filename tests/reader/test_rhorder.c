/* test_rhorder: Check unit tests for rhorder, the emulation of upstream's
 * robin-hood map iteration order (csvexport-and-fidelity.md §A.3). */
#include <check.h>
#include <stdlib.h>

#include "rhorder.h"

/* §5.15 ids of the kitchen fixture in file order (spec §A.3 worked example). */
static const int16_t KITCHEN_IDS[] = { 12, -2, 4,  3,  13, 16, 7,  9,  15, 19, 11, 10, 17, 1, 2,
                                       -4, 18, -9, 5,  6,  -10, -8, 8, -3, -7, 14, -1, -5, -6 };
static const size_t KITCHEN_N = sizeof KITCHEN_IDS / sizeof KITCHEN_IDS[0];

/* Collect keys in iteration order; returns the number found. */
static size_t iterate(const rhorder *m, uint64_t *keys, size_t max)
{
    size_t n = 0;
    uint64_t k;
    for (size_t i = 0; i < rhorder_slots(m); i++)
        if (rhorder_slot(m, i, &k, NULL) && n < max)
            keys[n++] = k;
    return n;
}

static void check_kitchen_order(int reserve)
{
    rhorder m;
    rhorder_init(&m);
    if (reserve)
        ck_assert_int_eq(rhorder_reserve(&m, 30), 0);
    for (size_t i = 0; i < KITCHEN_N; i++)
        ck_assert_int_eq(rhorder_insert(&m, rhorder_key_i16(KITCHEN_IDS[i]), i), 1);
    uint64_t keys[64];
    ck_assert_uint_eq(iterate(&m, keys, 64), KITCHEN_N);
    for (size_t i = 0; i < KITCHEN_N; i++)
        ck_assert_int_eq((int64_t)keys[i], KITCHEN_IDS[i]);
    ck_assert_uint_eq(m.mask + 1, 64);
    rhorder_free(&m);
}

START_TEST(kitchen_order_after_reserve)
{
    check_kitchen_order(1);
}
END_TEST

START_TEST(kitchen_order_without_reserve)
{
    check_kitchen_order(0);
}
END_TEST

START_TEST(kitchen_gpu_order)
{
    static const int16_t gpu[] = { -9, -10, -8 };
    rhorder m;
    rhorder_init(&m);
    for (size_t i = 0; i < 3; i++)
        rhorder_insert(&m, rhorder_key_i16(gpu[i]), i);
    uint64_t keys[8];
    ck_assert_uint_eq(iterate(&m, keys, 8), 3);
    for (size_t i = 0; i < 3; i++)
        ck_assert_int_eq((int64_t)keys[i], gpu[i]);
    rhorder_free(&m);
}
END_TEST

/* Keys that all hash to one home bucket, forcing infoInc to be halved twice;
 * the expected order was produced by upstream's own map (tracy_robin_hood.h). */
START_TEST(colliding_keys_match_upstream)
{
    static const uint64_t keys[] = {
        UINT64_C(0x994e4726a923d578), UINT64_C(0x5519a1c6104fae86), UINT64_C(0x1f5e2df2f77b7e94),
        UINT64_C(0x552bf8917706f387), UINT64_C(0x4c0f6b1c82d66675), UINT64_C(0x39f46aa9d47e8043),
        UINT64_C(0x32a44ac739a9b06a), UINT64_C(0x640f7f49c82fccb8), UINT64_C(0xe6a5ead483fd36df),
        UINT64_C(0xe502d015843ba4d1), UINT64_C(0xf3368a15a3d8e11e), UINT64_C(0x9cdda49b4dac3a86),
        UINT64_C(0x62e2d688be5d323e), UINT64_C(0x62533c6bf16929c9), UINT64_C(0x4f4650dac8bb6a5f),
        UINT64_C(0xb47ced9fa2337882), UINT64_C(0xec4d2ca03dadd55d), UINT64_C(0x46414a8253cf9673),
        UINT64_C(0x6ad50ef205028745), UINT64_C(0xe0a89325c95bca5e), UINT64_C(0xa67c522d11dad8f3),
        UINT64_C(0x5ef46c482eba1695), UINT64_C(0x903bcc1c839f3d2e), UINT64_C(0x9d0f2585863b8edd),
    };
    static const size_t order[] = { 18, 20, 5, 14, 8, 19, 0, 6, 13, 21, 10, 7,
                                    9,  4,  12, 16, 22, 23, 1, 17, 3, 2, 11, 15 };
    rhorder m;
    rhorder_init(&m);
    for (size_t i = 0; i < 24; i++)
        ck_assert_int_eq(rhorder_insert(&m, keys[i], i), 1);
    ck_assert_uint_eq(m.info_inc, 8);
    ck_assert_uint_eq(m.hash_shift, 2);
    ck_assert_uint_eq(m.mask + 1, 32);
    uint64_t got[32];
    ck_assert_uint_eq(iterate(&m, got, 32), 24);
    for (size_t i = 0; i < 24; i++)
        ck_assert_uint_eq(got[i], keys[order[i]]);
    rhorder_free(&m);
}
END_TEST

START_TEST(insert_find_duplicates)
{
    rhorder m;
    rhorder_init(&m);
    ck_assert_ptr_null(rhorder_find(&m, 5));
    ck_assert_uint_eq(rhorder_slots(&m), 0);
    for (uint64_t k = 0; k < 5000; k++)
        ck_assert_int_eq(rhorder_insert(&m, k * 7919, k), 1);
    for (uint64_t k = 0; k < 5000; k++) {
        ck_assert_int_eq(rhorder_insert(&m, k * 7919, 0), 0);
        uint64_t *v = rhorder_find(&m, k * 7919);
        ck_assert_ptr_nonnull(v);
        ck_assert_uint_eq(*v, k);
    }
    ck_assert_ptr_null(rhorder_find(&m, 1));
    ck_assert_uint_eq(rhorder_size(&m), 5000);
    uint64_t *all = malloc(5000 * sizeof *all);
    ck_assert_uint_eq(iterate(&m, all, 5000), 5000);
    free(all);
    rhorder_free(&m);
}
END_TEST

START_TEST(reserve_sizes)
{
    static const struct { size_t n, buckets; } cases[] = {
        { 0, 8 }, { 6, 8 }, { 7, 16 }, { 12, 16 }, { 13, 32 }, { 30, 64 }, { 51, 64 }, { 52, 128 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rhorder m;
        rhorder_init(&m);
        ck_assert_int_eq(rhorder_reserve(&m, cases[i].n), 0);
        ck_assert_uint_eq(m.mask + 1, cases[i].buckets);
        rhorder_free(&m);
    }
}
END_TEST

/* Iteration order is a pure function of the insertion sequence. */
START_TEST(order_is_deterministic)
{
    rhorder a, b;
    rhorder_init(&a);
    rhorder_init(&b);
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        rhorder_insert(&a, x % 100000, 0);
        rhorder_insert(&b, x % 100000, 0);
    }
    ck_assert_uint_eq(rhorder_slots(&a), rhorder_slots(&b));
    for (size_t i = 0; i < rhorder_slots(&a); i++) {
        uint64_t ka = 0, kb = 0;
        ck_assert_int_eq(rhorder_slot(&a, i, &ka, NULL), rhorder_slot(&b, i, &kb, NULL));
        ck_assert_uint_eq(ka, kb);
    }
    rhorder_free(&a);
    rhorder_free(&b);
}
END_TEST

static Suite *rhorder_suite(void)
{
    Suite *s = suite_create("rhorder");
    TCase *tc = tcase_create("order");
    tcase_add_test(tc, kitchen_order_after_reserve);
    tcase_add_test(tc, kitchen_order_without_reserve);
    tcase_add_test(tc, kitchen_gpu_order);
    tcase_add_test(tc, colliding_keys_match_upstream);
    tcase_add_test(tc, insert_find_duplicates);
    tcase_add_test(tc, reserve_sizes);
    tcase_add_test(tc, order_is_deterministic);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rhorder_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
