/* capture.h - a capture's context: options, the session being captured,
 * the connection's libuv handles and what happened. conn.c drives it;
 * progress.c reports on it. tracy-capture's main.c owns its one capture
 * and runs it alone (conn_run: a loop, signals and decoder threads of its
 * own); the daemon owns one per client and runs them all on its loop
 * (conn_start), decoding them as jobs on its pool (jobdec.c). */
#ifndef TC_CAPTURE_H
#define TC_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "cli.h"
#include "session.h"
#include "spool.h"
#include "util.h"

/* How a capture ended. */
typedef enum {
    OUT_NONE = 0,
    OUT_COMPLETE,         /* client terminated, every answer arrived */
    OUT_STOPPED,          /* signal, -s or -m: orderly stop finished */
    OUT_GAVE_UP,          /* stopped waiting for answers (end timeout) */
    OUT_CLIENT_GONE,      /* connection closed or reset mid-session */
    OUT_BROKEN,           /* undecodable data */
    OUT_ABORTED,          /* second signal while stopping */
    OUT_INTERRUPTED,      /* signal before any data arrived */
    OUT_MISMATCH,         /* client speaks another protocol version */
    OUT_NOT_AVAILABLE,    /* client already served a server */
    OUT_DROPPED,          /* connection closed during the handshake */
    OUT_CONNECT_TIMEOUT,  /* nobody answered within --connect-timeout */
    OUT_RESOLVE_FAILED,   /* the address does not resolve */
    OUT_NOT_TRACY,        /* the peer's first byte is no handshake status */
    OUT_CANNOT_RUN,       /* a descriptor, thread or memory the capture needs is not to be had (start_error) */
} outcome_t;

/* The bounds of the wait at the end of a session (conn.c end_wait_over). */
typedef enum {
    END_WAIT_NO_ANSWER,           /* --end-timeout without an answer */
    END_WAIT_AFTER_STOP,          /* --end-timeout after our stop request */
    END_WAIT_AFTER_TERMINATE,     /* END_WAIT_TERMINATE_FACTOR x that after the client's Terminate */
} end_wait_t;

/* After the client ended the session itself, answers that keep coming are
 * waited for this many --end-timeouts in all. */
#define END_WAIT_TERMINATE_FACTOR 10

struct capture;
struct pool;
struct jobdec;

/* What a host running captures on its own loop hears of each one. */
typedef struct {
    void (*welcomed)(struct capture *c);   /* the client's welcome is in (its program name, its protocol) */
    void (*done)(struct capture *c);       /* over: outcome set, every handle closed, the input decoded */
} capture_hooks_t;

typedef struct capture {
    const options_t *opts;
    const capture_hooks_t *hooks; /* run on a host's loop (conn_start), or NULL (conn_run) */
    void *host;                   /* the host's, for its hooks */
    struct pool *pool;            /* with hooks: decode as jobs on this pool (jobdec.c) */
    const proto_desc_t *offer;    /* the protocol offered (the session's); the search goes down proto_all */
    char *save_path;              /* where the trace goes: the output, or the file its link names */
    session_t session;
    uv_loop_t *loop;              /* &loop_store once it is set up, or the host's */
    uv_loop_t loop_store;
    int open_handles;             /* of this capture, not yet closed */
    bool done_said;               /* hooks->done was called */
    char start_error[512];        /* OUT_CANNOT_RUN: what could not be had, and why */

    /* connection */
    struct lookup *lookup;        /* a name lookup under way (lookup.c), or NULL */
    struct addrinfo *addrs, *addr_next, *addr_now;   /* addr_now: the one tried last */
    uv_tcp_t tcp;
    uv_connect_t connect_req;
    uv_timer_t retry_timer, connect_timer, stop_timer, tick_timer;
    uv_signal_t signals[3];
    bool tcp_open, connected, finishing, handshake_notice, spool_warned;
    bool spool_prefixed;          /* the handshake we sent leads the spool */
    bool shortage_warned;         /* a connection attempt was short of the machine's resources */
    bool read_failed;             /* the connection failed (not a clean EOF) */
    unsigned connect_attempts;
    unsigned silent_drops;        /* connections accepted, then closed with no byte */
    bool handshake_unanswered;    /* --connect-timeout came while connected */
    char connect_error[128];
    bytes_t out;                  /* query bytes waiting to be written */
    spool_t spool;                /* every byte received, in a file (fd -1: none) */
    bool decoding;                /* the welcome is in: frames go to dec or jobs */
    struct netdec *dec;           /* the frame decoder thread, once streaming (conn_run) */
    struct jobdec *jobs;          /* or the jobs decoding it (conn_start) */
    bool input_over;              /* jobs: the input ended; on_input_end once it is decoded */
    outcome_t finish_pending;     /* jobs: finish() came while a job had the session */
    bool stop_pending;            /* jobs: so did request_stop() (its reason in pending_reason) */
    char pending_reason[64];
    uv_async_t decoded;           /* it has frames for us */
    bool reading_paused;          /* too much input held in memory: stop reading */
    bool input_dropped;           /* saved at once: received input left undecoded */
    bool save_at_once;            /* the memory limit: no draining of the input */
    size_t partial_frame;         /* bytes of a frame the input ended inside (lost) */
    uint64_t frames, compressed, decompressed;   /* decoder statistics */
    uint8_t *rxbuf;
    size_t rxcap;

    /* stopping */
    int signal_count;
    bool stop_requested;
    char stop_reason[64];
    char gave_up_on[256];         /* what was still missing at the end timeout */
    end_wait_t end_wait;          /* ... and which bound of the end wait ended it */

    /* statistics */
    uint64_t t_start, t_connected, t_end, t_last_rx;   /* uv_hrtime() ns */
    uint64_t t_stop;                                   /* when the stop was requested */
    uint64_t t_terminated;                             /* when the client's Terminate was decoded */
    uint64_t t_last_answer, answers_seen;              /* when an answer to a query last came; how many */
    uint64_t rx_bytes;
    int64_t mem_limit_bytes;      /* -m: of the process, or with hooks of this capture (model_memory) */
    uint64_t peak_mem, mem_now;   /* with hooks: the most this capture held, and at the last tick */
    uint64_t peak_rss;

    /* progress line */
    bool tty;
    uint64_t rate_t, rate_bytes;
    double rate_mbps;
    uint64_t decoding_shown_t;    /* when the decoding line was last drawn */

    outcome_t outcome;
} capture_t;

/* How the session's state ends the capture (OUT_NONE: it goes on).
 * input_ended: no byte will follow (EOF, a reset, the end of a recording). */
outcome_t capture_outcome(const capture_t *c, bool input_ended);

/* Connect, capture until the session ends, and fill in c->outcome
 * (OUT_CANNOT_RUN when the event loop, the connection's socket or the
 * decoder thread cannot be had): alone, on a loop of its own that also
 * handles SIGINT, SIGTERM and SIGHUP. */
void conn_run(capture_t *c);

/* The same on a host's loop: c->opts, c->hooks and c->pool set (the rest
 * zeroed). Returns at once; hooks->done(c) says when it is over (possibly
 * before conn_start returns, when it cannot start). The host handles the
 * signals: */
void conn_start(capture_t *c, uv_loop_t *loop);
/* The orderly end a first signal asks for (the client is asked to
 * disconnect, and what it still sends is waited for, bounded). */
void conn_request_stop(capture_t *c, const char *why);
/* The end a second signal asks for: now, keeping what is decoded (the
 * rest goes only to the spool). */
void conn_abort(capture_t *c);
/* The host's periodic call (a few times a second): what a paused client
 * sent last leaves memory for the spool's file (spool_flush_stale) while
 * no job writes the spool. */
void conn_tick(capture_t *c);
/* Free what a capture run by conn_start holds once hooks->done was
 * called, but the session (session_free). */
void conn_free(capture_t *c);

/* Resident memory of this process in bytes (0 if unknown). */
uint64_t process_rss(void);

#endif
