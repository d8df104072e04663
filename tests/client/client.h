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
#include "protocols.h"

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
    TC_SCEN_EVERYTHING,
    TC_SCEN_CRASH,
    TC_SCEN_ON_DEMAND,
    TC_SCEN_ZONES,
    TC_SCEN_MEMORY,
    TC_SCEN_THREADS,
    TC_SCEN_STALL,
    TC_SCEN_STALL_RESET,        /* String queries unanswered, a stall, then a reset */
    TC_SCEN_TRICKLE,            /* String queries unanswered, KeepAlives after Terminate */
    TC_SCEN_MALFORMED,
};

/* --garbage-kind: what `garbage` sends after its frames (the first three),
 * or the one bad input `malformed` injects mid-session (the others). */
enum tc_garbage_kind {
    TC_GARBAGE_LENGTH,
    TC_GARBAGE_LZ4,
    TC_GARBAGE_EVENT,
    TC_GARBAGE_NEXT_TYPE,
    TC_BAD_LOCK_UNANNOUNCED,
    TC_BAD_GPU_UNKNOWN_CONTEXT,
    TC_BAD_FIBER_UNKNOWN,
    TC_BAD_TIME_BACKWARDS,
    TC_BAD_UNASKED_ANSWERS,
    TC_BAD_SRCLOC_OVERFLOW,
    TC_BAD_ABSURD_LENGTH,
    TC_BAD_ABSURD_STRING,
    TC_BAD_TIMER_NAN,
    TC_BAD_TIMER_INFINITE,
    TC_BAD_TIMER_HUGE,
    TC_BAD_RESOLUTION_MAX,
    TC_BAD_INIT_BEGIN_FAR,
    TC_BAD_CALLSTACK_EMPTY,
    TC_BAD_CALLSTACK_ALLOC_EMPTY,
    TC_BAD_ZONE_DEPTH,
    TC_BAD_GPU_ZONE_DEPTH,
    TC_BAD_TEXT_FLOOD,
    TC_BAD_HASH_FLOOD,
    TC_BAD_CALLSTACK_FLOOD,
    TC_BAD_STRING_FLOOD,
};

struct tc_options {
    const char *address;
    int port;
    enum tc_scenario scenario;
    const char *scenario_name;
    enum tc_garbage_kind garbage_kind;
    const char *garbage_kind_name;
    uint32_t protocol;  /* the version accepted, TC_PROTOCOL_NONE: none */
    bool list_types;    /* --list-types: print the protocol's table and exit */
    double seconds;  /* stream scenario duration */
    long zones;      /* approximate number of zones; <= 0: scenario default */
    int threads;     /* application threads incl. the main thread (zones, memory:
                        workers; threads: up to 4096); <= 0: default */
    double timeout;  /* overall wall-clock guard in seconds, 0 = none */
    const char *manifest_path;
    const char *record_path;
    bool quiet;
    const char *program_name; /* --name: the welcome's and the announcement's */
    int announce_port;       /* --announce: UDP port announced to, 0 = none */
    int announce_interval_ms; /* --announce-interval: between announcements */
};

/* What the WelcomeMessage announces beyond the fixed values (§2.3,
 * §2.4); set per scenario before the session starts. */
struct tc_welcome_cfg {
    uint8_t flags;           /* TC_WELCOME_* bits */
    uint64_t exectime;       /* 0 = unknown (no source-file requests) */
    int64_t sampling_period; /* ns, 0 = no sampling */
    uint64_t ondemand_frames; /* OnDemandPayload.frames */
    int64_t ondemand_time;   /* OnDemandPayload.currentTime (ticks) */
    double timer_mul;        /* ns per tick: 1.0 */
    uint64_t resolution;     /* ticks: 10 */
    int64_t init_begin;      /* the initBegin sent: tc_client.init_begin */
    uint64_t queue_delay;    /* ticks, sent by protocols 64-74 only */
};

/* A DataTransfer blob being assembled from DataTransferPart queries, and
 * the image name of a preceding blob (§4.5). */
struct tc_transfer {
    char *data;
    size_t len, cap;
    char *image;
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
    uint64_t queries[TC_SQ_COUNT + 1]; /* received per type byte; last = unknown */
    int64_t last_send_ns;   /* monotonic time of the last frame sent */
};

/* Client-side reference times and thread context (§6.2, §7). */
struct tc_evstate {
    bool have_thread;
    uint32_t thread;
    int64_t ref_thread;
    int64_t ref_serial;
    int64_t ref_ctx;        /* context switches, wakeups, samples */
    int64_t ref_gpu;        /* GpuTime, shared by all GPU contexts */
    uint32_t next_zone_id;  /* ZoneValidation ids */
    uint64_t next_payload;  /* fake buffer addresses of payload events */
    uint64_t sent[256];     /* events sent, per type byte of the protocol */
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
    uint64_t tid;           /* OS thread id, or (1 << 32) | n for a fiber */
    char *name;
    char *process;          /* ExternalName answer; NULL: this program */
    uint32_t pid;           /* TidToPid answer; 0: this program */
    int32_t group_hint;     /* sent after the ThreadName answer if != 0 */
    bool external;          /* another process's thread (no thread record) */
    bool used;              /* carried events the server attributes to it */
};

/* One entry of the inline chain of a code address (innermost first). */
struct tc_inline_entry {
    char *function, *file;
    uint32_t line;
    uint64_t sym_addr;
    uint32_t sym_len;
};

#define TC_MAX_INLINE 2

struct tc_frame_entry {      /* an invented code address of a call stack */
    uint64_t addr;
    char *image, *function, *file;
    uint32_t line;
    uint64_t sym_addr;
    uint32_t sym_len;
    int n_inline;            /* inlined callees reported before the function */
    struct tc_inline_entry inl[TC_MAX_INLINE];
};

struct tc_symbol_entry {     /* an invented function: Symbol / SymbolCode */
    uint64_t addr;           /* bit 63 set: a kernel symbol */
    uint32_t len;
    char *name, *file, *image;
    uint32_t line;
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
    struct tc_symbol_entry *symbols;
    size_t n_symbols, cap_symbols;
    char **sources;          /* source files the client can send */
    size_t n_sources, cap_sources;
    uint64_t unknown_ptr;    /* address of the "???" string */
};

enum tc_counter_kind {
    TC_CNT_PLOT,
    TC_CNT_FRAMESET_CONT,
    TC_CNT_FRAMESET_DISCONT,
    TC_CNT_LOCK,
    TC_CNT_MEMPOOL,
    TC_CNT_GPU_CONTEXT,      /* key context id; count zones, count2 type */
    TC_CNT_SAMPLES,          /* key thread id; count samples */
    TC_CNT_CTX_SWITCH,       /* key thread id; count records */
    TC_CNT_SECTION,          /* key category; count items */
    TC_CNT_SOURCE,           /* key name hash; count bytes, count2 answers */
    TC_CNT_KINDS,
};

/* One GPU zone as csvexport -g shows it (server ns). */
struct tc_gpu_zone_rec {
    int64_t start_ns, duration_ns;
    const char *name;        /* borrowed from the source-location table */
};

/* Counts of the event families beyond CPU zones, for the manifest. */
struct tc_facts {
    uint64_t gpu_zones, samples, ctx_switch_samples, cpu_slices;
    uint64_t wakeups, cpu_topology, tid_to_pid, external_names, hw_samples;
    uint64_t sys_time, power_reports, fibers, fiber_zones, sections, sections_open;
    uint64_t frame_images, mem_discards, lock_marks, alloc_callstack_frames;
    uint64_t symbols_answered, symbol_code_answered, symbol_code_bytes, source_files_missing;
    uint64_t params, crash, group_hints, vsync_frames;
    int64_t crash_time_ns;
};

/* What the `malformed` scenario injected and what a capture should keep. */
struct tc_bad_input {
    const char *kind;        /* NULL: no bad input was sent */
    uint64_t events;         /* events a capture reports as malformed */
    uint64_t zones_before;   /* zones (closed or open) sent before the bad input */
    uint64_t zones_dropped;  /* zones a capture must drop (beyond the format) */
    uint64_t zones_repaired; /* zones kept with repaired times (not in `zones`) */
    uint64_t zones_unlisted; /* other zones sent outside the generator (not in `zones`) */
};

struct tc_manifest {
    struct tc_named_counter *counters;
    size_t n_counters, cap_counters;
    struct tc_message_entry *messages;
    size_t n_messages, cap_messages;
    char **appinfo;
    size_t n_appinfo, cap_appinfo;
    uint64_t default_frames;
    uint64_t *callstacks;    /* content hashes of the distinct call stacks (a hash set) */
    size_t n_callstacks, cap_callstacks;
    uint64_t *alloc_frames;  /* content hashes of distinct allocated frames (a hash set) */
    size_t n_alloc_frames, cap_alloc_frames;
    struct tc_gpu_zone_rec *gpu_zones;
    size_t n_gpu_zones, cap_gpu_zones;
    struct tc_facts facts;
    struct tc_bad_input bad;
    int64_t last_ns;
    const char *end_reason;
    const char *note;
};

/* The UDP announcements of spec §1.2 (announce.c). */
struct tc_announce {
    int fd;                  /* -1: not announcing (none asked, or the session came) */
    int64_t next_ns;         /* when the next one is due (0: at once) */
    uint64_t sent;           /* datagrams sent */
    bool warned;             /* a failed send was reported */
};

#define TC_MAX_REFUSED 64

struct tc_client {
    struct tc_options opt;
    struct tc_proto proto;   /* the protocol spoken (82's tables for --protocol none) */
    uint32_t refused[TC_MAX_REFUSED]; /* versions turned away, in order (the first ones) */
    size_t n_refused;
    uint32_t refused_known;  /* bit i: proto_versions()[i] was turned away */
    struct tc_welcome_cfg welcome;
    int listen_fd;
    int bound_port;
    struct tc_announce ann;
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
    struct tc_transfer xfer;
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
