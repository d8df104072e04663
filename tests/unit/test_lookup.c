/* test_lookup.c - the address lookup on its own thread: its answer comes
 * on the loop once; one given up never calls back, and the loop closes
 * cleanly (the thread frees what is left; a leak would show in an ASan
 * build's leak check). */
#include <check.h>
#include <netdb.h>
#include <unistd.h>
#include <uv.h>

#include "lookup.h"
#include "unit.h"

typedef struct {
    int calls, status;
    struct addrinfo *res;
} answer_t;

static void on_answer(void *ctx, int status, int sys_errno, struct addrinfo *res)
{
    (void)sys_errno;
    answer_t *a = ctx;
    a->calls++;
    a->status = status;
    a->res = res;
}

START_TEST(answer_comes_on_the_loop_once)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    answer_t a = { 0 };
    int err = -1;
    lookup_t *l = lookup_start(&loop, "127.0.0.1", "8086", on_answer, &a, &err);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(err, 0);
    ck_assert_int_eq(a.calls, 0);        /* never from lookup_start itself */
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(a.calls, 1);
    ck_assert_int_eq(a.status, 0);
    ck_assert_ptr_nonnull(a.res);
    ck_assert_int_eq(a.res->ai_socktype, SOCK_STREAM);
    freeaddrinfo(a.res);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(a_lookup_given_up_never_calls_back)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    answer_t a = { 0 };
    int err = -1;
    for (int i = 0; i < 50; i++) {
        lookup_t *l = lookup_start(&loop, "127.0.0.1", "8086", on_answer, &a, &err);
        ck_assert_ptr_nonnull(l);
        if (i % 2) usleep(1000);         /* some answers are in before the give-up, some not */
        lookup_abandon(l);
    }
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(a.calls, 0);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
    usleep(100000);                      /* the threads still running let go of theirs */
}
END_TEST

Suite *lookup_suite(void)
{
    Suite *s = suite_create("lookup");
    TCase *tc = tcase_create("lookup");
    tcase_add_test(tc, answer_comes_on_the_loop_once);
    tcase_add_test(tc, a_lookup_given_up_never_calls_back);
    suite_add_tcase(s, tc);
    return s;
}
