/* stats: recompute what upstream's statistics build derives after loading
 * (csvexport-and-fidelity.md §A.2/§A.3): one record per source-location id
 * in maps that iterate in upstream's order, with min/max/total/sumSq, self
 * times and the per-srcloc zone lists in walk order (threads in file order,
 * each timeline depth-first pre-order). */
#ifndef TC_ZONESTATS_H
#define TC_ZONESTATS_H

#include <stddef.h>
#include <stdint.h>

#include "tfmodel.h"
#include "rhorder.h"

typedef struct srcloc_stats {
    int16_t id;
    int64_t total, min, max;
    int64_t self_total, self_min, self_max;
    double sum_sq;
    uint64_t count;          /* counted zones */
    size_t list_first;       /* this srcloc's zones in the zone list */
} srcloc_stats;

typedef struct tf_stats {
    /* CPU: map id -> index in cpu[] (reserved and filled like the loader) */
    rhorder cpu_map;
    size_t cpu_count;
    srcloc_stats *cpu;
    uint32_t *cpu_list;      /* model.zones indices, grouped per srcloc */
    uint16_t *thread_number; /* per model thread: loader's compressed number */
    /* GPU: map id -> index in gpu[]; ids missing from §5.16 are appended */
    rhorder gpu_map;
    size_t gpu_count, gpu_cap;
    srcloc_stats *gpu;
    uint32_t *gpu_list;      /* model.gpu_zones indices, grouped per srcloc */
} tf_stats;

/* Build CPU and GPU statistics.  Returns 0, or -1 when out of memory. */
int stats_build(tf_stats *s, const tf_model *m);
void stats_free(tf_stats *s);

/* Sum of (end - start) of the direct children of zone i; with clamp, each
 * child contributes at least 0 (upstream's statistics) else raw (csvexport's
 * -e per-zone time). */
int64_t stats_child_time(const tf_model *m, size_t i, int clamp);

/* Index of the model thread owning zone i. */
size_t stats_zone_thread(const tf_model *m, size_t i);

#endif
