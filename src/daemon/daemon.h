/* daemon.h - tracy-capture-daemon's context: every client it heard of or
 * was told of, each one capture (capture.h) on the daemon's one libuv
 * loop, decoded and saved as jobs on its bounded pool of threads (pool.h);
 * the announcement listener (listen.h), the signals and the exit rules.
 * daemon.c drives it; dconsole.c reports on it. */
#ifndef TC_DAEMON_H
#define TC_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "announce.h"
#include "capture.h"
#include "dcli.h"
#include "listen.h"
#include "names.h"
#include "pool.h"
#include "util.h"
#include "writer.h"

typedef enum {
    CL_CONNECTING,      /* connecting, or waiting for the handshake */
    CL_CAPTURING,       /* the session streams */
    CL_SAVING,          /* the capture is over; its trace is being written */
    CL_SAVED,
    CL_FAILED,          /* nothing to save, or the save failed */
} client_state_t;

typedef struct client {
    struct daemon *d;
    int index;                  /* 1-based, in the order the clients were found */
    capture_t cap;
    options_t opts;             /* this client's capture options */
    char host[256], port[8];
    char program[ANNOUNCE_NAME_SIZE];   /* announced, or from the welcome */
    bool announced;             /* heard; else an -a target */
    bool withdrawn;             /* announced, but busy with another server: no capture of ours */
    announce_key_t key;         /* an announced client's */
    const char *path;           /* the trace's (names_t's), once named */
    char spool_path[4200];
    client_state_t state;
    pool_job_t save_job;
    save_opts_t save;
    int rc;                     /* its exit status (cli.h's codes) */
    uint64_t zones;
    bool spool_kept;            /* its spool was kept at the end (the save failed, or input was dropped) */
    uint64_t t_found, t_done;   /* uv_hrtime() */
    uint64_t shown_rx;          /* for the live table's rate */
    double mbps;
    char how[160];              /* how it ended, for the summary */
} client_t;

typedef struct daemon {
    const daemon_options_t *opts;
    uv_loop_t loop;
    bool loop_ready;
    pool_t pool;
    bool pool_ready;
    struct spool_io *spool_io;  /* writes the spools' full megabytes (NULL: their jobs do) */
    listener_t listener;
    bool listening;
    uv_signal_t signals[3];
    uv_timer_t tick;
    int signal_count;
    bool stopping;              /* a signal, --max-clients or --idle-exit: no new clients */
    bool closing;               /* every handle is being closed */
    names_t names;
    VEC(client_t *) clients;
    VEC(announce_key_t) passed; /* announced clients not taken (filtered, unknown protocol) */
    int64_t mem_limit_bytes;    /* -m, per client */
    uint64_t t_start, t_activity;   /* the last client found or ended */
    bool tty;
    int table_lines;            /* the live table's lines on the terminal */
    int rc;                     /* the daemon's own failure, if any */
} daemon_t;

/* Run the daemon until its exit rules end it; returns the exit status. */
int daemon_run(const daemon_options_t *o);

/* Whether a client's capture is running (connected and streaming, or
 * saving): what --idle-exit waits for. */
bool client_running(const client_t *cl);

#endif
