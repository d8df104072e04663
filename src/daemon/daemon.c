/* daemon.c - many clients captured by one process (see daemon.h): who is
 * taken (announcements, filters, -a targets, --max-clients), each one's
 * capture from its first connection to its saved trace, and when the
 * daemon ends (signals, --max-clients, --idle-exit, the last target). */
#include "daemon.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dconsole.h"
#include "progress.h"
#include "protocols.h"
#include "report.h"

#define TICK_MS 100
/* An announced client is there: one that does not answer the handshake
 * this long serves another server. */
#define ANNOUNCED_CONNECT_TIMEOUT 10.0

static void maybe_exit(daemon_t *d);

bool client_running(const client_t *cl)
{
    return cl->state == CL_CAPTURING || cl->state == CL_SAVING;
}

/* Diagnostics about a client say which one. */
static void label_client(const client_t *cl)
{
    char label[320], where[300];
    snprintf(label, sizeof label, "[%d] %s", cl->index, fmt_endpoint(where, sizeof where, cl->host, cl->port));
    console_label(label);
}

/* ---- naming and the spool ------------------------------------------------------------- */

/* The trace's path, and its spool's beside it: a name whose spool is
 * there (a killed daemon's, perhaps the only copy of its capture) is
 * passed over too. */
static void name_client(client_t *cl)
{
    daemon_t *d = cl->d;
    struct stat st;
    for (;;) {
        cl->path = names_claim(&d->names, cl->program, cl->host, (uint16_t)atoi(cl->port));
        snprintf(cl->spool_path, sizeof cl->spool_path, "%s.spool", cl->path);
        if (lstat(cl->spool_path, &st) != 0) return;
    }
}

static void open_spool(client_t *cl)
{
    const int err = spool_open(&cl->cap.spool, cl->spool_path, false);
    if (!err) {
        spool_drop_behind(&cl->cap.spool);
        spool_write_behind(&cl->cap.spool, cl->d->spool_io);   /* the jobs do not wait for the disk */
    }
    if (err) {
        cl->cap.spool.fd = -1;
        label_client(cl);
        diag_warn("cannot create the spool %s: %s; capturing without it", cl->spool_path, strerror(err));
        console_label(NULL);
    }
}

/* Close the spool: removed once the trace is safe, kept when it is not.
 * Returns whether it was kept. Any thread that owns the client: a save's
 * pool thread, so that the unlink (a synchronous discard of the file's
 * blocks, 30 ms for 150 MB on a disk mounted with discard) holds no other
 * client's input up. */
static bool release_spool(client_t *cl, bool saved)
{
    spool_t *s = &cl->cap.spool;
    if (s->fd < 0) return false;
    spool_settle(s);            /* its last megabyte's outcome is part of it */
    const bool began = cl->cap.session.welcomed && cl->cap.outcome != OUT_CANNOT_RUN;
    const bool keep = (began && (!saved || cl->cap.input_dropped)) && !s->abandoned && s->regular && !s->err;
    spool_close(s, keep);
    return keep;
}

/* On the loop: say how to use a kept spool. */
static void note_kept_spool(const client_t *cl, bool saved)
{
    const char *path = cl->cap.spool.path;
    diag_note("every byte received is kept in %s: 'tracy-capture --recover %s -o FILE' rebuilds the %strace",
              path, path, saved ? "whole " : "");
}

static void close_spool(client_t *cl, bool saved)
{
    if (release_spool(cl, saved)) note_kept_spool(cl, saved);
}

/* ---- saving ---------------------------------------------------------------------------- */

/* On a pool thread: the save, then what the loop should not wait for, the
 * spool's removal and the model's memory given back. */
static void on_save_work(pool_job_t *job)
{
    client_t *cl = (client_t *)((char *)job - offsetof(client_t, save_job));
    model_finish(&cl->cap.session.model);
    if (writer_save(&cl->cap.session.model, cl->path, &cl->save) < 0) cl->rc = EXIT_SAVE_FAILED;
    cl->zones = cl->cap.session.model.zone_count;
    cl->spool_kept = release_spool(cl, cl->rc != EXIT_SAVE_FAILED);
    session_free(&cl->cap.session);
}

static void on_save_done(pool_job_t *job)
{
    client_t *cl = (client_t *)((char *)job - offsetof(client_t, save_job));
    const bool saved = cl->rc != EXIT_SAVE_FAILED;
    label_client(cl);
    if (cl->spool_kept) note_kept_spool(cl, saved);
    conn_free(&cl->cap);
    cl->state = saved ? CL_SAVED : CL_FAILED;
    if (!saved) diag_error("saving %s: %s", cl->path, cl->save.err);
    console_label(NULL);
    cl->t_done = cl->d->t_activity = uv_hrtime();
    dconsole_saved(cl);
    maybe_exit(cl->d);
}

static void start_save(client_t *cl)
{
    daemon_t *d = cl->d;
    const file_format_t *format = d->opts->format ? d->opts->format
                                                  : file_format_by_name(cl->cap.session.desc->file_format);
    cl->save = (save_opts_t){ .this_thread = true, .spare = pool_spare(&d->pool), .format = format };
    file_opts_apply(&d->opts->file, format, &cl->save);
    cl->state = CL_SAVING;
    cl->save_job.work = on_save_work;
    cl->save_job.done = on_save_done;
    pool_submit(&d->pool, &cl->save_job);
}

/* ---- a client's capture ---------------------------------------------------------------- */

/* A target is named by the address it answered at, as an announced
 * client is by the address it announced from: numbers, not a host name. */
static void use_peer_address(client_t *cl)
{
    struct sockaddr_storage peer;
    int len = sizeof peer;
    char addr[ANNOUNCE_ADDR_SIZE];
    if (uv_tcp_getpeername(&cl->cap.tcp, (struct sockaddr *)&peer, &len) == 0 &&
        announce_address_text((struct sockaddr *)&peer, addr)[0])
        snprintf(cl->host, sizeof cl->host, "%s", addr);
}

static void on_client_welcomed(capture_t *c)
{
    client_t *cl = c->host;
    if (!cl->announced) {
        snprintf(cl->program, sizeof cl->program, "%s", c->session.model.capture_program);
        use_peer_address(cl);
        name_client(cl);
    }
    open_spool(cl);
    cl->state = CL_CAPTURING;
    dconsole_connected(cl);
}

/* An announced client that did not answer our handshake serves another
 * server (it serves one at a time), or went away: it is no capture of
 * ours yet, and is taken again when it announces itself free. So is one
 * whose handshake was still unanswered when the daemon stopped (a signal,
 * --idle-exit): nothing of it was lost, and it is no failure. */
static bool withdrawn(const client_t *cl)
{
    return cl->announced && !cl->cap.session.welcomed &&
           (cl->cap.outcome == OUT_CONNECT_TIMEOUT || cl->cap.outcome == OUT_DROPPED ||
            cl->cap.outcome == OUT_INTERRUPTED);
}

static void on_client_done(capture_t *c)
{
    client_t *cl = c->host;
    daemon_t *d = cl->d;
    d->t_activity = uv_hrtime();
    label_client(cl);
    if (withdrawn(cl)) {
        cl->key.text[0] = '\0';       /* heard again, it is taken again */
        cl->withdrawn = true;
        cl->rc = EXIT_OK;
        snprintf(cl->how, sizeof cl->how, "busy with another server or gone; %s",
                 c->outcome == OUT_INTERRUPTED ? "no longer waited for" : "taken again when it announces itself");
        dconsole_withdrawn(cl);
    } else if (c->outcome == OUT_INTERRUPTED) {
        /* never streamed: a target that never appeared was not captured */
        cl->rc = EXIT_CONNECT_TIMEOUT;
        diag_error("the client never answered; nothing to save");
        dconsole_ended(cl);
    } else {
        cl->rc = report_outcome(c);
        dconsole_ended(cl);
    }
    if (c->session.welcomed && c->outcome != OUT_CANNOT_RUN) {
        if (c->session.model.failures)
            diag_warn("%llu event%s dropped or repaired as malformed instrumentation (first: %s)",
                      (unsigned long long)c->session.model.failures, c->session.model.failures == 1 ? "" : "s",
                      c->session.model.first_failure);
        console_label(NULL);
        start_save(cl);
        return;
    }
    console_label(NULL);
    close_spool(cl, false);
    session_free(&c->session);
    conn_free(c);
    cl->state = CL_FAILED;
    cl->t_done = uv_hrtime();
    maybe_exit(d);
}

static const capture_hooks_t client_hooks = { .welcomed = on_client_welcomed, .done = on_client_done };

static client_t *add_client(daemon_t *d, const char *host, const char *port, const proto_desc_t *protocol)
{
    client_t *cl = xcalloc(1, sizeof *cl);
    cl->d = d;
    cl->index = (int)d->clients.n + 1;
    snprintf(cl->host, sizeof cl->host, "%s", host);
    snprintf(cl->port, sizeof cl->port, "%s", port);
    cl->opts = (options_t){ .address = cl->host, .port = cl->port, .seconds = -1, .connect_timeout = -1,
                            .end_timeout = d->opts->end_timeout, .quiet = true, .protocol = protocol,
                            .format = d->opts->format, .output = cl->host };
    cl->cap.opts = &cl->opts;
    cl->cap.hooks = &client_hooks;
    cl->cap.host = cl;
    cl->cap.pool = &d->pool;
    cl->cap.spool.fd = -1;
    cl->cap.mem_limit_bytes = d->mem_limit_bytes;
    cl->t_found = d->t_activity = uv_hrtime();
    VEC_PUSH(d->clients, cl);
    return cl;
}

static void start_client(client_t *cl)
{
    dconsole_found(cl);
    conn_start(&cl->cap, &cl->d->loop);
}

/* Whether --max-clients is reached: then nobody new is taken. */
static bool quota_reached(const daemon_t *d)
{
    if (d->opts->max_clients <= 0) return false;
    int taken = 0;
    for (size_t i = 0; i < d->clients.n; i++) taken += !d->clients.v[i]->withdrawn;
    return taken >= d->opts->max_clients;
}

static void stop_listening(daemon_t *d)
{
    if (!d->listening) return;
    d->listening = false;
    listener_close(&d->listener, NULL);
}

/* ---- announcements --------------------------------------------------------------------- */

static bool key_taken(const daemon_t *d, const announce_key_t *k)
{
    for (size_t i = 0; i < d->clients.n; i++)
        if (d->clients.v[i]->announced && strcmp(d->clients.v[i]->key.text, k->text) == 0) return true;
    for (size_t i = 0; i < d->passed.n; i++)
        if (strcmp(d->passed.v[i].text, k->text) == 0) return true;
    return false;
}

/* The numeric text of the address a client's capture is connected or
 * connecting to, or its host as given. */
static const char *client_address(const client_t *cl, char buf[ANNOUNCE_ADDR_SIZE])
{
    if (cl->cap.addr_now && announce_address_text(cl->cap.addr_now->ai_addr, buf)[0]) return buf;
    return cl->host;
}

/* Whether a capture under way (a target's, typically) already has the
 * client at address:port: one client, one capture, however it was found. */
static bool endpoint_taken(const daemon_t *d, const char *address, uint16_t port)
{
    for (size_t i = 0; i < d->clients.n; i++) {
        const client_t *cl = d->clients.v[i];
        char buf[ANNOUNCE_ADDR_SIZE];
        if (cl->withdrawn || cl->state >= CL_SAVING || atoi(cl->port) != port) continue;
        if (strcmp(client_address(cl, buf), address) == 0) return true;
    }
    return false;
}

static bool filters_pass(const daemon_options_t *o, const announce_t *a)
{
    if (o->filter_name && !strstr(a->program_name, o->filter_name)) return false;
    if (o->filter_port && a->listen_port != o->filter_port) return false;
    return true;
}

static void on_announce(void *ctx, const announce_t *a, const struct sockaddr *from)
{
    daemon_t *d = ctx;
    if (d->stopping || quota_reached(d)) return;
    announce_key_t key;
    announce_key(a, from, &key);
    if (key_taken(d, &key)) return;
    if (a->active_time < 0) return;         /* busy with another server, or leaving: not yet */
    char addr[ANNOUNCE_ADDR_SIZE], port[8];
    announce_address_text(from, addr);
    snprintf(port, sizeof port, "%u", a->listen_port);
    if (endpoint_taken(d, addr, a->listen_port)) return;     /* an -a target's, heard announcing itself */
    if (!filters_pass(d->opts, a)) {
        VEC_PUSH(d->passed, key);
        dconsole_filtered(d, a, addr);
        return;
    }
    const proto_desc_t *protocol = proto_by_version(a->protocol_version);
    if (!protocol) {
        VEC_PUSH(d->passed, key);
        dconsole_unknown_protocol(d, a, addr);
        return;
    }
    client_t *cl = add_client(d, addr, port, protocol);
    cl->announced = true;
    cl->key = key;
    snprintf(cl->program, sizeof cl->program, "%s", a->program_name);
    cl->opts.connect_timeout = ANNOUNCED_CONNECT_TIMEOUT;
    name_client(cl);
    start_client(cl);
    if (quota_reached(d)) stop_listening(d);
}

/* ---- the end --------------------------------------------------------------------------- */

static bool all_over(const daemon_t *d)
{
    for (size_t i = 0; i < d->clients.n; i++)
        if (d->clients.v[i]->state != CL_SAVED && d->clients.v[i]->state != CL_FAILED) return false;
    return true;
}

static void close_handle(uv_handle_t *h)
{
    if (h->loop && !uv_is_closing(h)) uv_close(h, NULL);
}

/* Once nothing will be taken any more and every capture is over: close
 * everything, so that the loop ends. */
static void maybe_exit(daemon_t *d)
{
    if (d->closing) return;
    const bool targets_only = d->opts->no_listen;
    if (!(d->stopping || quota_reached(d) || targets_only) || !all_over(d)) return;
    d->closing = true;
    stop_listening(d);
    close_handle((uv_handle_t *)&d->tick);
    for (int i = 0; i < 3; i++) close_handle((uv_handle_t *)&d->signals[i]);
    if (d->pool_ready) pool_close(&d->pool, NULL);
}

/* Stop taking clients and end every capture the orderly way. */
static void stop_all(daemon_t *d, const char *why)
{
    d->stopping = true;
    stop_listening(d);
    for (size_t i = 0; i < d->clients.n; i++) {
        client_t *cl = d->clients.v[i];
        if (cl->state == CL_CONNECTING || cl->state == CL_CAPTURING) conn_request_stop(&cl->cap, why);
    }
    maybe_exit(d);
}

static void abort_all(daemon_t *d)
{
    for (size_t i = 0; i < d->clients.n; i++) {
        client_t *cl = d->clients.v[i];
        if (cl->state == CL_CONNECTING || cl->state == CL_CAPTURING) conn_abort(&cl->cap);
    }
    maybe_exit(d);
}

static void on_signal(uv_signal_t *h, int signum)
{
    daemon_t *d = h->data;
    if (++d->signal_count == 1) {
        const char *why = signum == SIGINT ? "interrupted" : signum == SIGTERM ? "terminated" : "hung up";
        dconsole_stopping(d, why);
        stop_all(d, why);
    } else {
        dconsole_stopping(d, "second signal: saving at once");
        abort_all(d);
    }
}

/* --idle-exit: nothing running, nobody new for that long. */
static void check_idle(daemon_t *d, uint64_t now)
{
    if (d->opts->idle_exit < 0 || d->stopping) return;
    for (size_t i = 0; i < d->clients.n; i++)
        if (client_running(d->clients.v[i])) return;
    if ((double)(now - d->t_activity) / 1e9 < d->opts->idle_exit) return;
    dconsole_stopping(d, "idle");
    stop_all(d, "idle");
}

static void on_tick(uv_timer_t *t)
{
    daemon_t *d = t->data;
    for (size_t i = 0; i < d->clients.n; i++)
        if (d->clients.v[i]->state == CL_CAPTURING) conn_tick(&d->clients.v[i]->cap);
    check_idle(d, uv_hrtime());
    dconsole_tick(d);
}

/* ---- setting up ------------------------------------------------------------------------ */

static int make_dir(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) return errno;
        *p = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return errno;
    struct stat st;
    if (stat(path, &st) != 0) return errno;
    return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

static uint64_t physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

static int set_up(daemon_t *d)
{
    const daemon_options_t *o = d->opts;
    int err = make_dir(o->dir);
    if (err) {
        diag_error("cannot create the output directory %s: %s", o->dir, strerror(err));
        return EXIT_OUTPUT_UNWRITABLE;
    }
    if (access(o->dir, W_OK) != 0) {
        diag_error("cannot write into the output directory %s: %s", o->dir, strerror(errno));
        return EXIT_OUTPUT_UNWRITABLE;
    }
    if ((err = uv_loop_init(&d->loop)) < 0) {
        diag_error("cannot set up the event loop: %s", uv_strerror(err));
        return EXIT_CANNOT_RUN;
    }
    d->loop_ready = true;
    err = pool_init(&d->pool, &d->loop, o->threads);
    if (err) {
        char why[160];
        diag_error("cannot start the decoding threads: %s", strerror_limit(err, why, sizeof why));
        return EXIT_CANNOT_RUN;
    }
    d->pool_ready = true;
    d->spool_io = spool_io_start();
    if (pool_start_error(&d->pool))
        diag_warn("only %d decoding thread%s could start: %s", pool_threads(&d->pool),
                  pool_threads(&d->pool) == 1 ? "" : "s", strerror(pool_start_error(&d->pool)));
    const int signums[3] = { SIGINT, SIGTERM, SIGHUP };
    for (int i = 0; i < 3; i++) {
        uv_signal_init(&d->loop, &d->signals[i]);
        d->signals[i].data = d;
        uv_signal_start(&d->signals[i], on_signal, signums[i]);
    }
    uv_timer_init(&d->loop, &d->tick);
    d->tick.data = d;
    uv_timer_start(&d->tick, on_tick, TICK_MS, TICK_MS);
    if (!o->no_listen) {
        const int rc = listener_init(&d->listener, &d->loop, o->listen_port, on_announce, d);
        if (rc < 0) {
            diag_error("cannot listen for client announcements on UDP port %u: %s", o->listen_port, uv_strerror(rc));
            return EXIT_USAGE;
        }
        d->listening = true;
    }
    return EXIT_OK;
}

/* The worst status of the clients: the highest code. */
static int worst_status(const daemon_t *d)
{
    int rc = EXIT_OK;
    for (size_t i = 0; i < d->clients.n; i++)
        if (d->clients.v[i]->rc > rc) rc = d->clients.v[i]->rc;
    return rc;
}

static void free_daemon(daemon_t *d)
{
    for (size_t i = 0; i < d->clients.n; i++) spool_settle(&d->clients.v[i]->cap.spool);
    spool_io_stop(d->spool_io);
    for (size_t i = 0; i < d->clients.n; i++) free(d->clients.v[i]);
    free(d->clients.v);
    free(d->passed.v);
    names_free(&d->names);
}

int daemon_run(const daemon_options_t *o)
{
    daemon_t *d = xcalloc(1, sizeof *d);
    d->opts = o;
    d->tty = isatty(STDOUT_FILENO);
    d->t_start = d->t_activity = uv_hrtime();
    if (o->memlimit_percent) d->mem_limit_bytes = (int64_t)(physical_memory() / 100 * (uint64_t)o->memlimit_percent);
    names_init(&d->names, o->dir);
    int rc = set_up(d);
    if (rc != EXIT_OK) {
        d->stopping = true;
        maybe_exit(d);
        if (d->loop_ready) {
            uv_run(&d->loop, UV_RUN_DEFAULT);
            uv_loop_close(&d->loop);
        }
        free_daemon(d);
        free(d);
        return rc;
    }
    dconsole_listening(d);
    for (int i = 0; i < o->ntargets && !quota_reached(d); i++)
        start_client(add_client(d, o->targets[i].host, o->targets[i].port, NULL));
    if (quota_reached(d)) stop_listening(d);
    maybe_exit(d);
    uv_run(&d->loop, UV_RUN_DEFAULT);
    uv_loop_close(&d->loop);
    dconsole_summary(d);
    rc = worst_status(d);
    free_daemon(d);
    free(d);
    return rc;
}
