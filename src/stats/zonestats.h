/* zonestats: what upstream's statistics pass builds after loading a
 * .tracy file (csvexport-and-fidelity.md §A.2/§A.3): one record per
 * source-location id, in maps that iterate in upstream's order, with
 * count, min, max, total, sumSq and self times.
 *
 * The CPU records are filled zone by zone while the file is read (the
 * loader's sink, stats_sink), so they need no memory per zone: the loader
 * hands over each zone's begin and end in file order (threads in §5.20
 * order, each timeline depth-first), and the only order that matters,
 * that of the double sumSq, is kept by holding back the spans of zones
 * nested in an open zone of their own source location until the
 * outermost one ends (8 bytes each, for recursion only). On request the
 * records also keep what -u prints of each zone (rows, in walk order) and
 * what --truncated_mean sorts (values): those grow with the zones, as the
 * output does. The GPU records are built afterwards from a model that kept
 * its GPU zones (stats_build_gpu), for -g. */
#ifndef TC_ZONESTATS_H
#define TC_ZONESTATS_H

#include <stddef.h>
#include <stdint.h>

#include "rhorder.h"
#include "tfload.h"
#include "tfmodel.h"

/* One CPU zone as -u prints it. */
typedef struct zone_row {
    int64_t start;
    int64_t exec;            /* end - start; with self_rows minus the direct children's spans */
    uint32_t extra;          /* zone extra index (its text is the value column) */
    uint16_t thread;         /* the loader's number of the owning thread */
    uint8_t dropped;         /* not a counted zone (its place was taken when it began) */
} zone_row;

typedef struct srcloc_stats {
    int16_t id;
    int64_t total, min, max;
    int64_t self_total, self_min, self_max;
    double sum_sq;
    uint64_t count;          /* counted zones */
    /* while reading: zones of this srcloc open now, and the spans (0: not
     * counted) of those begun inside the outermost, in begin order */
    uint32_t open;
    int64_t *pending;
    size_t pending_n, pending_cap;
    zone_row *rows;          /* keep_rows: counted zones (and dropped places) in walk order */
    size_t row_n, row_cap;
    int64_t *values;         /* keep_values: each counted zone's exec value */
    size_t value_n, value_cap;
    size_t list_first;       /* GPU: this srcloc's zones in gpu_list */
} srcloc_stats;

typedef struct stats_options {
    int keep_rows;           /* -u */
    int keep_values;         /* --truncated_mean */
    int self_rows;           /* -e: rows' and values' exec without the children (no clamp) */
} stats_options;

/* A zone begun and not yet ended. */
typedef struct open_zone {
    int64_t start;
    int64_t child_clamped;   /* Σ max(0, child span) over direct children */
    int64_t child_raw;       /* Σ child span */
    size_t rec;              /* record index, SIZE_MAX if its srcloc has none */
    size_t pending;          /* its place in the record's pending spans, SIZE_MAX if outermost */
    size_t row;              /* its row, SIZE_MAX if none */
} open_zone;

typedef struct tf_stats {
    stats_options opt;
    /* CPU: map id -> index in cpu[] (reserved and filled like the loader) */
    rhorder cpu_map;
    size_t cpu_count;
    srcloc_stats *cpu;
    int32_t *cpu_of_id;      /* the same by id as uint16 (65536 entries): record index, or -1 */
    uint16_t thread;         /* number of the thread being read */
    open_zone *open;
    size_t open_n, open_cap;
    /* GPU: map id -> index in gpu[]; ids missing from §5.16 are appended */
    rhorder gpu_map;
    size_t gpu_count, gpu_cap;
    srcloc_stats *gpu;
    uint32_t *gpu_list;      /* model.gpu_zones indices, grouped per srcloc */
} tf_stats;

void stats_init(tf_stats *s, const stats_options *o);
void stats_free(tf_stats *s);

/* The sink that fills s's CPU records while a file is loaded. */
load_sink stats_sink(tf_stats *s);

/* Build the GPU records from a model loaded with LOAD_KEEP_GPU_ZONES.
 * Returns 0, or -1 when out of memory. */
int stats_build_gpu(tf_stats *s, const tf_model *m);

#endif
