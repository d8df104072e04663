/* model.h - the trace model: everything a capture keeps, as upstream's
 * server would, ready for the file writer.
 *
 * The event decoder (event.c) calls one model_* handler per event; the
 * handlers live in one file per family:
 *   model.c           threads, strings, source locations, source files, time,
 *                     the memory held
 *   model_zones.c     CPU zones and the compact per-thread zone log
 *   model_frames.c    frame sets (and the name-discovery helper)
 *   model_messages.c  messages and application info
 *   model_plots.c     plots
 *   model_callstacks.c call stacks, frames, symbols, symbol and source code
 *   model_other.c     locks, memory, GPU, sampling, fibers, sections, misc
 * Handlers mirror upstream's bookkeeping exactly where the file's readers
 * depend on it (thread numbering, last time, source-location ids, query
 * order); see ../shared/spec/csvexport-and-fidelity.md part B. */
#ifndef TC_MODEL_H
#define TC_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "chunkpool.h"
#include "hmap.h"
#include "memlog.h"
#include "query.h"
#include "rhorder.h"
#include "strtab.h"
#include "util.h"
#include "zlog.h"

/* ---- zones ------------------------------------------------------------ */

/* The deepest zone nesting kept: upstream's loader reads a thread's zone
 * tree recursively (Worker::ReadTimeline, about 136 bytes of stack a level
 * in a -O2 build, so some 60,000 levels overflow an 8 MB stack and 7,000
 * the 1 MB of a Windows or WebAssembly thread). A zone deeper than this is
 * dropped with its children (a failure each); the zones above it stay. */
#define ZONE_DEPTH_MAX 4000

typedef struct {
    int64_t start;      /* client ticks */
    uint8_t *tag;       /* the begin record's tag byte in the log */
    uint8_t *slot;      /* its info slot (zlog.h), NULL until needed */
    uint32_t extra;     /* zone-extra index, 0 = none */
    uint32_t nchild;
    uint32_t zone_id;   /* ZoneValidation id pushed with the zone */
    int16_t srcloc;
    bool text_building; /* its text has several parts, joined in m->text_builds */
} open_zone_t;

typedef struct {
    int64_t time;        /* 0 = unknown */
    uint32_t callstack;
} sample_t;

typedef struct thread {
    uint64_t id;
    bool is_fiber;
    int32_t group_hint;
    uint64_t zone_count;
    uint32_t top_zones;             /* zones at the top level of the timeline */
    uint64_t kernel_samples;
    zchunk_t *log_head, *log_tail;
    uint8_t *log_w, *log_lim;       /* write position in the tail chunk, and its end less room
                                       for one record (the tail's `used` is set when sealed) */
    int64_t log_ref;                /* last time written to the log (ticks) */
    uint64_t log_bytes;
    VEC(open_zone_t) stack;
    VEC(uint32_t) dropped;          /* stack depth at each open zone that was dropped
                                       (its source location did not fit the file) */
    uint32_t next_zone_id;
    uint32_t next_callstack;        /* per-thread callstack slot */
    struct thread *fiber;           /* fiber this OS thread is running */
    VEC(uint32_t) messages;         /* message indices, time ordered */
    chunkpool_t *pool;              /* ready zone-log chunks, if a thread makes them */
    VEC(sample_t) samples;
    VEC(sample_t) ctx_switch_samples;
    sample_t pending_sample;        /* CombineSamples: held back one step */
    bool samples_unsorted;
    uint16_t local_num;             /* model_compress_thread(id) + 1, once known */
} thread_t;

typedef struct {
    uint32_t callstack;  /* Int24 in the file */
    uint32_t text;       /* string index + 1, 0 = none; TEXT_BUILDING | text_builds
                            index while its zone is open and its text has several parts */
    uint32_t name;       /* string index + 1, 0 = none */
    uint32_t color;      /* Int24 */
} zone_extra_t;

#define TEXT_BUILDING 0x80000000u

/* ---- source locations --------------------------------------------------- */

typedef struct {
    uint64_t name, function, file;  /* client string pointers, name 0 = none */
    uint32_t line, color;
    bool answered;
} srcloc_static_t;

typedef struct {
    int64_t name;                   /* string index, -1 = none */
    uint32_t function, file;        /* string indices */
    uint32_t line, color;
} srcloc_payload_t;

/* ---- frames and plots: sets named by a client string pointer ------------- */

/* Upstream's StringDiscovery: items wait as "pending" until their name
 * string arrives; items whose name resolves to an already known string are
 * merged into the earlier item. `order` is the file order. */
typedef struct {
    hmap_t pending;   /* name pointer -> item */
    hmap_t named;     /* name pointer -> item */
    hmap_t by_string; /* string index -> item */
    VEC(uint32_t) order;
} discovery_t;

typedef struct {
    int64_t start, end;
    int32_t image;
} frame_t;

typedef struct {
    uint64_t name;
    bool continuous;
    VEC(frame_t) frames;
} frameset_t;

typedef struct {
    uint16_t w, h;
    uint8_t flip;
    uint32_t len;
    uint8_t *data;       /* BC1 blocks in standard index order */
} frame_image_t;

typedef struct {
    int64_t time;
    double val;
} plot_point_t;

/* A plot's type: the program's own, or one of the client's (CPU usage,
 * power) or the profiler's (memory). */
enum { PLOT_USER = 0, PLOT_MEMORY = 1, PLOT_SYSTIME = 2, PLOT_POWER = 3 };

typedef struct {
    uint64_t name;
    uint8_t type, format, show_steps, fill;
    uint32_t color;
    double min, max, sum;
    VEC(plot_point_t) points;
    uint32_t power_slot;    /* power plots: index + 1 into model.power_last */
} plot_t;

/* ---- messages ----------------------------------------------------------- */

typedef struct {
    int64_t time;
    uint64_t text;          /* string index, or client pointer if text_ptr */
    bool text_ptr;
    uint32_t color;
    uint32_t callstack;
    uint8_t source, severity;
} message_t;

/* ---- call stacks, frames, symbols ------------------------------------- */

typedef struct {
    uint32_t name, file;    /* string indices */
    uint32_t line;
    uint64_t sym_addr;
} cs_frame_t;

typedef struct {
    uint64_t id;            /* CallstackFrameId */
    uint32_t image;         /* string index + 1, 0 = none */
    uint8_t size;
    cs_frame_t *frames;
} cs_frame_data_t;

typedef struct {
    uint32_t name, file, line, image, call_file, call_line;  /* strings: index + 1 */
    bool is_inline;
    uint32_t size;
} symbol_t;

typedef struct {
    uint32_t name, image, file, line, size;   /* strings: index + 1 */
    bool is_inline;
} symbol_pending_t;

/* ---- locks ---------------------------------------------------------------- */

typedef struct {
    int64_t time;
    int16_t srcloc;
    uint8_t thread;      /* index into the lock's thread list */
    uint8_t type;        /* 0 Wait, 1 Obtain, 2 Release, 3..5 shared forms */
} lock_event_t;

typedef struct {
    uint32_t id;
    uint32_t custom_name;     /* string index + 1 */
    int16_t srcloc;
    uint8_t type;
    int64_t time_announce, time_terminate;
    uint64_t locking_thread;
    VEC(uint64_t) threads;
    VEC(lock_event_t) events;
} lock_t;

/* ---- memory ------------------------------------------------------------------ */

typedef struct {
    uint64_t name;
    memlog_t events;          /* in allocation order */
    hmap_t active;            /* live address -> event number */
    uint64_t freed;
    uint64_t high, low, usage;
} mem_pool_t;

/* ---- GPU ------------------------------------------------------------------------ */

typedef struct {
    int64_t cpu_start, cpu_end, gpu_start, gpu_end;
    uint32_t callstack;
    int32_t parent;           /* zone index of the parent, -1 = top level */
    uint32_t timeline;        /* index into the context's timeline keys */
    uint16_t thread;          /* compressed thread, 0 for bound contexts */
    uint16_t query_id;
    int16_t srcloc;
    bool has_child;
} gpu_zone_t;

typedef struct {
    uint16_t query_id;
    int64_t note;
    double value;
} gpu_note_t;

typedef struct {
    uint64_t key;             /* submitting thread, 0 for bound contexts */
    VEC(uint32_t) stack;      /* open zone indices */
    uint32_t dropped;         /* zones open beyond ZONE_DEPTH_MAX, dropped (innermost) */
} gpu_timeline_t;

/* A GPU query of a dropped zone: its GpuTime is dropped with it. */
#define GPU_QUERY_DROPPED UINT32_MAX

typedef struct {
    uint64_t thread;
    uint8_t type;
    bool has_calibration, has_period;
    float period;
    int64_t time_diff;
    int64_t calibrated_gpu, calibrated_cpu;
    double calibration_mod;
    int64_t last_gpu_time;
    uint64_t overflow, overflow_mul;
    uint64_t count;
    uint32_t name;            /* string index + 1 */
    VEC(gpu_zone_t) zones;
    VEC(gpu_timeline_t) timelines;
    hmap_t timeline_map;      /* key -> timelines index */
    uint32_t *query;          /* query id -> zone index + 1 (65536 slots) */
    uint64_t zone_parents;    /* zones that received a child */
    hmap_t note_names;        /* note id -> string index + 1 */
    VEC(gpu_note_t) notes;    /* per query id and note id, last value wins */
} gpu_ctx_t;

/* ---- scheduling and system data ----------------------------------------------- */

enum { CS_REASON_WAKEUP = -2, CS_REASON_FIBER = 99 };

typedef struct {
    int64_t wakeup, start, end;
    uint64_t thread;          /* fiber records: the OS thread running the fiber */
    uint8_t cpu, wakeup_cpu;
    int8_t reason, state;
} ctx_switch_t;

typedef struct {
    uint64_t thread;
    VEC(ctx_switch_t) v;
    int64_t running_time;
    int64_t pending_wakeup;   /* wakeup seen while still running, 0 = none */
    uint8_t pending_wakeup_cpu;
} thread_switches_t;

typedef struct {
    int64_t start, end;
    uint16_t thread;          /* external compressed thread */
} cpu_switch_t;

typedef struct {
    int64_t running_time;
    uint32_t regions, migrations;
} cpu_thread_stats_t;

typedef struct {
    uint64_t ip;
    VEC(int64_t) v[6];        /* cycles, retired, cache refs, cache misses, branches, branch misses */
} hw_samples_t;

typedef struct {
    int64_t start, end;       /* end = -id while open */
    uint32_t text;            /* string index + 1 */
} section_item_t;

typedef struct {
    uint16_t category;
    VEC(section_item_t) items;
} section_category_t;

/* ---- what the server does differently per protocol -------------------- */

/* The handling a release's server gives the same events, where it differs
 * from release to release and reaches the file or the queries. The
 * session sets them from its protocol's descriptor (wire/protocols.h);
 * model_init sets protocol 82's. Each names the releases that behave so. */
typedef struct {
    bool zone_value_hex;           /* 72+: a ZoneValue's text is "N [0xN]"; before, "N" */
    bool frame_query_once;         /* 76+: a frame address is asked once; before, again while it has no
                                      stored answer, and a second answer is walked over */
    bool query_alloc_frames;       /* 76 only: the frames of a new allocated call stack are asked as
                                      addresses too (their ids, which resolve to nothing) */
    bool frame_end_creates_set;    /* 64 only: FrameMarkMsgEnd of an unknown name creates the frame set
                                      (and asks its name) before it fails */
    bool on_demand_ignores_frame_end; /* 66+: with OnDemand a FrameMarkMsgEnd without a start is no failure */
    bool samples_raise_time;       /* 66+: call-stack and hardware samples move the capture's last time */
    bool pending_wakeup;           /* 74+: a wakeup of a running thread waits for its next switch-in and
                                      keeps its own cpu; before, it is dropped and a switch-in's wakeup cpu
                                      is its cpu */
    bool keep_die;                 /* 72+: CpuTopology's die is kept (69 reads it and keeps 0) */
    bool mem_alloc_twice_ok;       /* 82: with IgnoreMemFaults a second allocation of a live address frees
                                      the first; before, it is a failure whatever the flags */
    bool source_needs_code_transfer; /* 82: source files are asked for only with the CodeTransfer flag;
                                      before, whenever the client knows its executable's time */
} model_rules_t;

/* ---- the model ---------------------------------------------------------- */

#define SRCLOC_CACHE 16
#define CS_RECENT 4096               /* call stacks by a cheap signature of their frames */

typedef struct {
    const uint64_t *frames;          /* the stack's frames (callstacks[idx] + 1), NULL: empty */
    uint32_t n, idx;
} cs_recent_t;

typedef struct model {
    model_rules_t rules;          /* the server behaviour of the session's protocol */
    /* capture information (welcome message) */
    double timer_mul;
    int64_t base_time;
    int64_t resolution;
    int64_t delay_ns;             /* the welcome's queue delay in ns (files of 0.10-0.12 keep it) */
    int64_t last_time;
    uint64_t frame_offset;
    uint64_t pid;
    int64_t sampling_period;
    uint8_t cpu_arch;
    uint32_t cpu_id;
    char cpu_manufacturer[12];
    bool on_demand;
    char *capture_name, *capture_program, *host_info;
    uint64_t capture_time, exec_time;
    bool ignore_mem_free_faults, ignore_mem_alloc_faults, ignore_frame_end_faults;
    bool code_transfer, combine_samples, identify_samples;

    queryq_t *queries;
    chunkpool_t *chunk_pool;          /* set (and then owned) when a transport thread refills it */

    strtab_t strings;
    hmap_t ptr_strings;          /* client pointer -> string index + 1 (0 = pending) */

    /* threads */
    thread_t **threads;          /* creation order */
    size_t nthreads, threads_cap;
    hmap_t thread_map;           /* id -> position in threads */
    hmap_t thread_names;         /* id -> string index + 1 (0 = pending) */
    VEC(uint64_t) local_threads; /* compressed thread table, [0] = 0 */
    hmap_t local_thread_map;     /* id -> compressed number */
    uint64_t cur_thread_id;      /* last ThreadContext */
    thread_t *last_thread;       /* model_notice_thread's one-entry cache */
    uint64_t last_local_id;      /* model_compress_thread's one-entry cache... */
    uint16_t last_local_num;     /* ...and its number (0 = empty) */
    thread_t *cur_thread;        /* its record, once noticed */
    hmap_t fiber_map;            /* fiber pointer -> virtual thread id */

    /* zones */
    VEC(zone_extra_t) zone_extras;
    /* The texts of open zones that received more than one ZoneText or
     * ZoneValue, joined here and interned once when the zone ends (or the
     * capture does): interning every intermediate join, as upstream does,
     * takes memory and time quadratic in the number of parts. */
    VEC(bytes_t) text_builds;
    VEC(uint32_t) text_builds_free;
    uint64_t zone_count;
    uint64_t zone_parents;       /* zones that received a child */

    /* The secret of the content hashes that key srcloc_payload_map,
     * callstack_map and custom_frame_map (util.h, hashkey_t). */
    hashkey_t content_key;

    /* source locations */
    VEC(srcloc_static_t) srclocs;     /* static, in query order */
    hmap_t srcloc_map;                /* client address -> index in srclocs */
    VEC(uint64_t) srcloc_expand;      /* id -> client address, [0] = 0 */
    hmap_t srcloc_shrink;             /* client address -> id */
    VEC(srcloc_payload_t) srcloc_payloads;
    hmap_t srcloc_payload_map;        /* content hash -> payload index (chained by probing) */
    rhorder srcloc_counts;            /* ids with zones counted, in upstream's map order */
    rhorder gpu_srcloc_counts;
    uint64_t *zone_counts;            /* CPU zones per id, indexed by (uint16_t)id */
    uint64_t *gpu_zone_counts;        /* GPU zones per id, likewise */
    uint64_t srcloc_cache_ptr[SRCLOC_CACHE];  /* recent static locations of zones... */
    int16_t srcloc_cache_id[SRCLOC_CACHE];    /* ...and their ids (0 = empty) */
    VEC(uint64_t) srcloc_fifo;        /* SourceLocation queries awaiting answers */
    size_t srcloc_fifo_head;
    int16_t pending_payload_srcloc;   /* staged SourceLocationPayload id, 0 = none */

    /* staging slots */
    int64_t single_string, second_string;  /* string index, -1 = empty */
    uint32_t pending_callstack;            /* staged callstack id */
    uint32_t serial_callstack;             /* CallstackSerial slot */
    uint64_t mem_name_payload;

    /* frames */
    frameset_t **framesets;
    size_t nframesets, framesets_cap;
    discovery_t frame_disc;
    hmap_t vsync_map;                 /* vsync id -> frameset */
    hmap_t frame_image_staging;       /* base frame index -> image index */
    bytes_t image_data;               /* staged FrameImageData */
    bool image_staged;
    VEC(frame_image_t) images;

    /* messages */
    VEC(message_t) messages;          /* arrival order; id = index + 1 */
    VEC(uint32_t) message_order;      /* time order */
    VEC(uint32_t) app_info;           /* string indices */

    /* plots */
    plot_t **plots;
    size_t nplots, plots_cap;
    discovery_t plot_disc;
    VEC(int64_t) power_last;          /* time of each power plot's last report */
    hmap_t power_map;                 /* power name pointer -> plot */
    uint32_t systime_plot;            /* plot index + 1, 0 = none yet */

    /* call stacks */
    VEC(uint64_t *) callstacks;       /* [i][0] = frame count, then frame ids; [0] unused */
    VEC(uint64_t) cs_scratch;         /* frame ids of the payload being interned */
    VEC(uint32_t) cs_numbered;        /* csdedup.c payload number -> call stack (0: not yet) */
    cs_recent_t cs_recent[CS_RECENT]; /* ahead of callstack_map (model_callstacks.c) */
    hmap_t callstack_map;             /* content hash -> index (probing) */
    hmap_t frame_map;                 /* frame id -> frame_data index + 1; 0 asked, UINT64_MAX being answered */
    VEC(cs_frame_data_t) frame_data;
    hmap_t custom_frame_map;          /* content hash -> frame id (allocated frames) */
    uint64_t next_custom_frame;
    cs_frame_data_t staging_frame;    /* CallstackFrameSize in progress */
    bool staging_active;
    uint64_t staging_ptr;
    uint32_t pending_frames;          /* CallstackFrame queries outstanding */
    uint32_t pending_subframes;
    hmap_t symbol_map;                /* address -> symbols index */
    VEC(symbol_t) symbols;
    VEC(uint64_t) symbol_addrs;
    hmap_t pending_symbols;           /* address -> pending index */
    VEC(symbol_pending_t) symbols_pending;
    uint32_t pending_symbol_code;
    hmap_t pending_code;              /* symbol addresses whose code was asked for */
    hmap_t symbol_code_map;           /* address -> symbol_code index */
    VEC(uint64_t) symbol_code_addrs;
    VEC(bytes_t) symbol_code;
    hmap_t code_symbol_map;           /* code address -> symbol address */

    /* source files */
    hmap_t checked_file_ptr, checked_file_idx;
    hmap_t pending_file_ptr;
    hmap_t source_cache;              /* file string index -> cache position + 1 */
    VEC(uint32_t) source_names;
    VEC(bytes_t) source_data;
    hmap_t source_queries;            /* request id -> file string index */
    uint32_t next_source_query;

    /* pending answers */
    uint32_t pending_strings, pending_thread_names, pending_fibers;
    uint32_t pending_external_names;

    /* locks */
    VEC(lock_t) locks;
    hmap_t lock_map;                  /* client id -> locks index */

    /* memory */
    VEC(mem_pool_t) pools;            /* [0] = default pool (name 0) */
    uint64_t last_pool_name;          /* pool_for's one-entry cache... */
    size_t last_pool;                 /* ...its index + 1 (0 = empty) */
    hmap_t pool_map;                  /* name -> pools index */

    /* GPU */
    gpu_ctx_t *gpu[256];              /* by context number */
    VEC(gpu_ctx_t *) gpu_order;       /* creation order */

    /* scheduling and system data */
    hmap_t external_names;            /* thread id -> external_name index */
    VEC(uint32_t) external_name_strs; /* pairs: process name, thread name (string index + 1) */
    VEC(thread_switches_t) switches;  /* per thread context switches (and fiber runs) */
    hmap_t switch_map;                /* thread id -> switches index */
    VEC(cpu_switch_t) cpu_switches[256];
    unsigned cpu_count;
    VEC(uint64_t) external_threads;   /* external compressed thread table */
    hmap_t external_thread_map;
    hmap_t cpu_stats_map;             /* thread id -> cpu_stats index */
    VEC(uint64_t) cpu_stats_threads;
    VEC(cpu_thread_stats_t) cpu_stats;
    hmap_t tid_to_pid;
    VEC(uint64_t) topology;           /* (package, die, core, thread) quadruples as 4 entries */
    hmap_t hw_map;                    /* ip -> hw index */
    VEC(hw_samples_t) hw;

    /* sections */
    VEC(section_category_t) sections;
    hmap_t section_map;               /* category -> sections index */
    hmap_t section_desc;              /* category -> string index + 1 (0 = none) */
    VEC(uint16_t) section_desc_order;
    hmap_t sections_active;           /* id -> category + 1, or 0 for a leave seen first */
    VEC(section_item_t) sections_pending;   /* leaves before their enter: start holds the id */

    /* parameters (not saved in .tracy files; kept for the summary) */
    uint64_t params;

    /* crash */
    uint64_t crash_thread, crash_message;
    int64_t crash_time;
    uint32_t crash_callstack;
    bool has_crash;

    uint64_t samples_total;

    /* The heap bytes of the blocks kept one per element (call stacks,
     * frames of call-stack frames, symbol code, source files, frame
     * images, each sampled address's hardware samples, zone texts being
     * joined), counted as they are allocated (model_block_resized), so that
     * model_memory does not walk the elements. */
    uint64_t block_bytes;

    /* session flags */
    bool terminate, crashed;

    /* diagnostics: instrumentation problems seen (upstream's failures) */
    uint64_t failures;
    char first_failure[400];
    /* where the event being decoded is, for failure messages (set by
     * session.c for each frame and event.c for each event; frame_base
     * NULL outside a frame) */
    const uint8_t *frame_base, *ev_at;
    uint64_t at_frame_no, at_stream_offset;
    const char *const *event_names;  /* the wire's name of each type byte (event.c sets it; NULL: none) */
} model_t;

/* A model with protocol 82's rules (model_rules_82); a session of another
 * protocol sets m->rules before the welcome. */
void model_init(model_t *m, queryq_t *queries);
extern const model_rules_t model_rules_82;
void model_free(model_t *m);

/* What a capture holds, per feature (for the summary and tests). */
typedef struct {
    uint64_t threads, zones, zone_extras, source_locations, strings;
    uint64_t frame_sets, frames, frame_images;
    uint64_t marked_frames;     /* frames beyond the base ones every capture has (FrameMark's) */
    uint64_t messages, app_info, params;
    uint64_t plots, plot_points;
    uint64_t system_plots;      /* of the plots, those of CPU usage and power, which no program records */
    uint64_t locks, lock_events;
    uint64_t memory_pools, memory_events;
    uint64_t gpu_contexts, gpu_zones;
    uint64_t callstacks, callstack_frames, symbols, symbol_code, symbol_code_bytes;
    uint64_t source_files, source_file_bytes;
    uint64_t samples, context_switch_samples, context_switches, cpu_context_switches, hw_samples;
    uint64_t fibers, sections, crashes;
    uint64_t fiber_runs;        /* of the per-thread context switches, the runs of fibers */
} model_counts_t;

void model_count(const model_t *m, model_counts_t *c);

/* An estimate of the heap bytes the model holds: every container's
 * allocation (capacities, not fill), the blocks of the zone and memory
 * logs and of the string pool, and m->block_bytes; not the query queue,
 * which the session owns. For a per-client memory limit: its cost grows
 * with the threads, frame sets, plots, locks, memory pools, GPU contexts,
 * scheduled threads and section categories, never with the events,
 * strings or call stacks they hold. Reads the model unlocked: call it
 * while nothing else uses it. */
size_t model_memory(const model_t *m);

/* What malloc takes for a block of n bytes, roughly (glibc: a header of 8
 * bytes, 16-byte granules, 32 at least); 0 for no block. */
static inline size_t heap_block(size_t n)
{
    const size_t b = (n + 8 + 15) & ~(size_t)15;
    return n == 0 ? 0 : b < 32 ? 32 : b;
}

/* Count in m->block_bytes a block that was old_n bytes and is now new_n
 * (0: none, so a new block is 0 -> n and a freed one n -> 0). */
static inline void model_block_resized(model_t *m, size_t old_n, size_t new_n)
{
    m->block_bytes += heap_block(new_n) - heap_block(old_n);
}

/* Stop taking zone-log chunks from the pool and free it. */
void model_drop_chunk_pool(model_t *m);

/* Record every zone log's fill, so that readers see all of it. */
void model_seal_logs(model_t *m);

/* Prepare for saving: sort what the file needs sorted (plot points,
 * samples, hardware samples), as upstream does before writing. */
void model_finish(model_t *m);

/* Set from the welcome message. */
/* What the client says of itself when the session begins (read off the
 * wire by wire/welcome.c). */
typedef struct {
    double timer_mul;             /* ns per client tick, as sent */
    int64_t init_begin, init_end; /* ticks: the time origin, the end of the client's start-up */
    uint64_t resolution;          /* ticks */
    uint64_t delay;               /* ticks: the client's queue delay (protocols 64-74 send it; 0 otherwise) */
    uint64_t capture_time, exec_time, pid;
    int64_t sampling_period;
    bool on_demand, ignore_mem_faults, code_transfer, combine_samples, identify_samples;
    uint8_t cpu_arch;
    char cpu_manufacturer[12];    /* not NUL-terminated */
    uint32_t cpu_id;
    char program[65], host_info[1025];   /* NUL-terminated */
} welcome_t;

typedef struct {
    uint64_t frame_offset;        /* frames the client counted before this connection */
    int64_t connection_time;      /* ticks */
} on_demand_t;

void model_welcome(model_t *m, const welcome_t *welcome);
void model_on_demand(model_t *m, const on_demand_t *payload);

/* Times a trace holds: the file's readers keep most times in 48 bits
 * (tracy-file-0.14.md part 4), so every time entering the model is within
 * +-MODEL_TIME_MAX ns; one outside is a failure, kept at the nearest end. */
#define MODEL_TIME_MAX ((INT64_C(1) << 47) - 1)

static inline bool time_fits(double ns) { return ns >= -(double)MODEL_TIME_MAX && ns <= (double)MODEL_TIME_MAX; }

/* ns (through double, truncated as upstream does) within the range, the
 * nearest end when outside it (NaN: 0). */
static inline int64_t time_clamp(double ns)
{
    if (time_fits(ns)) return (int64_t)ns;
    return ns > 0 ? MODEL_TIME_MAX : ns < 0 ? -MODEL_TIME_MAX : 0;
}

/* Client ticks as ns since the capture's base time, before the range check. */
static inline double model_ticks_ns(const model_t *m, int64_t ticks)
{
    return (double)sub_wrap(ticks, m->base_time) * m->timer_mul;
}

/* Whether ticks convert to a time the trace holds. */
static inline bool model_ticks_fit(const model_t *m, int64_t ticks) { return time_fits(model_ticks_ns(m, ticks)); }

/* Ticks that convert to ns outside the range: a failure, kept at the
 * nearest end. */
int64_t model_time_outside(model_t *m, int64_t ticks, double ns);

/* Time conversion: client ticks to ns since the capture's base time, the
 * one place CPU times enter the model (checked). */
static inline int64_t model_time(model_t *m, int64_t ticks)
{
    const double ns = model_ticks_ns(m, ticks);
    return __builtin_expect(time_fits(ns), 1) ? (int64_t)ns : model_time_outside(m, ticks, ns);
}

/* The same conversion for ticks already checked when they arrived (the
 * zone log's, at save time): the value model_time kept. */
static inline int64_t model_time_kept(const model_t *m, int64_t ticks) { return time_clamp(model_ticks_ns(m, ticks)); }
static inline void model_raise_time(model_t *m, int64_t t)
{
    if (m->last_time < t) m->last_time = t;
}

/* Whether upstream's "pending work" conditions after Terminate hold. */
/* sync_only: count only answers the client sends even after a Disconnect
 * (names and source locations), not asynchronous ones. */
bool model_pending_work(const model_t *m, bool check_zones, bool sync_only, char *why, size_t whylen);

/* Record an instrumentation problem (upstream enters failure mode; we warn,
 * drop the event and go on). */
void model_failure(model_t *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- shared helpers used by the handler files ---- */
thread_t *model_notice_thread(model_t *m, uint64_t id);
thread_t *model_find_thread(const model_t *m, uint64_t id);
thread_t *model_new_thread(model_t *m, uint64_t id, bool fiber, int32_t group_hint);
thread_t *model_current_thread(model_t *m);     /* GetCurrentThreadData */
uint16_t model_compress_thread(model_t *m, uint64_t id);
/* NoticeThread then CompressThread, for events that do both (memory). */
uint16_t model_notice_compress_thread(model_t *m, uint64_t id);
bool model_check_string(model_t *m, uint64_t ptr);
void model_check_thread_string(model_t *m, uint64_t id);
/* Static source-location ids a trace file holds: zones keep int16 ids,
 * static ones 1..32766 (upstream's limit; readers take 32767 as none). */
#define SRCLOC_STATIC_MAX 32766
void model_check_source_location(model_t *m, uint64_t ptr);
int16_t model_shrink_srcloc(model_t *m, uint64_t ptr);   /* 0: no id left */
uint32_t model_store_string(model_t *m, const void *p, size_t n);
int64_t model_take_single_string(model_t *m);
int64_t model_take_second_string(model_t *m);
void model_cache_source_ptr(model_t *m, uint64_t ptr);
void model_cache_source_idx(model_t *m, uint32_t idx, uint32_t image);
/* String text of a client pointer, or NULL if unknown/pending. */
const char *model_ptr_string(const model_t *m, uint64_t ptr);

/* name discovery, shared by frame sets and plots (model_frames.c) */
int64_t discovery_find(const discovery_t *d, uint64_t name);
void discovery_add_pending(discovery_t *d, uint64_t name, uint32_t item);
int64_t discovery_resolve(model_t *m, discovery_t *d, uint64_t name, uint32_t str, int64_t *item);

/* ---- event handlers (one per event kind; see event.c for the wire) ---- */
void model_thread_context(model_t *m, uint64_t thread);

/* strings and names */
void model_single_string(model_t *m, const uint8_t *p, size_t n);
void model_second_string(model_t *m, const uint8_t *p, size_t n);
void model_string_data(model_t *m, uint64_t ptr, const uint8_t *p, size_t n);
void model_thread_name(model_t *m, uint64_t id, const uint8_t *p, size_t n);
void model_fiber_name(model_t *m, uint64_t fiber, const uint8_t *p, size_t n);
void model_plot_name(model_t *m, uint64_t ptr, const uint8_t *p, size_t n);
void model_frame_name(model_t *m, uint64_t ptr, const uint8_t *p, size_t n);
void model_external_name(model_t *m, uint64_t id, const uint8_t *p, size_t n, bool thread_name);
void model_source_location(model_t *m, uint64_t name, uint64_t function, uint64_t file,
                           uint32_t line, uint8_t r, uint8_t g, uint8_t b);
void model_source_location_payload(model_t *m, const uint8_t *p, size_t n);

/* zones (runs of plain zone events take the inline fast path of
 * model_zonelog.h from wire/zonerun.c) */
void model_zone_begin(model_t *m, int64_t time, uint64_t srcloc, bool callstack);
void model_zone_begin_alloc(model_t *m, int64_t time, bool callstack);
void model_zone_end(model_t *m, int64_t time);
void model_zone_validation(model_t *m, uint32_t id);
void model_zone_text(model_t *m);
void model_zone_name(model_t *m);
void model_zone_color(model_t *m, uint8_t r, uint8_t g, uint8_t b);
void model_zone_value(model_t *m, uint64_t value);
/* Intern the text an open zone has been building from several parts (when
 * it ends, or at the end of the capture). */
void model_zone_text_close(model_t *m, open_zone_t *z);

/* frames */
/* Create the base frame set (at the welcome) and append start frames. */
void model_base_frames(model_t *m, int64_t t0, int64_t t1);
void model_frame_mark(model_t *m, int64_t time, uint64_t name);
void model_frame_mark_start(model_t *m, int64_t time, uint64_t name);
void model_frame_mark_end(model_t *m, int64_t time, uint64_t name);
void model_frame_vsync(model_t *m, int64_t time, uint32_t id);
void model_frame_image_data(model_t *m, const uint8_t *p, size_t n);
void model_frame_image(model_t *m, uint32_t frame, uint16_t w, uint16_t h, uint8_t flip);

/* messages */
void model_message(model_t *m, int64_t time, uint64_t text, bool literal, uint32_t color,
                   uint8_t metadata, bool callstack);
void model_app_info(model_t *m, int64_t time);

/* plots */
void model_plot_data(model_t *m, uint64_t name, int64_t time, double val);
void model_plot_config(model_t *m, uint64_t name, uint8_t type, uint8_t step, uint8_t fill, uint32_t color);
void model_sys_time(model_t *m, int64_t time, float val);
void model_sys_power(model_t *m, int64_t time, uint64_t delta, uint64_t name);

/* call stacks, symbols, code */
void model_callstack_payload(model_t *m, const uint8_t *p, size_t n);
/* The same payload, numbered by the decoder thread (csdedup.h). */
void model_callstack_payload_seen(model_t *m, uint64_t number, const uint8_t *p, size_t n);
void model_callstack_alloc_payload(model_t *m, const uint8_t *p, size_t n);
void model_callstack(model_t *m);
void model_callstack_serial(model_t *m);
void model_callstack_frame_size(model_t *m, uint64_t ptr, uint8_t size);
void model_callstack_frame(model_t *m, uint32_t line, uint64_t sym_addr, uint32_t sym_len);
void model_symbol_information(model_t *m, uint32_t line, uint64_t sym_addr);
void model_symbol_code(model_t *m, uint64_t ptr, const uint8_t *p, size_t n);
void model_symbol_code_unavailable(model_t *m);
void model_source_code(model_t *m, uint32_t id, const uint8_t *p, size_t n);
void model_source_code_unavailable(model_t *m, uint32_t id);
void model_callstack_sample(model_t *m, uint32_t thread, int64_t time, bool ctx_switch);

/* locks */
void model_lock_announce(model_t *m, uint32_t id, int64_t time, uint64_t srcloc, uint8_t type);
void model_lock_terminate(model_t *m, uint32_t id, int64_t time);
void model_lock_event(model_t *m, uint32_t id, uint32_t thread, int64_t time, uint8_t kind, bool has_thread);
void model_lock_mark(model_t *m, uint32_t id, uint32_t thread, uint64_t srcloc);
void model_lock_name(model_t *m, uint32_t id);

/* memory */
void model_mem_name_payload(model_t *m, uint64_t name);
void model_mem_alloc(model_t *m, int64_t time, uint32_t thread, uint64_t ptr, uint64_t size, bool named, bool callstack);
void model_mem_free(model_t *m, int64_t time, uint32_t thread, uint64_t ptr, bool named, bool callstack);
void model_mem_discard(model_t *m, int64_t time, uint32_t thread, uint64_t name, bool callstack);

/* GPU */
void model_gpu_new_context(model_t *m, int64_t cpu_time, int64_t gpu_time, uint32_t thread,
                           float period, uint8_t context, uint8_t flags, uint8_t type);
void model_gpu_zone_begin(model_t *m, int64_t cpu_time, uint32_t thread, uint16_t query_id,
                          uint8_t context, uint64_t srcloc, bool alloc, bool callstack, bool serial);
void model_gpu_zone_end(model_t *m, int64_t cpu_time, uint32_t thread, uint16_t query_id, uint8_t context);
void model_gpu_time(model_t *m, int64_t gpu_time, uint16_t query_id, uint8_t context);
void model_gpu_calibration(model_t *m, int64_t gpu_time, int64_t cpu_time, int64_t cpu_delta, uint8_t context);
void model_gpu_time_sync(model_t *m, int64_t gpu_time, int64_t cpu_time, uint8_t context);
void model_gpu_context_name(model_t *m, uint8_t context);
void model_gpu_annotation_name(model_t *m, int64_t note, uint8_t context);
void model_gpu_zone_annotation(model_t *m, int64_t note, double value, uint32_t thread, uint16_t query_id, uint8_t context);

/* system */
void model_context_switch(model_t *m, int64_t time, uint32_t old_thread, uint32_t new_thread,
                          uint8_t cpu, uint8_t wait_reason, uint8_t state);
void model_thread_wakeup(model_t *m, int64_t time, uint32_t thread, uint8_t cpu);
void model_tid_to_pid(model_t *m, uint64_t tid, uint64_t pid);
void model_hw_sample(model_t *m, int kind, uint64_t ip, int64_t time);
void model_cpu_topology(model_t *m, uint32_t package, uint32_t die, uint32_t core, uint32_t thread);
void model_param_setup(model_t *m, uint32_t idx, uint64_t name, uint8_t type, int32_t val);
void model_thread_group_hint(model_t *m, uint32_t thread, int32_t hint);

/* fibers and sections */
void model_fiber_enter(model_t *m, int64_t time, uint64_t fiber, uint32_t thread, int32_t group_hint);
void model_fiber_leave(model_t *m, int64_t time, uint32_t thread);
void model_section_enter(model_t *m, int64_t time, uint32_t id, uint16_t category);
void model_section_leave(model_t *m, int64_t time, uint32_t id);
void model_section_setup(model_t *m, uint16_t category);

/* crash */
void model_crash_report(model_t *m, int64_t time, uint64_t text);

#endif
