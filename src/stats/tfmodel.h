/* tfmodel: in-memory representation of every section of a .tracy payload
 * (tracy-file-0.14.md §2.2, sections 1..36), filled by tfload.c and
 * consumed by csvexport.c (and by the tests' validate.c and summary.c).
 * The per-event lists (zones, messages, plot points, memory events...) are
 * only there if the loader was asked to keep them (LOAD_KEEP_*): a list
 * not kept has count 0, though counts of what was read (zone_count,
 * gpu_zone_count, the threads' zone ranges) are kept either way.  Times
 * are absolute nanoseconds (delta coding already undone).  Raw byte blobs
 * (symbol code, source file contents, frame image pixels, zstd dictionary)
 * are skipped; only their sizes are kept.  "sidx" fields hold the raw
 * StringIdx value (index + 1, 0 = none); Int24 fields are widened to u32. */
#ifndef TC_TFMODEL_H
#define TC_TFMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "rhorder.h"

/* StringRef (9 bytes): flags bit0 = index form, bit1 = active. */
typedef struct tf_strref {
    uint64_t value;
    uint8_t flags;
} tf_strref;

enum { TF_REF_IDX = 1, TF_REF_ACTIVE = 2 };

typedef struct tf_srcloc {
    tf_strref name, function, file;
    uint32_t line, color;
} tf_srcloc;

typedef struct tf_string {
    uint64_t id;
    size_t off;              /* into model.str_pool (NUL terminated there) */
    uint64_t len;
} tf_string;

typedef struct tf_topo_thread { uint32_t package, die, core, thread; } tf_topo_thread;

typedef struct tf_crash {
    uint64_t thread;
    int64_t time;
    uint64_t message;
    uint32_t callstack;
} tf_crash;

typedef struct tf_frame {
    int64_t start, end;      /* end = -1 for continuous sets */
    int32_t image;
} tf_frame;

typedef struct tf_frameset {
    uint64_t name;
    uint8_t continuous;
    size_t count;
    tf_frame *frames;
} tf_frameset;

typedef struct tf_section_item { int64_t start, end; uint32_t text_sidx; } tf_section_item;

typedef struct tf_section_cat {
    uint16_t category;
    size_t count;
    tf_section_item *items;
} tf_section_cat;

typedef struct tf_section_desc { uint16_t category; uint32_t text_sidx; } tf_section_desc;

typedef struct tf_u64pair { uint64_t a, b; } tf_u64pair;

typedef struct tf_extname { uint64_t thread, process_str, name_str; } tf_extname;

typedef struct tf_static_srcloc { uint64_t addr; tf_srcloc loc; } tf_static_srcloc;

typedef struct tf_zone_count { int16_t id; uint64_t count; } tf_zone_count;

typedef struct tf_lock_event {
    int64_t time;
    int16_t srcloc;
    uint8_t thread, type;
} tf_lock_event;

typedef struct tf_lock {
    uint32_t id;
    uint32_t name_sidx;
    int16_t srcloc;
    uint8_t type, valid;
    int64_t announce, terminate;
    size_t thread_count;
    uint64_t *threads;
    size_t event_count;
    tf_lock_event *events;
} tf_lock;

typedef struct tf_message {
    uint64_t id;
    int64_t time;
    tf_strref text;
    uint32_t color, callstack;
    uint8_t source, severity;
} tf_message;

typedef struct tf_zone_extra { uint32_t callstack, text_sidx, name_sidx, color; } tf_zone_extra;

/* CPU zone, 24 bytes.  Zones of all threads live in one array in file
 * order, i.e. per thread depth-first pre-order; a zone's descendants are
 * the `ndesc` zones right after it.  start and srcloc are packed like
 * upstream: start << 16 | (uint16)srcloc (start fits 48 bits, checked). */
typedef struct tf_zone {
    uint64_t start_srcloc;
    int64_t end;
    uint32_t extra;
    uint32_t ndesc;
} tf_zone;

static inline int64_t tf_zone_start(const tf_zone *z) { return (int64_t)z->start_srcloc >> 16; }
static inline int16_t tf_zone_srcloc(const tf_zone *z) { return (int16_t)(z->start_srcloc & 0xFFFF); }

typedef struct tf_sample { int64_t time; uint32_t callstack; } tf_sample;

typedef struct tf_thread {
    uint64_t id;
    uint64_t zone_count;         /* as stored */
    uint64_t kernel_samples;
    uint8_t is_fiber;
    int32_t group_hint;
    uint32_t top_count;          /* top-level zones */
    size_t zone_first, zone_num; /* range in model.zones (all depths) */
    size_t msg_first, msg_num;   /* range in model.thread_msg_ids */
    size_t ctx_sample_count;
    tf_sample *ctx_samples;
    size_t sample_count;
    tf_sample *samples;
} tf_thread;

typedef struct tf_gpu_zone {
    int64_t cpu_start, cpu_end, gpu_start, gpu_end;
    uint32_t callstack;
    uint32_t ndesc;
    int16_t srcloc;
    uint16_t thread;
    uint16_t query;
} tf_gpu_zone;

typedef struct tf_gpu_timeline {
    uint64_t key;
    size_t zone_first, zone_num; /* range in model.gpu_zones; zone_num 0 if not stored */
} tf_gpu_timeline;

typedef struct tf_gpu_note_name { int64_t id; uint32_t name_sidx; } tf_gpu_note_name;
typedef struct tf_gpu_note { int64_t id; double value; } tf_gpu_note;
typedef struct tf_gpu_note_query {
    uint16_t query;
    size_t count;
    tf_gpu_note *notes;
} tf_gpu_note_query;

typedef struct tf_gpu_ctx {
    uint64_t thread;
    uint8_t has_calibration;
    uint64_t count;
    float period;
    uint8_t type;
    uint32_t name_sidx;
    uint64_t overflow;
    size_t note_name_count;
    tf_gpu_note_name *note_names;
    size_t timeline_count;
    tf_gpu_timeline *timelines;
    size_t note_query_count;
    tf_gpu_note_query *note_queries;
} tf_gpu_ctx;

typedef struct tf_plot_point { int64_t time; double value; } tf_plot_point;

typedef struct tf_plot {
    uint8_t type, format, show_steps, fill;
    uint32_t color;
    uint64_t name;
    double min, max, sum;
    size_t count;
    tf_plot_point *points;
} tf_plot;

typedef struct tf_mem_event {
    uint64_t address, size;
    uint32_t cs_alloc, cs_free;
    int64_t time_alloc;
    int64_t free_offset;     /* as stored: free time - alloc time, or negative */
    uint16_t thread_alloc, thread_free;
} tf_mem_event;

typedef struct tf_mem_pool {
    uint64_t name;
    uint64_t active_count, freed_count;   /* as stored */
    size_t count;
    tf_mem_event *events;
    uint64_t high, low, usage, name2;
} tf_mem_pool;

typedef struct tf_callstack { size_t first; uint16_t count; } tf_callstack;

typedef struct tf_cs_frame {
    uint32_t name_sidx, file_sidx;
    uint32_t line;
    uint64_t sym_addr;
} tf_cs_frame;

typedef struct tf_cs_frame_data {
    uint64_t id;
    uint8_t count;
    uint32_t image_sidx;
    size_t first;            /* into model.cs_frame_items */
} tf_cs_frame_data;

typedef struct tf_frame_image { uint16_t w, h; uint8_t flip; } tf_frame_image;

typedef struct tf_ctx_switch {
    int64_t wakeup, start, end;
    uint8_t cpu;
    int8_t reason, state;
    uint64_t thread;
    uint8_t wakeup_cpu;
} tf_ctx_switch;

typedef struct tf_thread_ctx_switches {
    uint64_t thread;
    size_t count;
    tf_ctx_switch *records;
} tf_thread_ctx_switches;

typedef struct tf_cpu_switch { int64_t start, end; uint16_t thread; } tf_cpu_switch;

typedef struct tf_cpu_switches { size_t count; tf_cpu_switch *records; } tf_cpu_switches;

typedef struct tf_cpu_thread_data {
    uint64_t thread;
    int64_t running_time;
    uint32_t running_regions, migrations;
} tf_cpu_thread_data;

typedef struct tf_symbol {
    uint64_t address;
    uint32_t name_sidx, file_sidx, line, image_sidx, call_file_sidx, call_line;
    uint8_t is_inline;
    uint32_t size;
} tf_symbol;

typedef struct tf_symbol_code { uint64_t address; uint32_t length; } tf_symbol_code;

enum { TF_HW_VECTORS = 6 };

typedef struct tf_hw_sample {
    uint64_t address;
    size_t count[TF_HW_VECTORS];
    int64_t *times[TF_HW_VECTORS];
} tf_hw_sample;

typedef struct tf_source_file {
    size_t name_off;         /* into model.str_pool */
    uint32_t name_len;
    uint32_t data_len;
} tf_source_file;

enum { TF_SECTIONS = 37 };   /* payload header + sections 1..36 */

typedef struct tf_model {
    uint64_t section_offset[TF_SECTIONS];   /* payload offset where each starts */
    /* 0 header */
    uint8_t version[3];
    int has_delay;               /* files before 0.12.3: an i64 queue delay follows */
    int64_t delay;
    /* 1 capture information */
    int64_t resolution;
    double timer_mul;
    int64_t last_time;
    uint64_t frame_offset, pid;
    int64_t sampling_period;
    uint8_t cpu_arch;
    uint32_t cpu_id;
    char cpu_manufacturer[13];
    uint8_t on_demand;
    char *capture_name, *capture_program, *host_info;
    uint64_t capture_name_len, capture_program_len, host_info_len;
    uint64_t capture_time, executable_time;
    /* 2 topology (flattened) */
    size_t topo_packages, topo_count;
    tf_topo_thread *topo;
    /* 3 crash */
    tf_crash crash;
    /* 4 frames */
    size_t frameset_count;
    tf_frameset *framesets;
    /* 5 sections */
    size_t section_count;
    tf_section_cat *sections;
    size_t section_desc_count;
    tf_section_desc *section_descs;
    /* 6 strings: all bytes in one NUL-separated pool */
    char *str_pool;
    size_t str_pool_len, str_pool_cap;
    size_t string_count;
    tf_string *strings;
    /* 7..9 */
    size_t ptr_map_count;
    tf_u64pair *ptr_map;         /* client pointer, string id */
    size_t thread_name_count;
    tf_u64pair *thread_names;    /* thread id, string id */
    size_t ext_name_count;
    tf_extname *ext_names;
    /* 10, 11 */
    size_t local_thread_count;
    uint64_t *local_threads;
    size_t ext_thread_count;
    uint64_t *ext_threads;
    /* 12..14 */
    size_t static_srcloc_count;
    tf_static_srcloc *static_srclocs;
    size_t expand_count;
    uint64_t *expand;
    size_t payload_srcloc_count;
    tf_srcloc *payload_srclocs;
    /* 15, 16 */
    size_t cpu_count_count;
    tf_zone_count *cpu_counts;
    size_t gpu_count_count;
    tf_zone_count *gpu_counts;
    /* 17 locks */
    size_t lock_count;
    tf_lock *locks;
    /* 18 messages */
    size_t message_count;
    tf_message *messages;
    /* 19 zone extras */
    size_t extra_count;
    tf_zone_extra *extras;
    /* 20 threads */
    uint64_t total_zone_count;       /* as stored */
    uint64_t child_vector_count;     /* as stored */
    size_t thread_count;
    tf_thread *threads;
    size_t zone_count, zone_cap;
    tf_zone *zones;
    size_t zones_with_children;
    size_t thread_msg_count, thread_msg_cap;
    uint64_t *thread_msg_ids;
    /* 21 GPU */
    uint64_t total_gpu_zone_count;   /* as stored */
    uint64_t gpu_child_vector_count; /* as stored */
    size_t gpu_ctx_count;
    tf_gpu_ctx *gpu_ctxs;
    size_t gpu_zone_count, gpu_zone_cap;
    tf_gpu_zone *gpu_zones;
    size_t gpu_zones_with_children;
    /* 22 plots */
    size_t plot_count;
    tf_plot *plots;
    /* 23 memory */
    uint64_t mem_total_events;       /* as stored */
    size_t pool_count;
    tf_mem_pool *pools;
    /* 24 callstacks (index k+1 = callstacks[k]) */
    size_t callstack_count;
    tf_callstack *callstacks;
    size_t cs_frame_id_count, cs_frame_id_cap;
    uint64_t *cs_frame_ids;
    /* 25 callstack frames */
    size_t cs_frame_count;
    tf_cs_frame_data *cs_frames;
    size_t cs_frame_item_count, cs_frame_item_cap;
    tf_cs_frame *cs_frame_items;
    /* 26 app info */
    size_t app_info_count;
    tf_strref *app_info;
    /* 27 frame images */
    uint32_t frame_image_dict_size;
    size_t frame_image_count;
    tf_frame_image *frame_images;
    uint64_t frame_image_bytes;
    /* 28, 29 context switches */
    size_t ctx_thread_count;
    tf_thread_ctx_switches *ctx_threads;
    uint64_t cpu_switch_total;       /* as stored */
    tf_cpu_switches cpu_switches[256];
    /* 30, 31 */
    size_t tid_pid_count;
    tf_u64pair *tid_pid;
    size_t cpu_thread_data_count;
    tf_cpu_thread_data *cpu_thread_data;
    /* 32..34 symbols */
    uint64_t symbol_slots, inline_symbol_slots;
    size_t symbol_count;
    tf_symbol *symbols;
    size_t symbol_code_count;
    tf_symbol_code *symbol_code;
    uint64_t symbol_code_bytes;
    size_t code_symbol_count;
    tf_u64pair *code_symbols;
    /* 35 hardware samples */
    size_t hw_sample_count;
    tf_hw_sample *hw_samples;
    /* 36 source file cache */
    size_t source_file_count;
    tf_source_file *source_files;
    uint64_t source_file_bytes;

    /* Derived lookups, built by tf_model_build_lookups(). */
    rhorder string_by_id;        /* string id -> string index (first wins) */
    rhorder ptr_string;          /* client pointer -> string index (resolved entries) */
    rhorder static_by_addr;      /* srcloc address -> static_srclocs index */
    /* Local thread table as the loader ends up with it after §5.20:
     * §5.10 followed by missing §5.20 thread ids, first occurrence wins
     * (built by the loader as it reads §5.10 and §5.20). */
    size_t loader_thread_count, loader_thread_cap;
    uint64_t *loader_threads;
    rhorder loader_thread_index; /* thread id -> compressed number */
} tf_model;

void tf_model_init(tf_model *m);
void tf_model_free(tf_model *m);

/* Build the string and source-location lookups.  Returns 0, or -1 when
 * out of memory. */
int tf_model_build_lookups(tf_model *m);

/* String of table entry idx (0-based), NUL terminated. */
const char *tf_model_string_at(const tf_model *m, size_t idx);

/* Text upstream's GetString(StringRef) yields ("???" for unresolved). */
const char *tf_model_strref_text(const tf_model *m, tf_strref ref);

/* Text for a client pointer resolved through the pointer map ("???"). */
const char *tf_model_pointer_text(const tf_model *m, uint64_t ptr);

/* Text of a raw StringIdx value (NULL when 0 or out of range). */
const char *tf_model_sidx_text(const tf_model *m, uint32_t sidx);

/* Source location for an id (NULL if the id does not resolve).  32767 is
 * upstream's reserved "empty" location (all fields unset). */
const tf_srcloc *tf_model_srcloc(const tf_model *m, int16_t id);

/* Compressed thread number the loader assigns to a §5.20 thread id. */
uint16_t tf_model_thread_number(const tf_model *m, uint64_t tid);

#endif
