/* manifest.c - records what tracy-test-client sent and writes it as a
 * plain-text manifest (--manifest FILE) that end-to-end tests compare with
 * the capture (e.g. with tracy-csvexport output).
 *
 * Format (format 1): one fact per line, `KEY FIELD...`, fields separated by
 * one space; the LAST field of a line (a name or a text) runs to the end
 * of the line and may contain spaces. Lines starting with '#' are comments.
 * Times are server nanoseconds: T(t) = t - initBegin (timerMul is 1.0).
 * Every key below is always present (0 when a family was not sent), except
 * the per-item lines and crash_time_ns.
 *
 *   format 1
 *   scenario NAME
 *   protocol V                    protocol version the client speaks (none: it
 *                                 refuses all)
 *   refused V                     (per refused connection, in order) a version a
 *                                 server offered and got ProtocolMismatch for
 *   program NAME                  WelcomeMessage.programName
 *   pid N
 *   init_begin TICKS              WelcomeMessage.initBegin (time origin)
 *   end REASON                    terminate | server-closed | disconnect | crash |
 *                                 disconnect-mid-frame | reset | garbage-KIND |
 *                                 malformed-stream |
 *                                 not-available | drop | timeout | no-session |
 *                                 refused (--protocol none: all seven were)
 *   threads N                     thread records the server should hold: application
 *                                 threads that carried events (also those seen only
 *                                 in samples) and fibers
 *   thread TID NAME               (name as answered to ThreadString / FiberName;
 *                                 a fiber's TID is (1 << 32) | n, n = order of
 *                                 first FiberEnter)
 *   zones N                       closed zones (end > start), all sources (also
 *                                 those closed inside fibers)
 *   zones_open N                  zones begun and never ended
 *   zone COUNT TOTAL_NS FILE LINE NAME
 *                                 per source location with COUNT > 0 closed
 *                                 zones; NAME is csvexport's name column
 *                                 (srcloc name, else function); TOTAL_NS is
 *                                 csvexport's total_ns
 *   bad_input KIND                (scenario malformed only, like the next four)
 *                                 the --garbage-kind injected mid-session
 *   bad_events N                  events a capture reports as malformed (dropped,
 *                                 or kept with a repaired time)
 *   bad_zones_before N            zones begun before the bad input
 *   bad_zones_dropped N           zones a capture must drop: their static source
 *                                 location is beyond the 32766 a file holds
 *   zones_expected N              zones the saved trace holds: zones + zones_open
 *                                 + zones kept with a repaired time - dropped
 *   frames N                      default frame set marks sent (FrameMarkMsg
 *                                 with name 0; the server adds 2 of its own, 3
 *                                 on demand)
 *   frameset COUNT continuous|discontinuous NAME
 *                                 named frame sets (COUNT marks / start-end pairs)
 *   messages N
 *   message TIME_NS TEXT          every message (copied, colored, literal), sorted
 *                                 by time (times are unique)
 *   appinfo TEXT                  MessageAppInfo texts, in order
 *   plots N                       plots the trace holds: user plots, the system
 *                                 time plot and power plots (not memory plots)
 *   plot POINTS NAME              NAME "(system time)" for the SysTimeReport plot;
 *                                 a power plot (NAME = RAPL domain) has one point
 *                                 less than its reports
 *   locks N
 *   lock ID EVENTS NAME           NAME = LockName text; EVENTS = wait/obtain/release
 *   mempool ALLOCS FREES NAME     NAME "(default)" for the default pool; FREES
 *                                 includes blocks freed by MemDiscard
 *   callstacks N                  distinct call stacks, as the server interns them
 *                                 (same frames = one stack; an allocated stack
 *                                 with a native part adds both)
 *   last_event_ns T               largest event time the server takes as lastTime
 *                                 (incl. converted GPU times)
 *   welcome_flags N               WelcomeMessage.flags (1 OnDemand, 4 CodeTransfer)
 *   sampling_period N             WelcomeMessage.samplingPeriod (ns)
 *   queue_delay N                 WelcomeMessage.delay (ticks; protocols 64-74 only)
 *   on_demand_frames N            OnDemandPayload.frames (0 unless on demand)
 *   gpu_contexts N
 *   gpu_context ZONES TYPE NAME   per context: GPU zones, GpuContextType (1 OpenGL,
 *                                 2 Vulkan), GpuContextName
 *   gpu_zones N                   GPU zones (each with begin and end GpuTime)
 *   gpu_zone START_NS DURATION_NS NAME
 *                                 every GPU zone as tracy-csvexport -g prints it
 *                                 (converted GPU start, GPU duration)
 *   samples N                     samples the server stores in thread sample lists
 *                                 (CallstackSample* and CallstackSampleContextSwitch*)
 *   thread_samples TID N NAME     per thread
 *   ctx_switch_samples N          context-switch samples (also counted in samples)
 *   context_switches N            per-thread context-switch records the trace keeps:
 *                                 one per switch-in (reusing the record a wakeup of a
 *                                 sleeping thread made) and one per FiberEnter,
 *                                 saved for threads with zones or samples only
 *   context_switch TID N NAME     per such thread or fiber
 *   context_switches_external N   records of other processes' threads (held in
 *                                 memory, not saved)
 *   cpu_slices N                  per-CPU records (ContextSwitch with a new thread)
 *   wakeups N                     ThreadWakeup events
 *   cpu_topology N                CpuTopology events (logical CPUs)
 *   tid_to_pid N                  TidToPid events (sent with ExternalName answers)
 *   external_names N              ExternalName queries answered
 *   hw_samples N                  HwSample* events, all six kinds (some at time 0)
 *   sys_time N                    SysTimeReport events
 *   power_reports N               SysPowerReport events
 *   fibers N                      fibers (thread records, also in threads)
 *   fiber_zones N                 zones closed while running in a fiber
 *   group_hints N                 ThreadGroupHint events (after ThreadName answers)
 *   sections N                    sections (SectionEnter events)
 *   sections_open N               sections never left
 *   section CATEGORY ITEMS DESCRIPTION
 *                                 per category; "(none)" when its SectionSetup
 *                                 carried no string (on-demand replay)
 *   frame_images N                FrameImage events (each attaches to a frame)
 *   vsync_frames N                FrameVsync events (one id: a frame set of its own)
 *   mem_discards N                MemDiscard / MemDiscardCallstack events
 *   lock_marks N                  LockMark events
 *   alloc_callstack_frames N      distinct allocated (Lua-style) frames
 *   symbols_answered N            SymbolInformation answers (= symbols in the trace)
 *   symbol_code_answered N BYTES  SymbolCode answers and their code bytes
 *   source_files_answered N BYTES distinct source files sent and their bytes
 *   source_file BYTES NAME        each of them
 *   source_files_missing N        AckSourceCodeNotAvailable answers
 *   params N                      ParamSetup events
 *   crash N                       1 after a Crash
 *   crash_time_ns T               the CrashReport time (only after a crash)
 *   event TYPE COUNT              events sent per QueueType value (decimal) of the
 *                                 protocol spoken, compact forms counted separately
 *   query TYPE COUNT              queries received per ServerQuery value of the
 *                                 protocol spoken (TYPE "unknown" for values > 15)
 *   lz4_frames N                  LZ4 frames sent
 *   bytes_raw N                   decompressed stream bytes sent
 *   bytes_wire N                  bytes written to the socket
 *   note TEXT                     free-form remarks (e.g. answers withheld)
 */
#include "manifest.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names.h"

static const char *const counter_prefix[] = {
    [TC_CNT_PLOT] = "plot",
    [TC_CNT_FRAMESET_CONT] = "frameset",
    [TC_CNT_FRAMESET_DISCONT] = "frameset",
    [TC_CNT_LOCK] = "lock",
    [TC_CNT_MEMPOOL] = "mempool",
    [TC_CNT_GPU_CONTEXT] = "gpu_context",
    [TC_CNT_SAMPLES] = "thread_samples",
    [TC_CNT_CTX_SWITCH] = "context_switch",
    [TC_CNT_SECTION] = "section",
    [TC_CNT_SOURCE] = "source_file",
};

static void *grow(void *base, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return base;
    size_t nc = *cap ? *cap * 2 : 16;
    void *nb = realloc(base, nc * elem);
    if (!nb)
        abort();
    *cap = nc;
    return nb;
}

void manifest_init(struct tc_client *c)
{
    memset(&c->man, 0, sizeof(c->man));
    c->man.end_reason = "no-session";
}

void manifest_free(struct tc_client *c)
{
    struct tc_manifest *m = &c->man;
    for (size_t i = 0; i < m->n_counters; i++)
        free(m->counters[i].name);
    for (size_t i = 0; i < m->n_messages; i++)
        free(m->messages[i].text);
    for (size_t i = 0; i < m->n_appinfo; i++)
        free(m->appinfo[i]);
    free(m->counters);
    free(m->messages);
    free(m->appinfo);
    free(m->callstacks);
    free(m->alloc_frames);
    free(m->gpu_zones);
}

/* Put h in the open-addressing table set (cap slots, a power of two, 0 =
 * empty); false if it was there. */
static bool hash_set_place(uint64_t *set, size_t cap, uint64_t h)
{
    for (size_t i = (size_t)((h ^ h >> 32) * 0x9E3779B97F4A7C15ull) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (set[i] == h)
            return false;
        if (!set[i]) {
            set[i] = h;
            return true;
        }
    }
}

/* Add a content hash to a set of *n of them in a table of *cap slots
 * (tens of thousands of call stacks in a flood); a hash of 0 is kept as 1
 * (0 marks an empty slot). */
static void hash_set_add(uint64_t **set, size_t *n, size_t *cap, uint64_t h)
{
    if (!h)
        h = 1;
    if ((*n + 1) * 2 > *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        uint64_t *ns = calloc(nc, sizeof(*ns));
        if (!ns)
            abort();
        for (size_t i = 0; i < *cap; i++)
            if ((*set)[i])
                hash_set_place(ns, nc, (*set)[i]);
        free(*set);
        *set = ns;
        *cap = nc;
    }
    if (hash_set_place(*set, *cap, h))
        (*n)++;
}

void manifest_callstack(struct tc_client *c, uint64_t hash)
{
    hash_set_add(&c->man.callstacks, &c->man.n_callstacks, &c->man.cap_callstacks, hash);
}

void manifest_alloc_frame(struct tc_client *c, uint64_t hash)
{
    hash_set_add(&c->man.alloc_frames, &c->man.n_alloc_frames, &c->man.cap_alloc_frames, hash);
    c->man.facts.alloc_callstack_frames = c->man.n_alloc_frames;
}

void manifest_source_file(struct tc_client *c, const char *file, size_t bytes)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = file; *p; p++)
        h = (h ^ (uint8_t)*p) * 1099511628211ull;
    struct tc_named_counter *e = manifest_counter(c, TC_CNT_SOURCE, h, file);
    e->count = bytes;
    e->count2++;
}

void manifest_gpu_zone(struct tc_client *c, int64_t start_ns, int64_t duration_ns,
                       const char *name)
{
    struct tc_manifest *m = &c->man;
    m->gpu_zones = grow(m->gpu_zones, &m->cap_gpu_zones, m->n_gpu_zones, sizeof(*m->gpu_zones));
    m->gpu_zones[m->n_gpu_zones++] = (struct tc_gpu_zone_rec){ start_ns, duration_ns, name };
    m->facts.gpu_zones++;
    manifest_time_ns(c, start_ns + duration_ns);
}

struct tc_named_counter *manifest_counter(struct tc_client *c, enum tc_counter_kind kind,
                                          uint64_t key, const char *name)
{
    struct tc_manifest *m = &c->man;
    for (size_t i = 0; i < m->n_counters; i++)
        if (m->counters[i].kind == (int)kind && m->counters[i].key == key)
            return &m->counters[i];
    m->counters = grow(m->counters, &m->cap_counters, m->n_counters, sizeof(*m->counters));
    struct tc_named_counter *e = &m->counters[m->n_counters++];
    memset(e, 0, sizeof(*e));
    e->kind = (int)kind;
    e->key = key;
    e->name = tc_strdup(name);
    return e;
}

int64_t manifest_ns(const struct tc_client *c, int64_t t)
{
    return t - c->init_begin;
}

void manifest_time(struct tc_client *c, int64_t t)
{
    manifest_time_ns(c, manifest_ns(c, t));
}

void manifest_time_ns(struct tc_client *c, int64_t ns)
{
    if (ns > c->man.last_ns)
        c->man.last_ns = ns;
}

bool manifest_message_time_taken(const struct tc_client *c, int64_t t)
{
    int64_t ns = manifest_ns(c, t);
    for (size_t i = 0; i < c->man.n_messages; i++)
        if (c->man.messages[i].time_ns == ns)
            return true;
    return false;
}

void manifest_message(struct tc_client *c, int64_t t, const char *text)
{
    struct tc_manifest *m = &c->man;
    m->messages = grow(m->messages, &m->cap_messages, m->n_messages, sizeof(*m->messages));
    struct tc_message_entry *e = &m->messages[m->n_messages];
    e->time_ns = manifest_ns(c, t);
    e->seq = m->n_messages++;
    e->text = tc_strdup(text);
    manifest_time(c, t);
}

void manifest_appinfo(struct tc_client *c, const char *text)
{
    struct tc_manifest *m = &c->man;
    m->appinfo = grow(m->appinfo, &m->cap_appinfo, m->n_appinfo, sizeof(*m->appinfo));
    m->appinfo[m->n_appinfo++] = tc_strdup(text);
}

static int message_order(const void *a, const void *b)
{
    const struct tc_message_entry *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

static void write_threads(FILE *f, const struct tc_client *c)
{
    size_t used = 0;
    for (size_t i = 0; i < c->names.n_threads; i++)
        used += c->names.threads[i].used;
    fprintf(f, "threads %zu\n", used);
    for (size_t i = 0; i < c->names.n_threads; i++)
        if (c->names.threads[i].used)
            fprintf(f, "thread %llu %s\n", (unsigned long long)c->names.threads[i].tid,
                    c->names.threads[i].name);
}

uint64_t manifest_zones_sent(const struct tc_client *c)
{
    uint64_t n = 0;
    for (size_t i = 0; i < c->names.n_srclocs; i++)
        n += c->names.srclocs[i].zones + c->names.srclocs[i].open;
    return n;
}

static void write_bad_input(FILE *f, const struct tc_client *c)
{
    const struct tc_bad_input *b = &c->man.bad;
    if (!b->kind)
        return;
    fprintf(f, "bad_input %s\nbad_events %llu\nbad_zones_before %llu\nbad_zones_dropped %llu\n"
               "zones_expected %llu\n",
            b->kind, (unsigned long long)b->events, (unsigned long long)b->zones_before,
            (unsigned long long)b->zones_dropped,
            (unsigned long long)(manifest_zones_sent(c) + b->zones_repaired + b->zones_unlisted -
                                  b->zones_dropped));
}

static void write_zones(FILE *f, const struct tc_client *c)
{
    uint64_t closed = 0, open = 0;
    for (size_t i = 0; i < c->names.n_srclocs; i++) {
        closed += c->names.srclocs[i].zones;
        open += c->names.srclocs[i].open;
    }
    fprintf(f, "zones %llu\nzones_open %llu\n", (unsigned long long)closed,
            (unsigned long long)open);
    for (size_t i = 0; i < c->names.n_srclocs; i++) {
        const struct tc_srcloc_entry *s = &c->names.srclocs[i];
        if (s->zones == 0)
            continue;
        fprintf(f, "zone %llu %lld %s %u %s\n", (unsigned long long)s->zones,
                (long long)s->total_ns, s->file, s->line, s->name ? s->name : s->function);
    }
}

static size_t count_kind(const struct tc_manifest *m, enum tc_counter_kind a,
                         enum tc_counter_kind b)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_counters; i++)
        n += m->counters[i].kind == (int)a || m->counters[i].kind == (int)b;
    return n;
}

static void write_counters(FILE *f, const struct tc_manifest *m, enum tc_counter_kind kind)
{
    for (size_t i = 0; i < m->n_counters; i++) {
        const struct tc_named_counter *e = &m->counters[i];
        if (e->kind != (int)kind)
            continue;
        const char *prefix = counter_prefix[e->kind];
        switch ((enum tc_counter_kind)e->kind) {
        case TC_CNT_FRAMESET_CONT:
        case TC_CNT_FRAMESET_DISCONT:
            fprintf(f, "%s %llu %s %s\n", prefix, (unsigned long long)e->count,
                    e->kind == TC_CNT_FRAMESET_CONT ? "continuous" : "discontinuous", e->name);
            break;
        case TC_CNT_LOCK:
            fprintf(f, "%s %llu %llu %s\n", prefix, (unsigned long long)e->key,
                    (unsigned long long)e->count, e->name);
            break;
        case TC_CNT_MEMPOOL:
            fprintf(f, "%s %llu %llu %s\n", prefix, (unsigned long long)e->count,
                    (unsigned long long)e->count2, e->name);
            break;
        case TC_CNT_PLOT:
        case TC_CNT_SOURCE:
            fprintf(f, "%s %llu %s\n", prefix, (unsigned long long)e->count, e->name);
            break;
        case TC_CNT_SAMPLES:
        case TC_CNT_CTX_SWITCH:
            fprintf(f, "%s %llu %llu %s\n", prefix, (unsigned long long)e->key,
                    (unsigned long long)e->count, e->name);
            break;
        case TC_CNT_GPU_CONTEXT:
            fprintf(f, "%s %llu %llu %s\n", prefix, (unsigned long long)e->count,
                    (unsigned long long)e->count2, e->name);
            break;
        case TC_CNT_SECTION:
            fprintf(f, "%s %llu %llu %s\n", prefix, (unsigned long long)e->key,
                    (unsigned long long)e->count, e->name);
            break;
        case TC_CNT_KINDS:
            break;
        }
    }
}

static void write_messages(FILE *f, struct tc_manifest *m)
{
    if (m->n_messages > 1)
        qsort(m->messages, m->n_messages, sizeof(*m->messages), message_order);
    fprintf(f, "messages %zu\n", m->n_messages);
    for (size_t i = 0; i < m->n_messages; i++)
        fprintf(f, "message %lld %s\n", (long long)m->messages[i].time_ns, m->messages[i].text);
    for (size_t i = 0; i < m->n_appinfo; i++)
        fprintf(f, "appinfo %s\n", m->appinfo[i]);
}

static void write_count(FILE *f, const char *key, uint64_t n)
{
    fprintf(f, "%s %llu\n", key, (unsigned long long)n);
}

static void write_welcome(FILE *f, const struct tc_client *c)
{
    write_count(f, "welcome_flags", c->welcome.flags);
    fprintf(f, "sampling_period %lld\n", (long long)c->welcome.sampling_period);
    if (c->opt.protocol != TC_PROTOCOL_NONE && proto_feature(&c->proto, TC_FEAT_WELCOME_DELAY))
        write_count(f, "queue_delay", c->welcome.queue_delay);
    write_count(f, "on_demand_frames", c->welcome.ondemand_frames);
}

static void write_gpu(FILE *f, const struct tc_manifest *m)
{
    write_count(f, "gpu_contexts", count_kind(m, TC_CNT_GPU_CONTEXT, TC_CNT_GPU_CONTEXT));
    write_counters(f, m, TC_CNT_GPU_CONTEXT);
    write_count(f, "gpu_zones", m->facts.gpu_zones);
    for (size_t i = 0; i < m->n_gpu_zones; i++)
        fprintf(f, "gpu_zone %lld %lld %s\n", (long long)m->gpu_zones[i].start_ns,
                (long long)m->gpu_zones[i].duration_ns, m->gpu_zones[i].name);
}

/* Records of this program's threads and fibers, which the trace keeps,
 * apart from other processes' threads, which it drops. */
static void write_context_switches(FILE *f, const struct tc_client *c)
{
    const struct tc_manifest *m = &c->man;
    uint64_t kept = 0, external = 0;
    for (size_t i = 0; i < m->n_counters; i++) {
        const struct tc_named_counter *e = &m->counters[i];
        if (e->kind != TC_CNT_CTX_SWITCH)
            continue;
        const struct tc_thread_entry *t = names_find_thread_entry(c, e->key);
        *(t && t->external ? &external : &kept) += e->count;
    }
    write_count(f, "context_switches", kept);
    for (size_t i = 0; i < m->n_counters; i++) {
        const struct tc_named_counter *e = &m->counters[i];
        const struct tc_thread_entry *t = names_find_thread_entry(c, e->key);
        if (e->kind == TC_CNT_CTX_SWITCH && !(t && t->external))
            fprintf(f, "context_switch %llu %llu %s\n", (unsigned long long)e->key,
                    (unsigned long long)e->count, e->name);
    }
    write_count(f, "context_switches_external", external);
}

static void write_sources(FILE *f, const struct tc_manifest *m)
{
    uint64_t files = 0, bytes = 0;
    for (size_t i = 0; i < m->n_counters; i++)
        if (m->counters[i].kind == TC_CNT_SOURCE) {
            files++;
            bytes += m->counters[i].count;
        }
    fprintf(f, "source_files_answered %llu %llu\n", (unsigned long long)files,
            (unsigned long long)bytes);
    write_counters(f, m, TC_CNT_SOURCE);
    write_count(f, "source_files_missing", m->facts.source_files_missing);
}

/* Sampling, scheduling and the other system-tracing families. */
static void write_system(FILE *f, const struct tc_client *c)
{
    const struct tc_manifest *m = &c->man;
    const struct tc_facts *x = &m->facts;
    write_count(f, "samples", x->samples);
    write_counters(f, m, TC_CNT_SAMPLES);
    write_count(f, "ctx_switch_samples", x->ctx_switch_samples);
    write_context_switches(f, c);
    write_count(f, "cpu_slices", x->cpu_slices);
    write_count(f, "wakeups", x->wakeups);
    write_count(f, "cpu_topology", x->cpu_topology);
    write_count(f, "tid_to_pid", x->tid_to_pid);
    write_count(f, "external_names", x->external_names);
    write_count(f, "hw_samples", x->hw_samples);
    write_count(f, "sys_time", x->sys_time);
    write_count(f, "power_reports", x->power_reports);
}

static void write_more(FILE *f, const struct tc_manifest *m)
{
    const struct tc_facts *x = &m->facts;
    write_count(f, "fibers", x->fibers);
    write_count(f, "fiber_zones", x->fiber_zones);
    write_count(f, "group_hints", x->group_hints);
    write_count(f, "sections", x->sections);
    write_count(f, "sections_open", x->sections_open);
    write_counters(f, m, TC_CNT_SECTION);
    write_count(f, "frame_images", x->frame_images);
    write_count(f, "vsync_frames", x->vsync_frames);
    write_count(f, "mem_discards", x->mem_discards);
    write_count(f, "lock_marks", x->lock_marks);
    write_count(f, "alloc_callstack_frames", x->alloc_callstack_frames);
    write_count(f, "symbols_answered", x->symbols_answered);
    fprintf(f, "symbol_code_answered %llu %llu\n", (unsigned long long)x->symbol_code_answered,
            (unsigned long long)x->symbol_code_bytes);
    write_sources(f, m);
    write_count(f, "params", x->params);
    write_count(f, "crash", x->crash);
    if (x->crash)
        fprintf(f, "crash_time_ns %lld\n", (long long)x->crash_time_ns);
}

static void write_traffic(FILE *f, const struct tc_client *c)
{
    for (int t = 0; t < 256; t++)
        if (c->ev.sent[t])
            fprintf(f, "event %d %llu\n", t, (unsigned long long)c->ev.sent[t]);
    for (int q = 0; q <= TC_SQ_COUNT; q++) {
        if (!c->wire.queries[q])
            continue;
        if (q == TC_SQ_COUNT)
            fprintf(f, "query unknown %llu\n", (unsigned long long)c->wire.queries[q]);
        else
            fprintf(f, "query %d %llu\n", q, (unsigned long long)c->wire.queries[q]);
    }
    fprintf(f, "lz4_frames %llu\nbytes_raw %llu\nbytes_wire %llu\n",
            (unsigned long long)c->wire.frames, (unsigned long long)c->wire.raw_bytes,
            (unsigned long long)c->wire.wire_bytes);
}

bool manifest_write(struct tc_client *c, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    struct tc_manifest *m = &c->man;
    fprintf(f, "# tracy-test-client manifest; format described in tests/client/manifest.c\n");
    fprintf(f, "format 1\nscenario %s\n", c->opt.scenario_name);
    if (c->opt.protocol == TC_PROTOCOL_NONE)
        fprintf(f, "protocol none\n");
    else
        fprintf(f, "protocol %u\n", c->opt.protocol);
    for (size_t i = 0; i < c->n_refused; i++)
        fprintf(f, "refused %u\n", c->refused[i]);
    fprintf(f, "program tracy-test-client\n");
    fprintf(f, "pid %ld\ninit_begin %lld\nend %s\n", (long)getpid(), (long long)c->init_begin,
            m->end_reason);
    write_threads(f, c);
    write_zones(f, c);
    write_bad_input(f, c);
    fprintf(f, "frames %llu\n", (unsigned long long)m->default_frames);
    write_messages(f, m);
    fprintf(f, "plots %zu\nlocks %zu\n", count_kind(m, TC_CNT_PLOT, TC_CNT_PLOT),
            count_kind(m, TC_CNT_LOCK, TC_CNT_LOCK));
    for (int kind = TC_CNT_PLOT; kind <= TC_CNT_MEMPOOL; kind++)
        write_counters(f, m, (enum tc_counter_kind)kind);
    fprintf(f, "callstacks %zu\nlast_event_ns %lld\n", m->n_callstacks, (long long)m->last_ns);
    write_welcome(f, c);
    write_gpu(f, m);
    write_system(f, c);
    write_more(f, m);
    write_traffic(f, c);
    if (m->note)
        fprintf(f, "note %s\n", m->note);
    return fclose(f) == 0;
}
