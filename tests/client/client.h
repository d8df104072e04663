/* client.h - the single context struct of tracy-test-client and the state
 * records it is made of (options, wire/LZ4 state, event references, the
 * table of invented client addresses, and the manifest counters). Every
 * module receives a `struct tc_client *`; there are no other globals. */
#ifndef TC_CLIENT_H
#define TC_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <lz4.h>

#include "protocol.h"

enum tc_scenario {
    TC_SCEN_NORMAL,
    TC_SCEN_EXAMPLE,
    TC_SCEN_STREAM,
    TC_SCEN_DISCONNECT_MID_FRAME,
    TC_SCEN_RESET,
    TC_SCEN_GARBAGE,
    TC_SCEN_NOT_AVAILABLE,
    TC_SCEN_DROP,
    TC_SCEN_OPEN_ZONES,
    TC_SCEN_NO_ANSWER,
};

enum tc_garbage_kind { TC_GARBAGE_LENGTH, TC_GARBAGE_LZ4, TC_GARBAGE_EVENT };

struct tc_options {
    const char *address;
    int port;
    enum tc_scenario scenario;
    const char *scenario_name;
    enum tc_garbage_kind garbage_kind;
    uint32_t protocol;
    double seconds;  /* stream scenario duration */
    long zones;      /* approximate number of zones; <= 0: scenario default */
    int threads;     /* application threads incl. the main thread; <= 0: default */
    double timeout;  /* overall wall-clock guard in seconds, 0 = none */
    const char *manifest_path;
    const char *record_path;
    bool quiet;
};

/* One 13-byte server query packet (§4.1). */
struct tc_query {
    uint8_t type;
    uint64_t ptr;
    uint32_t extra;
};

/* Socket, LZ4 ring and query intake of the current connection (§3, §4). */
struct tc_wire {
    int fd;                 /* -1 when not connected */
    char *ring;             /* 3 * TC_FRAME_SIZE compression ring */
    size_t start;           /* start of the pending (uncommitted) frame */
    size_t offset;          /* end of the pending frame */
    LZ4_stream_t *lz4;
    char *lz4buf;           /* 4-byte length + compressed block */
    char terminate_byte;    /* separate source buffer of the Terminate frame */
    FILE *record;           /* --record output, NULL if none */
    uint8_t in[TC_QUERY_SIZE * 64];
    size_t in_len;
    struct tc_query *queue; /* FIFO of received, not yet handled queries */
    size_t q_head, q_tail, q_cap;
    bool closed;            /* connection lost (EOF, error) or given up */
    bool peer_eof;          /* the server closed / reset the connection */
    bool got_terminate;     /* ServerQueryTerminate received */
    bool timed_out;         /* overall deadline passed */
    uint64_t frames;        /* LZ4 frames sent */
    uint64_t raw_bytes;     /* decompressed bytes committed */
    uint64_t wire_bytes;    /* bytes sent on the socket (incl. handshake) */
    uint64_t queries[TC_SQ_COUNT + 1]; /* received per type; last = unknown */
    int64_t last_send_ns;   /* monotonic time of the last frame sent */
};

/* Client-side reference times and thread context (§6.2, §7). */
struct tc_evstate {
    bool have_thread;
    uint32_t thread;
    int64_t ref_thread;
    int64_t ref_serial;
    uint32_t next_zone_id;  /* ZoneValidation ids */
    uint64_t next_payload;  /* fake buffer addresses of payload events */
    uint64_t sent[256];     /* events sent, per type byte */
};

struct tc_string_entry {
    uint64_t addr;
    char *text;
};

struct tc_srcloc_entry {
    uint64_t addr;          /* 0 for an allocated (payload) source location */
    char *name;             /* NULL: no name, the function shows */
    char *function;
    char *file;
    uint64_t name_ptr, function_ptr, file_ptr;
    uint32_t line;
    uint32_t color;         /* 0x00RRGGBB */
    uint64_t zones;         /* closed zones with positive length */
    int64_t total_ns;
    uint64_t open;          /* zones begun, not ended */
};

struct tc_thread_entry {
    uint32_t tid;
    char *name;
    bool used;              /* carried events the server attributes to it */
};

struct tc_frame_entry {      /* an invented code address of a call stack */
    uint64_t addr;
    char *image, *function, *file;
    uint32_t line;
    uint64_t sym_addr;
    uint32_t sym_len;
};

struct tc_named_counter {    /* plots, frame sets, locks, memory pools */
    uint64_t key;            /* name pointer, lock id, ... */
    char *name;
    uint64_t count;
    uint64_t count2;
    int kind;
};

struct tc_message_entry {
    int64_t time_ns;
    uint64_t seq;
    char *text;
};

/* Invented client "addresses" and what the client must answer for them,
 * plus the facts recorded for the manifest. */
struct tc_names {
    struct tc_string_entry *strings;
    size_t n_strings, cap_strings;
    struct tc_srcloc_entry *srclocs;
    size_t n_srclocs, cap_srclocs;
    struct tc_thread_entry *threads;
    size_t n_threads, cap_threads;
    struct tc_frame_entry *frames;
    size_t n_frames, cap_frames;
    uint64_t unknown_ptr;    /* address of the "???" string */
};

enum tc_counter_kind {
    TC_CNT_PLOT,
    TC_CNT_FRAMESET_CONT,
    TC_CNT_FRAMESET_DISCONT,
    TC_CNT_LOCK,
    TC_CNT_MEMPOOL,
};

struct tc_manifest {
    struct tc_named_counter *counters;
    size_t n_counters, cap_counters;
    struct tc_message_entry *messages;
    size_t n_messages, cap_messages;
    char **appinfo;
    size_t n_appinfo, cap_appinfo;
    uint64_t default_frames;
    uint64_t callstacks;
    int64_t last_ns;
    const char *end_reason;
    const char *note;
};

struct tc_client {
    struct tc_options opt;
    int listen_fd;
    int bound_port;
    int64_t start_ns;        /* monotonic time at program start */
    int64_t deadline_ns;     /* 0 = none */
    int64_t init_begin;      /* WelcomeMessage.initBegin (ticks = ns) */
    int64_t init_end;
    uint32_t main_tid;
    uint32_t symbol_tid;     /* thread that produces asynchronous answers */
    bool disconnecting;      /* ServerQueryDisconnect was handled */
    bool terminate_sent;
    bool in_answer;          /* guard against re-entrant query handling */
    struct tc_wire wire;
    struct tc_evstate ev;
    struct tc_names names;
    struct tc_manifest man;
};

/* Monotonic clock in nanoseconds. */
int64_t tc_now_ns(void);

/* Diagnostics on stderr, suppressed by --quiet. */
void tc_log(const struct tc_client *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
