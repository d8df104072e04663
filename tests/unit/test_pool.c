/* test_pool.c - unit tests of the worker pool (util/pool.c): jobs of many
 * clients, each keeping one job in flight, all finish with work() off the
 * loop's thread and done() on it, after their work(); a pool of one thread
 * runs jobs one at a time in submission order, and one of two runs two at
 * once; closing runs the jobs still queued (and those their done()
 * callbacks submit) before its callback; an idle pool does not keep the
 * loop running; a pool whose threads do not all start runs with fewer,
 * and one that starts none fails, leaving nothing behind; pool_spare
 * counts the idle threads, none while a job waits for one. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"
#include "unit.h"

#define CONTAINER(ptr, type, field) ((type *)((char *)(ptr) - offsetof(type, field)))

/* ---- many clients, one job each in flight ------------------------------------ */

#define CLIENTS 8
#define JOBS_EACH 40

typedef struct {
    pthread_t loop_thread;
    pthread_t workers[POOL_MAX_THREADS];
    int nworkers;
    int finished;
} shared_t;

typedef struct {
    pool_job_t job;
    pool_t *pool;
    shared_t *shared;
    int submitted, done;
    bool worked;              /* work() ran since the last done() */
    pthread_t worked_on;
    unsigned sum;
    int wrong;                /* what done() found amiss */
} client_t;

static void note_worker(shared_t *s, pthread_t t)
{
    for (int i = 0; i < s->nworkers; i++)
        if (pthread_equal(s->workers[i], t)) return;
    if (s->nworkers < POOL_MAX_THREADS) s->workers[s->nworkers++] = t;
}

static void client_work(pool_job_t *job)
{
    client_t *c = CONTAINER(job, client_t, job);
    c->worked_on = pthread_self();
    c->worked = true;
    unsigned x = 0;           /* a little work */
    for (unsigned i = 0; i < 20000; i++) x = x * 31 + i;
    c->sum = x;
}

static void client_done(pool_job_t *job)
{
    client_t *c = CONTAINER(job, client_t, job);
    if (!pthread_equal(pthread_self(), c->shared->loop_thread)) c->wrong |= 1;
    if (!c->worked) c->wrong |= 2;
    if (pthread_equal(c->worked_on, c->shared->loop_thread)) c->wrong |= 4;
    note_worker(c->shared, c->worked_on);
    c->worked = false;
    c->done++;
    c->shared->finished++;
    if (c->submitted < JOBS_EACH) {
        c->submitted++;
        pool_submit(c->pool, &c->job);
    }
}

/* p->data: an int counting the calls */
static void on_closed_count(pool_t *p)
{
    ++*(int *)p->data;
}

START_TEST(jobs_of_many_clients_finish_on_the_loop_thread)
{
    uv_loop_t loop;
    ck_assert_int_eq(uv_loop_init(&loop), 0);
    pool_t pool;
    ck_assert_int_eq(pool_init(&pool, &loop, 3), 0);
    ck_assert_int_eq(pool_threads(&pool), 3);
    ck_assert_int_eq(pool_start_error(&pool), 0);
    shared_t s = { .loop_thread = pthread_self() };
    client_t c[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        c[i] = (client_t){ .job = { .work = client_work, .done = client_done }, .pool = &pool, .shared = &s,
                           .submitted = 1 };
        pool_submit(&pool, &c[i].job);
    }
    /* the pending jobs keep the loop running until the last done() */
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(s.finished, CLIENTS * JOBS_EACH);
    for (int i = 0; i < CLIENTS; i++) {
        ck_assert_int_eq(c[i].done, JOBS_EACH);
        ck_assert_int_eq(c[i].wrong, 0);
    }
    ck_assert_int_ge(s.nworkers, 1);
    ck_assert_int_le(s.nworkers, 3);
    int closed_calls = 0;
    pool.data = &closed_calls;
    pool_close(&pool, on_closed_count);
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(closed_calls, 1);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* ---- one at a time, and two at once ---------------------------------------------- */

#define SERIAL_JOBS 16

typedef struct {
    atomic_int running, most_running, next_start;
    int start_order[SERIAL_JOBS];
    int done_order[SERIAL_JOBS];
    int ndone;
} serial_t;

typedef struct {
    pool_job_t job;
    serial_t *s;
    int id;
} item_t;

static void item_work(pool_job_t *job)
{
    item_t *it = CONTAINER(job, item_t, job);
    serial_t *s = it->s;
    const int now = atomic_fetch_add(&s->running, 1) + 1;
    int most = atomic_load(&s->most_running);
    while (now > most && !atomic_compare_exchange_weak(&s->most_running, &most, now)) {}
    s->start_order[atomic_fetch_add(&s->next_start, 1)] = it->id;
    usleep(300);
    atomic_fetch_sub(&s->running, 1);
}

static void item_done(pool_job_t *job)
{
    item_t *it = CONTAINER(job, item_t, job);
    it->s->done_order[it->s->ndone++] = it->id;
}

START_TEST(a_pool_of_one_thread_runs_jobs_one_at_a_time_in_order)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    pool_t pool;
    ck_assert_int_eq(pool_init(&pool, &loop, 1), 0);
    ck_assert_int_eq(pool_threads(&pool), 1);
    serial_t s = {0};
    item_t items[SERIAL_JOBS];
    for (int i = 0; i < SERIAL_JOBS; i++) {
        items[i] = (item_t){ .job = { .work = item_work, .done = item_done }, .s = &s, .id = i };
        pool_submit(&pool, &items[i].job);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(s.ndone, SERIAL_JOBS);
    ck_assert_int_eq(atomic_load(&s.most_running), 1);
    for (int i = 0; i < SERIAL_JOBS; i++) {
        ck_assert_int_eq(s.start_order[i], i);
        ck_assert_int_eq(s.done_order[i], i);
    }
    pool_close(&pool, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* Two jobs that each wait (up to 20 s) until both have started. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int arrived;
    int met;                  /* jobs that saw the other */
} meeting_t;

typedef struct {
    pool_job_t job;
    meeting_t *m;
} meet_job_t;

static void meet_work(pool_job_t *job)
{
    meeting_t *m = CONTAINER(job, meet_job_t, job)->m;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    pthread_mutex_lock(&m->lock);
    m->arrived++;
    pthread_cond_broadcast(&m->cond);
    while (m->arrived < 2 && pthread_cond_timedwait(&m->cond, &m->lock, &until) == 0) {}
    if (m->arrived == 2) m->met++;
    pthread_mutex_unlock(&m->lock);
}

static void meet_done(pool_job_t *job)
{
    (void)job;
}

START_TEST(a_pool_of_two_threads_runs_two_jobs_at_once)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    pool_t pool;
    ck_assert_int_eq(pool_init(&pool, &loop, 2), 0);
    meeting_t m = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
    meet_job_t a = { .job = { .work = meet_work, .done = meet_done }, .m = &m };
    meet_job_t b = a;
    pool_submit(&pool, &a.job);
    pool_submit(&pool, &b.job);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(m.met, 2);
    pool_close(&pool, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* ---- closing ---------------------------------------------------------------- */

#define QUEUED_JOBS 10

typedef struct {
    int done;
    int closed_calls;
    int done_at_close;        /* done() calls before the close callback */
    bool chained;             /* a done() submitted a job while the pool closed */
    item_t follow_up;
    pool_t *pool;
} closing_t;

typedef struct {
    pool_job_t job;
    closing_t *c;
    bool worked;
} slow_job_t;

static void slow_work(pool_job_t *job)
{
    usleep(1000);
    CONTAINER(job, slow_job_t, job)->worked = true;
}

static void follow_up_done(pool_job_t *job)
{
    (void)job;
}

static void follow_up_work(pool_job_t *job)
{
    item_t *it = CONTAINER(job, item_t, job);
    it->id = -1;              /* ran */
}

static void slow_done(pool_job_t *job)
{
    slow_job_t *j = CONTAINER(job, slow_job_t, job);
    closing_t *c = j->c;
    if (j->worked) c->done++;
    if (c->done == 3) {
        c->follow_up = (item_t){ .job = { .work = follow_up_work, .done = follow_up_done }, .id = 1 };
        pool_submit(c->pool, &c->follow_up.job);
        c->chained = true;
    }
}

static void on_closed_after_jobs(pool_t *p)
{
    closing_t *c = p->data;
    c->done_at_close = c->done;
    c->closed_calls++;
}

START_TEST(closing_runs_the_queued_jobs_first)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    pool_t pool;
    ck_assert_int_eq(pool_init(&pool, &loop, 1), 0);
    closing_t c = { .pool = &pool };
    slow_job_t jobs[QUEUED_JOBS];
    for (int i = 0; i < QUEUED_JOBS; i++) {
        jobs[i] = (slow_job_t){ .job = { .work = slow_work, .done = slow_done }, .c = &c };
        pool_submit(&pool, &jobs[i].job);
    }
    pool.data = &c;
    pool_close(&pool, on_closed_after_jobs);
    pool_close(&pool, on_closed_after_jobs);   /* a second close is nothing */
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(c.closed_calls, 1);
    ck_assert_int_eq(c.done, QUEUED_JOBS);
    ck_assert_int_eq(c.done_at_close, QUEUED_JOBS);
    ck_assert(c.chained);
    ck_assert_int_eq(c.follow_up.id, -1);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(an_idle_pool_does_not_keep_the_loop_running)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    pool_t pool;
    ck_assert_int_eq(pool_init(&pool, &loop, 2), 0);
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    int closed_calls = 0;
    pool.data = &closed_calls;
    pool_close(&pool, on_closed_count);
    ck_assert_int_eq(closed_calls, 0);          /* not before the loop runs */
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(closed_calls, 1);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* ---- threads that do not start ---------------------------------------------------- */

typedef struct {
    int allowed, calls;
} spawn_limit_t;

static int spawn_limited(void *ctx, pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    spawn_limit_t *l = ctx;
    if (l->calls++ >= l->allowed) return EAGAIN;
    return pthread_create(thread, attr, start, arg);
}

START_TEST(a_pool_runs_with_the_threads_that_started)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    pool_t pool;
    spawn_limit_t limit = { .allowed = 2 };
    ck_assert_int_eq(pool_init_spawning(&pool, &loop, 8, spawn_limited, &limit), 0);
    ck_assert_int_eq(pool_threads(&pool), 2);
    ck_assert_int_eq(pool_start_error(&pool), EAGAIN);
    ck_assert_int_eq(limit.calls, 3);           /* it stops at the first failure */
    shared_t s = { .loop_thread = pthread_self() };
    client_t c[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        c[i] = (client_t){ .job = { .work = client_work, .done = client_done }, .pool = &pool, .shared = &s,
                           .submitted = 1 };
        pool_submit(&pool, &c[i].job);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(s.finished, CLIENTS * JOBS_EACH);
    ck_assert_int_le(s.nworkers, 2);
    for (int i = 0; i < CLIENTS; i++) ck_assert_int_eq(c[i].wrong, 0);
    pool_close(&pool, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(a_pool_that_starts_no_thread_fails_and_leaves_nothing)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    pool_t pool;
    spawn_limit_t none = { .allowed = 0 };
    ck_assert_int_eq(pool_init_spawning(&pool, &loop, 4, spawn_limited, &none), EAGAIN);
    ck_assert_int_eq(none.calls, 1);
    ck_assert_int_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

START_TEST(thread_counts_default_to_the_cores_and_are_capped)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    pool_t pool;
    ck_assert_int_eq(pool_init(&pool, &loop, 0), 0);
    const int cores = (int)uv_available_parallelism();
    ck_assert_int_eq(pool_threads(&pool), cores < 1 ? 1 : cores > POOL_MAX_THREADS ? POOL_MAX_THREADS : cores);
    pool_close(&pool, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(pool_init(&pool, &loop, 1000), 0);
    ck_assert_int_eq(pool_threads(&pool), POOL_MAX_THREADS);
    pool_close(&pool, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

/* ---- spare threads ------------------------------------------------------------------- */

typedef struct {
    pool_job_t job;
    atomic_bool *release;
    atomic_int started;
} blocker_t;

static void blocker_work(pool_job_t *job)
{
    blocker_t *b = CONTAINER(job, blocker_t, job);
    atomic_store(&b->started, 1);
    while (!atomic_load(b->release)) usleep(1000);
}

static void blocker_done(pool_job_t *job)
{
    (void)job;
}

/* pool_spare becomes v within two seconds */
static bool spare_becomes(const pool_t *p, int v)
{
    for (int i = 0; i < 2000 && atomic_load(pool_spare(p)) != v; i++) usleep(1000);
    return atomic_load(pool_spare(p)) == v;
}

/* pool_spare counts the threads with nothing to do, and is 0 while a job
 * waits for a thread. */
START_TEST(spare_counts_the_idle_threads)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    pool_t pool;
    ck_assert_int_eq(pool_init(&pool, &loop, 3), 0);
    ck_assert(spare_becomes(&pool, 3));
    atomic_bool release = false;
    blocker_t b[4];
    for (int i = 0; i < 4; i++) {
        b[i] = (blocker_t){ .job = { .work = blocker_work, .done = blocker_done }, .release = &release };
        atomic_init(&b[i].started, 0);
    }
    pool_submit(&pool, &b[0].job);
    ck_assert(spare_becomes(&pool, 2));
    pool_submit(&pool, &b[1].job);
    pool_submit(&pool, &b[2].job);
    ck_assert(spare_becomes(&pool, 0));
    pool_submit(&pool, &b[3].job);          /* queued: no thread is free */
    usleep(20000);
    ck_assert_int_eq(atomic_load(pool_spare(&pool)), 0);
    ck_assert_int_eq(atomic_load(&b[3].started), 0);
    atomic_store(&release, true);
    uv_run(&loop, UV_RUN_DEFAULT);          /* until every done() ran */
    ck_assert_int_eq(atomic_load(&b[3].started), 1);
    ck_assert(spare_becomes(&pool, 3));
    pool_close(&pool, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

Suite *pool_suite(void)
{
    Suite *s = suite_create("worker pool");
    TCase *tc = tcase_create("pool");
    tcase_add_test(tc, jobs_of_many_clients_finish_on_the_loop_thread);
    tcase_add_test(tc, a_pool_of_one_thread_runs_jobs_one_at_a_time_in_order);
    tcase_add_test(tc, a_pool_of_two_threads_runs_two_jobs_at_once);
    tcase_add_test(tc, closing_runs_the_queued_jobs_first);
    tcase_add_test(tc, an_idle_pool_does_not_keep_the_loop_running);
    tcase_add_test(tc, a_pool_runs_with_the_threads_that_started);
    tcase_add_test(tc, a_pool_that_starts_no_thread_fails_and_leaves_nothing);
    tcase_add_test(tc, thread_counts_default_to_the_cores_and_are_capped);
    tcase_add_test(tc, spare_counts_the_idle_threads);
    suite_add_tcase(s, tc);
    return s;
}
