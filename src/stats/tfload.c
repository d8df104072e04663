/* tfload: .tracy payload parser.  One function per section (tracy-file-0.14.md
 * §5.1..§5.36), called in file order by load_model().  Files of older
 * versions (0.9.0 up; tracy-file-older.md) are read the way the v0.14.0
 * loader reads them: the fields a version lacks take that loader's
 * defaults, and the lists it re-sorts are re-sorted.  Reads use a sticky
 * failure flag: after the first error every read returns zeros and the
 * section functions stop at their next loop check, so the first error
 * (with section name and payload offset) is the one reported. */
#include "tfload.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the reader assumes a little-endian host"
#endif

typedef struct loader {
    tfread *r;
    tf_model *m;
    unsigned keep;            /* LOAD_KEEP_* */
    const load_sink *sink;    /* NULL: none */
    uint64_t last_thread;     /* the loader's one-entry thread cache (B.1) */
    uint32_t ver;             /* file version, FILE_VER(major, minor, patch) */
    int section;              /* number as in §2.2, 0 = payload header */
    const char *section_name;
    int failed;
    char *err;
    size_t errsz;
} loader;

/* A file version as the loader compares it. */
#define FILE_VER(major, minor, patch) ((uint32_t)(major) << 16 | (uint32_t)(minor) << 8 | (uint32_t)(patch))

/* The oldest and newest versions v0.14.0's loader accepts. */
#define VER_OLDEST FILE_VER(0, 9, 0)
#define VER_NEWEST FILE_VER(0, 14, 0)

/* The versions where a layout change took effect (older files lack it). */
#define VER_ON_DEMAND FILE_VER(0, 9, 2)       /* capture info: on-demand byte */
#define VER_GROUP_HINT FILE_VER(0, 11, 1)     /* thread: i32 groupHint */
#define VER_DIES FILE_VER(0, 11, 2)           /* topology: die level */
#define VER_WAKEUP_CPU FILE_VER(0, 11, 3)     /* context switch: u8 wakeupCpu */
#define VER_NO_DELAY FILE_VER(0, 12, 3)       /* header: no i64 delay after it */
#define VER_GPU_NOTES FILE_VER(0, 12, 4)      /* GPU: note names, query ids, notes */
#define VER_MSG_META FILE_VER(0, 13, 2)       /* message: source, severity */
#define VER_SORTED_PLOTS FILE_VER(0, 13, 3)   /* plots written sorted */
#define VER_FLAT_SECTIONS FILE_VER(0, 13, 4)  /* sections: one flat list (this version only) */
#define VER_SECTIONS FILE_VER(0, 13, 5)       /* sections: by category, with descriptions */
#define VER_SORTED_CTX FILE_VER(0, 13, 6)     /* context-switch samples written sorted */

/* What the loader gives a message of a file without source/severity:
 * MessageSourceType::User, MessageSeverity::Info. */
enum { MSG_SOURCE_USER = 0, MSG_SEVERITY_INFO = 2 };

/* ---- errors and primitive reads ---------------------------------------- */

static int fail(loader *L, const char *fmt, ...)
{
    if (L->failed)
        return -1;
    L->failed = 1;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(L->err, L->errsz, "section %d (%s): payload offset %" PRIu64 ": %s", L->section,
             L->section_name, tfread_offset(L->r), msg);
    return -1;
}

static int rd(loader *L, void *dst, size_t n)
{
    if (L->failed) {
        if (dst)
            memset(dst, 0, n);
        return -1;
    }
    if (tfread_read(L->r, dst, n) != 0) {
        if (dst)
            memset(dst, 0, n);
        return fail(L, "%s", tfread_error(L->r));
    }
    return 0;
}

#define DEFINE_READER(name, type)          \
    static type name(loader *L)            \
    {                                      \
        type v;                            \
        rd(L, &v, sizeof v);               \
        return v;                          \
    }
DEFINE_READER(rd_u8, uint8_t)
DEFINE_READER(rd_i8, int8_t)
DEFINE_READER(rd_u16, uint16_t)
DEFINE_READER(rd_i16, int16_t)
DEFINE_READER(rd_u32, uint32_t)
DEFINE_READER(rd_i32, int32_t)
DEFINE_READER(rd_u64, uint64_t)
DEFINE_READER(rd_i64, int64_t)
DEFINE_READER(rd_f32, float)
DEFINE_READER(rd_f64, double)
#undef DEFINE_READER

/* Int24 / StringIdx: 3 bytes little endian. */
static uint32_t rd_u24(loader *L)
{
    uint8_t b[3];
    rd(L, b, 3);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16;
}

/* Int48: 6 bytes, signed. */
static int64_t rd_i48(loader *L)
{
    uint8_t b[8] = { 0 };
    rd(L, b, 6);
    uint64_t v = 0;
    memcpy(&v, b, 8);
    return (int64_t)(v << 16) >> 16;
}

static tf_strref rd_strref(loader *L)
{
    tf_strref s;
    s.value = rd_u64(L);
    s.flags = rd_u8(L);
    return s;
}

static tf_srcloc rd_srcloc(loader *L)
{
    tf_srcloc s;
    s.name = rd_strref(L);
    s.function = rd_strref(L);
    s.file = rd_strref(L);
    s.line = rd_u32(L);
    s.color = rd_u32(L);
    return s;
}

/* Delta-coded time: ref += delta, value = ref (§4). */
static int64_t rd_time(loader *L, int64_t *ref)
{
    *ref = (int64_t)((uint64_t)*ref + (uint64_t)rd_i64(L));
    return *ref;
}

/* ---- allocation helpers ------------------------------------------------ */

/* Reject counts that cannot fit in what is left of the payload. */
static int check_count(loader *L, uint64_t n, size_t min_bytes, const char *what)
{
    if (L->failed)
        return -1;
    if (min_bytes != 0 && n > tfread_remaining_bound(L->r) / min_bytes)
        return fail(L, "%s count %" PRIu64 " exceeds the remaining payload", what, n);
    return 0;
}

/* calloc for n elements whose on-disk size is at least min_bytes each. */
static void *alloc_array(loader *L, uint64_t n, size_t elem, size_t min_bytes, const char *what)
{
    if (check_count(L, n, min_bytes, what) != 0)
        return NULL;
    void *p = calloc(n ? (size_t)n : 1, elem);
    if (!p)
        fail(L, "out of memory for %" PRIu64 " %s", n, what);
    return p;
}

/* Whether the model keeps the lists of kind `what` (LOAD_KEEP_*). */
static int kept(const loader *L, unsigned what)
{
    return (L->keep & what) != 0;
}

/* An array for the n elements of a list of kind `what`: all of them if
 * the model keeps that kind, else room for one that each element in turn
 * is read into and dropped (write element i at a[list_at(L, what, i)]). */
static void *list_array(loader *L, unsigned what, uint64_t n, size_t elem, size_t min_bytes, const char *name)
{
    if (kept(L, what))
        return alloc_array(L, n, elem, min_bytes, name);
    if (check_count(L, n, min_bytes, name) != 0)
        return NULL;
    void *p = calloc(1, elem);
    if (!p)
        fail(L, "out of memory");
    return p;
}

static size_t list_at(const loader *L, unsigned what, uint64_t i)
{
    return kept(L, what) ? (size_t)i : 0;
}

/* The count a model records of a list of kind `what` read with n elements. */
static size_t list_count(const loader *L, unsigned what, uint64_t n)
{
    return kept(L, what) ? (size_t)n : 0;
}

/* Make room for `need` elements in a growable array. */
static int grow_array(loader *L, void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*arr, ncap * elem);
    if (!p)
        return fail(L, "out of memory");
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Older writers could leave some lists out of time order, which the
 * loader sorts by time. Stable (a merge sort): upstream's sort leaves the
 * order of equal times open, which nothing this reader prints depends on. */
static void sort_by_time(loader *L, void *base, size_t n, size_t size, int (*before)(const void *, const void *))
{
    if (n < 2 || L->failed)
        return;
    char *a = base, *tmp = malloc(n * size);
    if (!tmp) {
        fail(L, "out of memory sorting %zu entries", n);
        return;
    }
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo + w < n; lo += 2 * w) {
            size_t mid = lo + w, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = 0;
            while (i < mid && j < hi) {
                const char *from = before(a + j * size, a + i * size) ? a + j++ * size : a + i++ * size;
                memcpy(tmp + k++ * size, from, size);
            }
            memcpy(tmp + k * size, a + i * size, (mid - i) * size);
            k += mid - i;
            memcpy(tmp + k * size, a + j * size, (hi - j) * size);
            k += hi - j;
            memcpy(a + lo * size, tmp, k * size);
        }
    }
    free(tmp);
}

/* Read a u64-length-prefixed string into a fresh NUL-terminated buffer. */
static char *rd_len_string(loader *L, uint64_t *len_out, const char *what)
{
    uint64_t len = rd_u64(L);
    *len_out = len;
    if (check_count(L, len, 1, what) != 0)
        return NULL;
    char *s = alloc_array(L, len + 1, 1, 0, what);
    if (!s)
        return NULL;
    rd(L, s, (size_t)len);
    return s;
}

/* Append bytes to the string pool; returns the offset (NUL appended). */
static size_t pool_append(loader *L, uint64_t len)
{
    tf_model *m = L->m;
    if (check_count(L, len, 1, "string length") != 0)
        return 0;
    if (grow_array(L, (void **)&m->str_pool, &m->str_pool_cap, m->str_pool_len + (size_t)len + 1, 1) != 0)
        return 0;
    size_t off = m->str_pool_len;
    rd(L, m->str_pool + off, (size_t)len);
    m->str_pool[off + len] = '\0';
    m->str_pool_len += (size_t)len + 1;
    return off;
}

static uint64_t *rd_u64_array(loader *L, size_t *count, const char *what)
{
    uint64_t n = rd_u64(L);
    uint64_t *a = alloc_array(L, n, sizeof *a, 8, what);
    if (!a)
        return NULL;
    rd(L, a, (size_t)n * 8);
    *count = (size_t)n;
    return a;
}

static tf_u64pair *rd_pair_array(loader *L, size_t *count, const char *what)
{
    uint64_t n = rd_u64(L);
    tf_u64pair *a = alloc_array(L, n, sizeof *a, 16, what);
    if (!a)
        return NULL;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        a[i].a = rd_u64(L);
        a[i].b = rd_u64(L);
    }
    *count = (size_t)n;
    return a;
}

/* ---- sections ---------------------------------------------------------- */

static int load_payload_header(loader *L)
{
    char magic[5];
    rd(L, magic, 5);
    uint8_t v[3];
    rd(L, v, 3);
    if (L->failed)
        return -1;
    if (memcmp(magic, "tracy", 5) != 0)
        return fail(L, "payload does not start with \"tracy\" (legacy 0.2.0 format?)");
    memcpy(L->m->version, v, 3);
    L->ver = FILE_VER(v[0], v[1], v[2]);
    if (L->ver > VER_NEWEST)
        return fail(L, "unsupported file version %u.%u.%u (newer than 0.14.0)", v[0], v[1], v[2]);
    if (L->ver < VER_OLDEST)
        return fail(L, "unsupported file version %u.%u.%u (legacy: older than 0.9.0)", v[0], v[1], v[2]);
    L->m->has_delay = L->ver < VER_NO_DELAY;
    if (L->m->has_delay)
        L->m->delay = rd_i64(L);
    return L->failed ? -1 : 0;
}

static int load_capture_info(loader *L)
{
    tf_model *m = L->m;
    m->resolution = rd_i64(L);
    m->timer_mul = rd_f64(L);
    m->last_time = rd_i64(L);
    m->frame_offset = rd_u64(L);
    m->pid = rd_u64(L);
    m->sampling_period = rd_i64(L);
    m->cpu_arch = rd_u8(L);
    m->cpu_id = rd_u32(L);
    rd(L, m->cpu_manufacturer, 12);
    m->cpu_manufacturer[12] = '\0';
    m->on_demand = L->ver >= VER_ON_DEMAND ? rd_u8(L) : m->frame_offset != 0;
    m->capture_name = rd_len_string(L, &m->capture_name_len, "capture name");
    m->capture_program = rd_len_string(L, &m->capture_program_len, "capture program");
    m->capture_time = rd_u64(L);
    m->executable_time = rd_u64(L);
    m->host_info = rd_len_string(L, &m->host_info_len, "host info");
    return L->failed ? -1 : 0;
}

static int add_topology_thread(loader *L, uint32_t pkg, uint32_t die, uint32_t core, size_t *cap)
{
    tf_model *m = L->m;
    if (grow_array(L, (void **)&m->topo, cap, m->topo_count + 1, sizeof *m->topo) != 0)
        return -1;
    tf_topo_thread *t = &m->topo[m->topo_count++];
    t->package = pkg;
    t->die = die;
    t->core = core;
    t->thread = rd_u32(L);
    return L->failed ? -1 : 0;
}

static int load_cpu_topology(loader *L)
{
    size_t cap = 0;
    uint64_t npkg = rd_u64(L);
    if (check_count(L, npkg, 12, "package") != 0)
        return -1;
    L->m->topo_packages = (size_t)npkg;
    const int dies = L->ver >= VER_DIES;
    for (uint64_t p = 0; p < npkg && !L->failed; p++) {
        uint32_t pkg = rd_u32(L);
        /* without the die level, a package is one die 0 of all its cores */
        uint64_t ndie = dies ? rd_u64(L) : 1;
        for (uint64_t d = 0; d < ndie && !L->failed; d++) {
            uint32_t die = dies ? rd_u32(L) : 0;
            uint64_t ncore = rd_u64(L);
            for (uint64_t c = 0; c < ncore && !L->failed; c++) {
                uint32_t core = rd_u32(L);
                uint64_t nthr = rd_u64(L);
                for (uint64_t t = 0; t < nthr && !L->failed; t++)
                    add_topology_thread(L, pkg, die, core, &cap);
            }
        }
    }
    return L->failed ? -1 : 0;
}

static int load_crash_event(loader *L)
{
    tf_crash *c = &L->m->crash;
    c->thread = rd_u64(L);
    c->time = rd_i64(L);
    c->message = rd_u64(L);
    c->callstack = rd_u32(L);
    return L->failed ? -1 : 0;
}

static int load_frame_set(loader *L, tf_frameset *fs)
{
    fs->name = rd_u64(L);
    fs->continuous = rd_u8(L);
    uint64_t n = rd_u64(L);
    fs->frames = list_array(L, LOAD_KEEP_EVENTS, n, sizeof *fs->frames, fs->continuous ? 12 : 20, "frame");
    if (!fs->frames)
        return -1;
    fs->count = list_count(L, LOAD_KEEP_EVENTS, n);
    int64_t ref = 0;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_frame *f = &fs->frames[list_at(L, LOAD_KEEP_EVENTS, i)];
        f->start = rd_time(L, &ref);
        f->end = fs->continuous ? -1 : rd_time(L, &ref);
        f->image = rd_i32(L);
    }
    return L->failed ? -1 : 0;
}

static int load_frame_sets(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->framesets = alloc_array(L, n, sizeof *m->framesets, 17, "frame set");
    if (!m->framesets)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        m->frameset_count = (size_t)i + 1;
        load_frame_set(L, &m->framesets[i]);
    }
    return L->failed ? -1 : 0;
}

/* 0.13.4's sections: one flat list, read as category 0 with an empty
 * description, as the loader does. */
static int load_flat_sections(loader *L)
{
    tf_model *m = L->m;
    uint64_t items = rd_u64(L);
    m->sections = alloc_array(L, 1, sizeof *m->sections, 0, "section category");
    m->section_descs = alloc_array(L, 1, sizeof *m->section_descs, 0, "section description");
    if (!m->sections || !m->section_descs)
        return -1;
    tf_section_cat *c = &m->sections[0];
    m->section_count = 1;
    m->section_desc_count = 1;
    c->items = alloc_array(L, items, sizeof *c->items, 15, "section item");
    if (!c->items)
        return -1;
    c->count = (size_t)items;
    for (uint64_t j = 0; j < items && !L->failed; j++) {
        c->items[j].start = rd_i48(L);
        c->items[j].end = rd_i48(L);
        c->items[j].text_sidx = rd_u24(L);
    }
    return L->failed ? -1 : 0;
}

static int load_sections(loader *L)
{
    tf_model *m = L->m;
    if (L->ver < VER_SECTIONS)
        return L->ver == VER_FLAT_SECTIONS ? load_flat_sections(L) : 0;   /* older: no block */
    uint64_t n = rd_u64(L);
    m->sections = alloc_array(L, n, sizeof *m->sections, 10, "section category");
    if (!m->sections)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_section_cat *c = &m->sections[i];
        m->section_count = (size_t)i + 1;
        c->category = rd_u16(L);
        uint64_t items = rd_u64(L);
        c->items = alloc_array(L, items, sizeof *c->items, 15, "section item");
        if (!c->items)
            return -1;
        c->count = (size_t)items;
        for (uint64_t j = 0; j < items && !L->failed; j++) {
            c->items[j].start = rd_i48(L);
            c->items[j].end = rd_i48(L);
            c->items[j].text_sidx = rd_u24(L);
        }
    }
    uint64_t nd = rd_u64(L);
    m->section_descs = alloc_array(L, nd, sizeof *m->section_descs, 5, "section description");
    if (!m->section_descs)
        return -1;
    m->section_desc_count = (size_t)nd;
    for (uint64_t i = 0; i < nd && !L->failed; i++) {
        m->section_descs[i].category = rd_u16(L);
        m->section_descs[i].text_sidx = rd_u24(L);
    }
    return L->failed ? -1 : 0;
}

static int load_string_data(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->strings = alloc_array(L, n, sizeof *m->strings, 16, "string");
    if (!m->strings)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_string *s = &m->strings[i];
        s->id = rd_u64(L);
        s->len = rd_u64(L);
        s->off = pool_append(L, s->len);
        if (!L->failed)
            m->string_count = (size_t)i + 1;
    }
    return L->failed ? -1 : 0;
}

static int load_pointer_map(loader *L)
{
    L->m->ptr_map = rd_pair_array(L, &L->m->ptr_map_count, "pointer map entry");
    return L->failed ? -1 : 0;
}

static int load_thread_names(loader *L)
{
    L->m->thread_names = rd_pair_array(L, &L->m->thread_name_count, "thread name");
    return L->failed ? -1 : 0;
}

static int load_external_names(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->ext_names = alloc_array(L, n, sizeof *m->ext_names, 24, "external name");
    if (!m->ext_names)
        return -1;
    m->ext_name_count = (size_t)n;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        m->ext_names[i].thread = rd_u64(L);
        m->ext_names[i].process_str = rd_u64(L);
        m->ext_names[i].name_str = rd_u64(L);
    }
    return L->failed ? -1 : 0;
}

/* The loader's thread table starts as §5.10 (the first of equal ids
 * gives the number); §5.20 threads missing from it are appended
 * (add_loader_thread). */
static int load_local_threads(loader *L)
{
    tf_model *m = L->m;
    m->local_threads = rd_u64_array(L, &m->local_thread_count, "local thread");
    if (L->failed)
        return -1;
    if (grow_array(L, (void **)&m->loader_threads, &m->loader_thread_cap, m->local_thread_count + 1,
                   sizeof *m->loader_threads) != 0)
        return -1;
    for (size_t i = 0; i < m->local_thread_count; i++) {
        m->loader_threads[m->loader_thread_count++] = m->local_threads[i];
        if (rhorder_insert(&m->loader_thread_index, m->local_threads[i], i) < 0)
            return fail(L, "out of memory");
    }
    L->last_thread = UINT64_MAX;
    return 0;
}

static int load_external_threads(loader *L)
{
    L->m->ext_threads = rd_u64_array(L, &L->m->ext_thread_count, "external thread");
    return L->failed ? -1 : 0;
}

static int load_static_srclocs(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    if (!L->failed && n > INT16_MAX)
        return fail(L, "too many static source locations (%" PRIu64 ")", n);
    m->static_srclocs = alloc_array(L, n, sizeof *m->static_srclocs, 43, "static source location");
    if (!m->static_srclocs)
        return -1;
    m->static_srcloc_count = (size_t)n;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        m->static_srclocs[i].addr = rd_u64(L);
        m->static_srclocs[i].loc = rd_srcloc(L);
    }
    return L->failed ? -1 : 0;
}

static int load_srcloc_expand(loader *L)
{
    L->m->expand = rd_u64_array(L, &L->m->expand_count, "expand table entry");
    return L->failed ? -1 : 0;
}

static int load_payload_srclocs(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    if (!L->failed && n > INT16_MAX)
        return fail(L, "too many dynamic source locations (%" PRIu64 ")", n);
    m->payload_srclocs = alloc_array(L, n, sizeof *m->payload_srclocs, 35, "payload source location");
    if (!m->payload_srclocs)
        return -1;
    m->payload_srcloc_count = (size_t)n;
    for (uint64_t i = 0; i < n && !L->failed; i++)
        m->payload_srclocs[i] = rd_srcloc(L);
    return L->failed ? -1 : 0;
}

static tf_zone_count *rd_zone_counts(loader *L, size_t *count)
{
    uint64_t n = rd_u64(L);
    tf_zone_count *a = alloc_array(L, n, sizeof *a, 10, "zone count entry");
    if (!a)
        return NULL;
    *count = (size_t)n;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        a[i].id = rd_i16(L);
        a[i].count = rd_u64(L);
    }
    return a;
}

static int load_cpu_zone_counts(loader *L)
{
    L->m->cpu_counts = rd_zone_counts(L, &L->m->cpu_count_count);
    return L->failed ? -1 : 0;
}

static int load_gpu_zone_counts(loader *L)
{
    L->m->gpu_counts = rd_zone_counts(L, &L->m->gpu_count_count);
    return L->failed ? -1 : 0;
}

static int load_lock(loader *L, tf_lock *k)
{
    k->id = rd_u32(L);
    k->name_sidx = rd_u24(L);
    k->srcloc = rd_i16(L);
    k->type = rd_u8(L);
    k->valid = rd_u8(L);
    k->announce = rd_i64(L);
    k->terminate = rd_i64(L);
    k->threads = rd_u64_array(L, &k->thread_count, "lock thread");
    if (!k->threads)
        return -1;
    uint64_t n = rd_u64(L);
    k->events = list_array(L, LOAD_KEEP_EVENTS, n, sizeof *k->events, 12, "lock event");
    if (!k->events)
        return -1;
    k->event_count = list_count(L, LOAD_KEEP_EVENTS, n);
    int64_t ref = k->announce;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_lock_event *e = &k->events[list_at(L, LOAD_KEEP_EVENTS, i)];
        e->time = rd_time(L, &ref);
        e->srcloc = rd_i16(L);
        e->thread = rd_u8(L);
        e->type = rd_u8(L);
    }
    return L->failed ? -1 : 0;
}

static int load_locks(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->locks = alloc_array(L, n, sizeof *m->locks, 47, "lock");
    if (!m->locks)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        m->lock_count = (size_t)i + 1;
        load_lock(L, &m->locks[i]);
    }
    return L->failed ? -1 : 0;
}

static int load_messages(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    const int meta = L->ver >= VER_MSG_META;
    m->messages = list_array(L, LOAD_KEEP_MESSAGES, n, sizeof *m->messages, meta ? 34 : 32, "message");
    if (!m->messages)
        return -1;
    m->message_count = list_count(L, LOAD_KEEP_MESSAGES, n);
    int64_t ref = 0;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_message *g = &m->messages[list_at(L, LOAD_KEEP_MESSAGES, i)];
        g->id = rd_u64(L);
        g->time = rd_time(L, &ref);
        g->text = rd_strref(L);
        g->color = rd_u32(L);
        g->callstack = rd_u24(L);
        g->source = meta ? rd_u8(L) : MSG_SOURCE_USER;
        g->severity = meta ? rd_u8(L) : MSG_SEVERITY_INFO;
    }
    return L->failed ? -1 : 0;
}

static int load_zone_extras(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->extras = list_array(L, LOAD_KEEP_EXTRAS, n, sizeof *m->extras, 12, "zone extra");
    if (!m->extras)
        return -1;
    m->extra_count = list_count(L, LOAD_KEEP_EXTRAS, n);
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_zone_extra *e = &m->extras[list_at(L, LOAD_KEEP_EXTRAS, i)];
        e->callstack = rd_u24(L);
        e->text_sidx = rd_u24(L);
        e->name_sidx = rd_u24(L);
        e->color = rd_u24(L);
    }
    return L->failed ? -1 : 0;
}

/* -- §5.20 CPU zone timeline, read iteratively (no recursion depth limit).
 * Each zone goes to the sink as it is read (begin, then its children,
 * then its end), and into model.zones only if the model keeps them. */

typedef struct level {
    uint64_t remaining;   /* zones still to read at this level */
    size_t parent;        /* zone whose children these are (model.zones index, SIZE_MAX if not kept) */
    int top;              /* the thread's top level: no parent */
} level;

static int push_level(loader *L, level **stack, size_t *depth, size_t *cap, uint64_t n, size_t parent, int top)
{
    if (grow_array(L, (void **)stack, cap, *depth + 1, sizeof **stack) != 0)
        return -1;
    (*stack)[*depth] = (level){ .remaining = n, .parent = parent, .top = top };
    (*depth)++;
    return 0;
}

static int check_time48(loader *L, int64_t t, const char *what)
{
    if (t >= (INT64_C(1) << 47) || t < -(INT64_C(1) << 47))
        return fail(L, "%s time %" PRId64 " does not fit in 48 bits", what, t);
    return 0;
}

/* A zone begins: told to the sink, kept if the model keeps zones.
 * Returns its model.zones index (SIZE_MAX if not kept). */
static size_t begin_cpu_zone(loader *L, int16_t srcloc, int64_t start, uint32_t extra)
{
    tf_model *m = L->m;
    if (check_time48(L, start, "zone start") != 0)
        return SIZE_MAX;
    if (L->sink && L->sink->on_zone_begin(L->sink->ctx, srcloc, start, extra) != 0) {
        fail(L, "out of memory");
        return SIZE_MAX;
    }
    size_t idx = m->zone_count++;
    if (!kept(L, LOAD_KEEP_ZONES))
        return SIZE_MAX;
    if (grow_array(L, (void **)&m->zones, &m->zone_cap, idx + 1, sizeof *m->zones) != 0)
        return SIZE_MAX;
    tf_zone *z = &m->zones[idx];
    z->start_srcloc = (uint64_t)start << 16 | (uint16_t)srcloc;
    z->end = -1;
    z->extra = extra;
    z->ndesc = 0;
    return idx;
}

/* The zone begun last that is still open ends (its end time is read). */
static int end_cpu_zone(loader *L, size_t idx, int64_t *ref)
{
    tf_model *m = L->m;
    int64_t end = rd_time(L, ref);
    if (check_time48(L, end, "zone end") != 0)
        return -1;
    if (L->sink && L->sink->on_zone_end(L->sink->ctx, end) != 0)
        return fail(L, "out of memory");
    if (idx == SIZE_MAX)
        return 0;
    size_t desc = m->zone_count - idx - 1;
    if (desc > UINT32_MAX)
        return fail(L, "zone with more than 2^32 descendants");
    m->zones[idx].end = end;
    m->zones[idx].ndesc = (uint32_t)desc;
    return 0;
}

static int read_cpu_timeline(loader *L, uint32_t top_count)
{
    level *stack = NULL;
    size_t depth = 0, cap = 0;
    int64_t ref = 0;
    if (top_count != 0)
        push_level(L, &stack, &depth, &cap, top_count, SIZE_MAX, 1);
    while (depth > 0 && !L->failed) {
        level *lv = &stack[depth - 1];
        if (lv->remaining == 0) {
            const level done = *lv;
            depth--;
            if (!done.top)
                end_cpu_zone(L, done.parent, &ref);
            continue;
        }
        lv->remaining--;
        /* srcloc i16, start delta i64, extra u32, child count u32: read at once */
        uint8_t b[18];
        if (rd(L, b, sizeof b) != 0)
            break;
        int16_t srcloc;
        int64_t delta;
        uint32_t extra, nchild;
        memcpy(&srcloc, b, 2);
        memcpy(&delta, b + 2, 8);
        memcpy(&extra, b + 10, 4);
        memcpy(&nchild, b + 14, 4);
        ref = (int64_t)((uint64_t)ref + (uint64_t)delta);
        int64_t start = ref;
        size_t idx = begin_cpu_zone(L, srcloc, start, extra);
        if (L->failed)
            break;
        if (nchild != 0) {
            if (check_count(L, nchild, 26, "child zone") == 0)
                push_level(L, &stack, &depth, &cap, nchild, idx, 0);
            L->m->zones_with_children++;
        } else {
            end_cpu_zone(L, idx, &ref);
        }
    }
    free(stack);
    return L->failed ? -1 : 0;
}

static tf_sample *rd_samples(loader *L, size_t *count, const char *what)
{
    uint64_t n = rd_u64(L);
    tf_sample *a = list_array(L, LOAD_KEEP_EVENTS, n, sizeof *a, 11, what);
    if (!a)
        return NULL;
    *count = list_count(L, LOAD_KEEP_EVENTS, n);
    int64_t ref = 0;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_sample *e = &a[list_at(L, LOAD_KEEP_EVENTS, i)];
        e->time = rd_time(L, &ref);
        e->callstack = rd_u24(L);
    }
    return a;
}

static int sample_time_before(const void *a, const void *b)
{
    return ((const tf_sample *)a)->time < ((const tf_sample *)b)->time;
}

static int load_thread_messages(loader *L, tf_thread *t)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    if (check_count(L, n, 8, "thread message reference") != 0)
        return -1;
    if (!kept(L, LOAD_KEEP_EVENTS)) {
        rd(L, NULL, (size_t)n * 8);
        return L->failed ? -1 : 0;
    }
    if (grow_array(L, (void **)&m->thread_msg_ids, &m->thread_msg_cap, m->thread_msg_count + (size_t)n,
                   sizeof *m->thread_msg_ids) != 0)
        return -1;
    t->msg_first = m->thread_msg_count;
    t->msg_num = (size_t)n;
    if (n) rd(L, m->thread_msg_ids + m->thread_msg_count, (size_t)n * 8);
    m->thread_msg_count += (size_t)n;
    return L->failed ? -1 : 0;
}

/* The number the loader gives a §5.20 thread: its place in the thread
 * table, where a thread not yet in it is appended; the loader's one-entry
 * cache (starting as ~0 -> 0) skips the look-up for the same id twice in
 * a row (csvexport-and-fidelity.md B.1). */
static uint16_t add_loader_thread(loader *L, uint64_t tid)
{
    tf_model *m = L->m;
    if (tid != L->last_thread) {
        L->last_thread = tid;
        if (!rhorder_find(&m->loader_thread_index, tid)) {
            if (grow_array(L, (void **)&m->loader_threads, &m->loader_thread_cap, m->loader_thread_count + 1,
                           sizeof *m->loader_threads) != 0)
                return 0;
            if (rhorder_insert(&m->loader_thread_index, tid, m->loader_thread_count) < 0) {
                fail(L, "out of memory");
                return 0;
            }
            m->loader_threads[m->loader_thread_count++] = tid;
        }
    }
    return tf_model_thread_number(m, tid);
}

static int load_thread(loader *L, size_t index, tf_thread *t)
{
    t->id = rd_u64(L);
    t->zone_count = rd_u64(L);
    t->kernel_samples = rd_u64(L);
    t->is_fiber = rd_u8(L);
    t->group_hint = L->ver >= VER_GROUP_HINT ? rd_i32(L) : 0;
    uint32_t top = rd_u32(L);
    t->top_count = top;
    if (L->failed)
        return -1;
    /* (upstream numbers the thread when it reads its message list, after
     * the zones; the number is the same, and the zones need it) */
    uint16_t number = add_loader_thread(L, t->id);
    if (L->sink && !L->failed && L->sink->on_thread(L->sink->ctx, index, number) != 0)
        return fail(L, "out of memory");
    t->zone_first = L->m->zone_count;
    if (!L->failed)
        read_cpu_timeline(L, top);
    t->zone_num = L->m->zone_count - t->zone_first;
    load_thread_messages(L, t);
    t->ctx_samples = rd_samples(L, &t->ctx_sample_count, "context-switch sample");
    if (L->ver < VER_SORTED_CTX && t->ctx_samples)
        sort_by_time(L, t->ctx_samples, t->ctx_sample_count, sizeof *t->ctx_samples, sample_time_before);
    t->samples = rd_samples(L, &t->sample_count, "sample");
    return L->failed ? -1 : 0;
}

static int load_threads(loader *L)
{
    tf_model *m = L->m;
    m->total_zone_count = rd_u64(L);
    m->child_vector_count = rd_u64(L);
    uint64_t n = rd_u64(L);
    m->threads = alloc_array(L, n, sizeof *m->threads, 49, "thread");
    if (!m->threads)
        return -1;
    if (L->sink && L->sink->on_timelines(L->sink->ctx, m) != 0)
        return fail(L, "out of memory");
    uint64_t hint = m->total_zone_count;
    if (hint > tfread_remaining_bound(L->r) / 26)
        hint = tfread_remaining_bound(L->r) / 26;
    if (kept(L, LOAD_KEEP_ZONES) &&
        grow_array(L, (void **)&m->zones, &m->zone_cap, (size_t)hint, sizeof *m->zones) != 0)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        m->thread_count = (size_t)i + 1;
        load_thread(L, (size_t)i, &m->threads[i]);
    }
    return L->failed ? -1 : 0;
}

/* -- §5.21 GPU contexts */

/* The next GPU zone: its model.gpu_zones index (counted either way), and
 * where to read it: in the model if it keeps GPU zones, else *scratch. */
static tf_gpu_zone *new_gpu_zone(loader *L, size_t *idx, tf_gpu_zone *scratch)
{
    tf_model *m = L->m;
    memset(scratch, 0, sizeof *scratch);
    *idx = m->gpu_zone_count;
    if (!kept(L, LOAD_KEEP_GPU_ZONES)) {
        m->gpu_zone_count++;
        return scratch;
    }
    if (grow_array(L, (void **)&m->gpu_zones, &m->gpu_zone_cap, m->gpu_zone_count + 1,
                   sizeof *m->gpu_zones) != 0)
        return scratch;
    m->gpu_zones[m->gpu_zone_count++] = *scratch;
    return &m->gpu_zones[*idx];
}

static void finish_gpu_zone(loader *L, size_t idx, int64_t *cpu_ref, int64_t *gpu_ref)
{
    tf_model *m = L->m;
    tf_gpu_zone scratch;
    tf_gpu_zone *z = kept(L, LOAD_KEEP_GPU_ZONES) ? &m->gpu_zones[idx] : &scratch;
    z->cpu_end = rd_time(L, cpu_ref);
    z->gpu_end = rd_time(L, gpu_ref);
    z->query = L->ver >= VER_GPU_NOTES ? rd_u16(L) : 0;   /* older: left unset (0 here) */
    size_t desc = m->gpu_zone_count - idx - 1;
    z->ndesc = desc > UINT32_MAX ? UINT32_MAX : (uint32_t)desc;
    check_time48(L, z->cpu_end, "GPU zone CPU end");
    check_time48(L, z->gpu_end, "GPU zone GPU end");
}

static int read_gpu_timeline(loader *L, uint64_t top_count)
{
    level *stack = NULL;
    size_t depth = 0, cap = 0;
    int64_t cpu_ref = 0, gpu_ref = 0;
    push_level(L, &stack, &depth, &cap, top_count, SIZE_MAX, 1);
    while (depth > 0 && !L->failed) {
        level *lv = &stack[depth - 1];
        if (lv->remaining == 0) {
            const level done = *lv;
            depth--;
            if (!done.top)
                finish_gpu_zone(L, done.parent, &cpu_ref, &gpu_ref);
            continue;
        }
        lv->remaining--;
        size_t idx;
        tf_gpu_zone scratch;
        tf_gpu_zone *z = new_gpu_zone(L, &idx, &scratch);
        if (L->failed)
            break;
        z->cpu_start = rd_time(L, &cpu_ref);
        z->gpu_start = rd_time(L, &gpu_ref);
        z->srcloc = rd_i16(L);
        z->callstack = rd_u24(L);
        z->thread = rd_u16(L);
        uint64_t nchild = rd_u64(L);
        check_time48(L, z->cpu_start, "GPU zone CPU start");
        check_time48(L, z->gpu_start, "GPU zone GPU start");
        if (nchild != 0) {
            if (check_count(L, nchild, 45, "GPU child zone") == 0)
                push_level(L, &stack, &depth, &cap, nchild, idx, 0);
            L->m->gpu_zones_with_children++;
        } else {
            finish_gpu_zone(L, idx, &cpu_ref, &gpu_ref);
        }
    }
    free(stack);
    return L->failed ? -1 : 0;
}

static int load_gpu_note_queries(loader *L, tf_gpu_ctx *c)
{
    if (L->ver < VER_GPU_NOTES)
        return 0;
    uint64_t n = rd_u64(L);
    c->note_queries = alloc_array(L, n, sizeof *c->note_queries, 10, "GPU note query");
    if (!c->note_queries)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_gpu_note_query *q = &c->note_queries[i];
        c->note_query_count = (size_t)i + 1;
        q->query = rd_u16(L);
        uint64_t k = rd_u64(L);
        q->notes = alloc_array(L, k, sizeof *q->notes, 16, "GPU note");
        if (!q->notes)
            return -1;
        q->count = (size_t)k;
        for (uint64_t j = 0; j < k && !L->failed; j++) {
            q->notes[j].id = rd_i64(L);
            q->notes[j].value = rd_f64(L);
        }
    }
    return L->failed ? -1 : 0;
}

static int load_gpu_context(loader *L, tf_gpu_ctx *c)
{
    c->thread = rd_u64(L);
    c->has_calibration = rd_u8(L);
    c->count = rd_u64(L);
    c->period = rd_f32(L);
    c->type = rd_u8(L);
    c->name_sidx = rd_u24(L);
    c->overflow = rd_u64(L);
    uint64_t nn = L->ver >= VER_GPU_NOTES ? rd_u64(L) : 0;
    c->note_names = alloc_array(L, nn, sizeof *c->note_names, 11, "GPU note name");
    if (!c->note_names)
        return -1;
    c->note_name_count = (size_t)nn;
    for (uint64_t i = 0; i < nn && !L->failed; i++) {
        c->note_names[i].id = rd_i64(L);
        c->note_names[i].name_sidx = rd_u24(L);
    }
    uint64_t nt = rd_u64(L);
    c->timelines = alloc_array(L, nt, sizeof *c->timelines, 16, "GPU thread timeline");
    if (!c->timelines)
        return -1;
    for (uint64_t i = 0; i < nt && !L->failed; i++) {
        tf_gpu_timeline *t = &c->timelines[i];
        c->timeline_count = (size_t)i + 1;
        t->key = rd_u64(L);
        uint64_t n = rd_u64(L);
        t->zone_first = L->m->gpu_zone_count;
        if (n != 0 && check_count(L, n, 45, "GPU zone") == 0)
            read_gpu_timeline(L, n);
        t->zone_num = L->m->gpu_zone_count - t->zone_first;
    }
    return load_gpu_note_queries(L, c);
}

static int load_gpu_contexts(loader *L)
{
    tf_model *m = L->m;
    m->total_gpu_zone_count = rd_u64(L);
    m->gpu_child_vector_count = rd_u64(L);
    uint64_t n = rd_u64(L);
    m->gpu_ctxs = alloc_array(L, n, sizeof *m->gpu_ctxs, L->ver >= VER_GPU_NOTES ? 59 : 41, "GPU context");
    if (!m->gpu_ctxs)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        m->gpu_ctx_count = (size_t)i + 1;
        load_gpu_context(L, &m->gpu_ctxs[i]);
    }
    return L->failed ? -1 : 0;
}

static int plot_time_before(const void *a, const void *b)
{
    return ((const tf_plot_point *)a)->time < ((const tf_plot_point *)b)->time;
}

static int load_plots(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->plots = alloc_array(L, n, sizeof *m->plots, 48, "plot");
    if (!m->plots)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_plot *p = &m->plots[i];
        m->plot_count = (size_t)i + 1;
        p->type = rd_u8(L);
        p->format = rd_u8(L);
        p->show_steps = rd_u8(L);
        p->fill = rd_u8(L);
        p->color = rd_u32(L);
        p->name = rd_u64(L);
        p->min = rd_f64(L);
        p->max = rd_f64(L);
        p->sum = rd_f64(L);
        uint64_t k = rd_u64(L);
        p->points = list_array(L, LOAD_KEEP_PLOTS, k, sizeof *p->points, 16, "plot point");
        if (!p->points)
            return -1;
        p->count = list_count(L, LOAD_KEEP_PLOTS, k);
        int64_t ref = 0;
        for (uint64_t j = 0; j < k && !L->failed; j++) {
            tf_plot_point *pt = &p->points[list_at(L, LOAD_KEEP_PLOTS, j)];
            pt->time = rd_time(L, &ref);
            pt->value = rd_f64(L);
        }
        if (L->ver < VER_SORTED_PLOTS)
            sort_by_time(L, p->points, p->count, sizeof *p->points, plot_time_before);
    }
    return L->failed ? -1 : 0;
}

static int load_memory_pool(loader *L, tf_mem_pool *p)
{
    p->name = rd_u64(L);
    uint64_t n = rd_u64(L);
    p->active_count = rd_u64(L);
    p->freed_count = rd_u64(L);
    p->events = list_array(L, LOAD_KEEP_EVENTS, n, sizeof *p->events, 42, "memory event");
    if (!p->events)
        return -1;
    p->count = list_count(L, LOAD_KEEP_EVENTS, n);
    int64_t ref = 0;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_mem_event *e = &p->events[list_at(L, LOAD_KEEP_EVENTS, i)];
        e->address = rd_u64(L);
        e->size = rd_u64(L);
        e->cs_alloc = rd_u24(L);
        e->cs_free = rd_u24(L);
        e->time_alloc = rd_time(L, &ref);
        e->free_offset = rd_i64(L);
        e->thread_alloc = rd_u16(L);
        e->thread_free = rd_u16(L);
    }
    p->high = rd_u64(L);
    p->low = rd_u64(L);
    p->usage = rd_u64(L);
    p->name2 = rd_u64(L);
    return L->failed ? -1 : 0;
}

static int load_memory(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->mem_total_events = rd_u64(L);
    m->pools = alloc_array(L, n, sizeof *m->pools, 64, "memory pool");
    if (!m->pools)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        m->pool_count = (size_t)i + 1;
        load_memory_pool(L, &m->pools[i]);
    }
    return L->failed ? -1 : 0;
}

static int load_callstacks(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    if (!kept(L, LOAD_KEEP_EVENTS)) {
        if (check_count(L, n, 2, "callstack") != 0)
            return -1;
        for (uint64_t i = 0; i < n && !L->failed; i++)
            rd(L, NULL, (size_t)rd_u16(L) * 8);
        return L->failed ? -1 : 0;
    }
    m->callstacks = alloc_array(L, n, sizeof *m->callstacks, 2, "callstack");
    if (!m->callstacks)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        uint16_t k = rd_u16(L);
        if (grow_array(L, (void **)&m->cs_frame_ids, &m->cs_frame_id_cap, m->cs_frame_id_count + k,
                       sizeof *m->cs_frame_ids) != 0)
            return -1;
        m->callstacks[i].first = m->cs_frame_id_count;
        m->callstacks[i].count = k;
        rd(L, m->cs_frame_ids + m->cs_frame_id_count, (size_t)k * 8);
        m->cs_frame_id_count += k;
        m->callstack_count = (size_t)i + 1;
    }
    return L->failed ? -1 : 0;
}

static int load_callstack_frames(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    if (!kept(L, LOAD_KEEP_EVENTS)) {
        if (check_count(L, n, 12, "callstack frame") != 0)
            return -1;
        for (uint64_t i = 0; i < n && !L->failed; i++) {
            rd(L, NULL, 8);
            uint8_t count = rd_u8(L);
            rd(L, NULL, 3 + (size_t)count * 18);
        }
        return L->failed ? -1 : 0;
    }
    m->cs_frames = alloc_array(L, n, sizeof *m->cs_frames, 12, "callstack frame");
    if (!m->cs_frames)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_cs_frame_data *d = &m->cs_frames[i];
        d->id = rd_u64(L);
        d->count = rd_u8(L);
        d->image_sidx = rd_u24(L);
        if (grow_array(L, (void **)&m->cs_frame_items, &m->cs_frame_item_cap,
                       m->cs_frame_item_count + d->count, sizeof *m->cs_frame_items) != 0)
            return -1;
        d->first = m->cs_frame_item_count;
        for (unsigned j = 0; j < d->count && !L->failed; j++) {
            tf_cs_frame *f = &m->cs_frame_items[m->cs_frame_item_count + j];
            f->name_sidx = rd_u24(L);
            f->file_sidx = rd_u24(L);
            f->line = rd_u32(L);
            f->sym_addr = rd_u64(L);
        }
        m->cs_frame_item_count += d->count;
        m->cs_frame_count = (size_t)i + 1;
    }
    return L->failed ? -1 : 0;
}

static int load_app_info(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->app_info = alloc_array(L, n, sizeof *m->app_info, 9, "app info entry");
    if (!m->app_info)
        return -1;
    m->app_info_count = (size_t)n;
    for (uint64_t i = 0; i < n && !L->failed; i++)
        m->app_info[i] = rd_strref(L);
    return L->failed ? -1 : 0;
}

static int load_frame_images(loader *L)
{
    tf_model *m = L->m;
    m->frame_image_dict_size = rd_u32(L);
    if (check_count(L, m->frame_image_dict_size, 1, "dictionary byte") == 0)
        rd(L, NULL, m->frame_image_dict_size);
    uint64_t n = rd_u64(L);
    m->frame_images = list_array(L, LOAD_KEEP_EVENTS, n, sizeof *m->frame_images, 5, "frame image");
    if (!m->frame_images)
        return -1;
    m->frame_image_count = list_count(L, LOAD_KEEP_EVENTS, n);
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_frame_image *f = &m->frame_images[list_at(L, LOAD_KEEP_EVENTS, i)];
        f->w = rd_u16(L);
        f->h = rd_u16(L);
        f->flip = rd_u8(L);
        size_t bytes = (size_t)f->w * f->h / 2;
        rd(L, NULL, bytes);
        m->frame_image_bytes += bytes;
    }
    return L->failed ? -1 : 0;
}

static int load_thread_ctx_switches(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->ctx_threads = alloc_array(L, n, sizeof *m->ctx_threads, 16, "context-switch thread");
    if (!m->ctx_threads)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_thread_ctx_switches *t = &m->ctx_threads[i];
        m->ctx_thread_count = (size_t)i + 1;
        t->thread = rd_u64(L);
        uint64_t k = rd_u64(L);
        const int wakeup_cpu = L->ver >= VER_WAKEUP_CPU;
        t->records = list_array(L, LOAD_KEEP_EVENTS, k, sizeof *t->records, wakeup_cpu ? 36 : 35,
                                "context switch");
        if (!t->records)
            return -1;
        t->count = list_count(L, LOAD_KEEP_EVENTS, k);
        int64_t ref = 0;
        for (uint64_t j = 0; j < k && !L->failed; j++) {
            tf_ctx_switch *c = &t->records[list_at(L, LOAD_KEEP_EVENTS, j)];
            c->wakeup = rd_time(L, &ref);
            c->start = rd_time(L, &ref);
            c->end = rd_time(L, &ref);
            c->cpu = rd_u8(L);
            c->reason = rd_i8(L);
            c->state = rd_i8(L);
            c->thread = rd_u64(L);
            c->wakeup_cpu = wakeup_cpu ? rd_u8(L) : c->cpu;
        }
    }
    return L->failed ? -1 : 0;
}

static int load_cpu_ctx_switches(loader *L)
{
    tf_model *m = L->m;
    m->cpu_switch_total = rd_u64(L);
    for (int cpu = 0; cpu < 256 && !L->failed; cpu++) {
        tf_cpu_switches *c = &m->cpu_switches[cpu];
        uint64_t k = rd_u64(L);
        c->records = list_array(L, LOAD_KEEP_EVENTS, k, sizeof *c->records, 18, "per-CPU context switch");
        if (!c->records)
            return -1;
        c->count = list_count(L, LOAD_KEEP_EVENTS, k);
        int64_t ref = 0;
        for (uint64_t j = 0; j < k && !L->failed; j++) {
            tf_cpu_switch *e = &c->records[list_at(L, LOAD_KEEP_EVENTS, j)];
            e->start = rd_time(L, &ref);
            e->end = rd_time(L, &ref);
            e->thread = rd_u16(L);
        }
    }
    return L->failed ? -1 : 0;
}

static int load_tid_to_pid(loader *L)
{
    L->m->tid_pid = rd_pair_array(L, &L->m->tid_pid_count, "thread-process entry");
    return L->failed ? -1 : 0;
}

static int load_cpu_thread_data(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->cpu_thread_data = alloc_array(L, n, sizeof *m->cpu_thread_data, 24, "CPU thread data");
    if (!m->cpu_thread_data)
        return -1;
    m->cpu_thread_data_count = (size_t)n;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_cpu_thread_data *d = &m->cpu_thread_data[i];
        d->thread = rd_u64(L);
        d->running_time = rd_i64(L);
        d->running_regions = rd_u32(L);
        d->migrations = rd_u32(L);
    }
    return L->failed ? -1 : 0;
}

static int load_symbols(loader *L)
{
    tf_model *m = L->m;
    m->symbol_slots = rd_u64(L);
    m->inline_symbol_slots = rd_u64(L);
    uint64_t n = rd_u64(L);
    m->symbols = list_array(L, LOAD_KEEP_EVENTS, n, sizeof *m->symbols, 32, "symbol");
    if (!m->symbols)
        return -1;
    m->symbol_count = list_count(L, LOAD_KEEP_EVENTS, n);
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_symbol *s = &m->symbols[list_at(L, LOAD_KEEP_EVENTS, i)];
        s->address = rd_u64(L);
        s->name_sidx = rd_u24(L);
        s->file_sidx = rd_u24(L);
        s->line = rd_u32(L);
        s->image_sidx = rd_u24(L);
        s->call_file_sidx = rd_u24(L);
        s->call_line = rd_u32(L);
        s->is_inline = rd_u8(L);
        s->size = rd_u24(L);
    }
    return L->failed ? -1 : 0;
}

static int load_symbol_code(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->symbol_code = list_array(L, LOAD_KEEP_EVENTS, n, sizeof *m->symbol_code, 12, "symbol code entry");
    if (!m->symbol_code)
        return -1;
    m->symbol_code_count = list_count(L, LOAD_KEEP_EVENTS, n);
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_symbol_code *c = &m->symbol_code[list_at(L, LOAD_KEEP_EVENTS, i)];
        c->address = rd_u64(L);
        c->length = rd_u32(L);
        rd(L, NULL, c->length);
        m->symbol_code_bytes += c->length;
    }
    return L->failed ? -1 : 0;
}

static int load_code_symbol_map(loader *L)
{
    if (kept(L, LOAD_KEEP_EVENTS)) {
        L->m->code_symbols = rd_pair_array(L, &L->m->code_symbol_count, "code address entry");
    } else {
        uint64_t n = rd_u64(L);
        if (check_count(L, n, 16, "code address entry") == 0)
            rd(L, NULL, (size_t)n * 16);
    }
    return L->failed ? -1 : 0;
}

static int load_hw_samples(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->hw_samples = list_array(L, LOAD_KEEP_EVENTS, n, sizeof *m->hw_samples, 56, "hardware sample address");
    if (!m->hw_samples)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_hw_sample *h = &m->hw_samples[list_at(L, LOAD_KEEP_EVENTS, i)];
        m->hw_sample_count = list_count(L, LOAD_KEEP_EVENTS, i + 1);
        h->address = rd_u64(L);
        for (int v = 0; v < TF_HW_VECTORS && !L->failed; v++) {
            uint64_t k = rd_u64(L);
            if (!kept(L, LOAD_KEEP_EVENTS)) {
                if (check_count(L, k, 8, "hardware sample") == 0)
                    rd(L, NULL, (size_t)k * 8);
                continue;
            }
            h->times[v] = alloc_array(L, k, sizeof *h->times[v], 8, "hardware sample");
            if (!h->times[v])
                return -1;
            h->count[v] = (size_t)k;
            int64_t ref = 0;
            for (uint64_t j = 0; j < k && !L->failed; j++)
                h->times[v][j] = rd_time(L, &ref);
        }
    }
    return L->failed ? -1 : 0;
}

static int load_source_cache(loader *L)
{
    tf_model *m = L->m;
    uint64_t n = rd_u64(L);
    m->source_files = alloc_array(L, n, sizeof *m->source_files, 8, "source file");
    if (!m->source_files)
        return -1;
    for (uint64_t i = 0; i < n && !L->failed; i++) {
        tf_source_file *s = &m->source_files[i];
        s->name_len = rd_u32(L);
        s->name_off = pool_append(L, s->name_len);
        s->data_len = rd_u32(L);
        if (check_count(L, s->data_len, 1, "source file byte") == 0)
            rd(L, NULL, s->data_len);
        m->source_file_bytes += s->data_len;
        m->source_file_count = (size_t)i + 1;
    }
    return L->failed ? -1 : 0;
}

/* ---- driver ------------------------------------------------------------- */

typedef struct section_def {
    const char *name;
    int (*load)(loader *L);
} section_def;

static const section_def SECTIONS[] = {
    { "payload header", load_payload_header },
    { "capture information", load_capture_info },
    { "CPU topology", load_cpu_topology },
    { "crash event", load_crash_event },
    { "frame sets", load_frame_sets },
    { "sections", load_sections },
    { "string data", load_string_data },
    { "pointer-string map", load_pointer_map },
    { "thread names", load_thread_names },
    { "external thread names", load_external_names },
    { "local thread table", load_local_threads },
    { "external thread table", load_external_threads },
    { "static source locations", load_static_srclocs },
    { "source-location expand table", load_srcloc_expand },
    { "payload source locations", load_payload_srclocs },
    { "CPU zone counts", load_cpu_zone_counts },
    { "GPU zone counts", load_gpu_zone_counts },
    { "locks", load_locks },
    { "messages", load_messages },
    { "zone extras", load_zone_extras },
    { "CPU threads", load_threads },
    { "GPU contexts", load_gpu_contexts },
    { "plots", load_plots },
    { "memory pools", load_memory },
    { "callstack payloads", load_callstacks },
    { "callstack frames", load_callstack_frames },
    { "application info", load_app_info },
    { "frame images", load_frame_images },
    { "context switches per thread", load_thread_ctx_switches },
    { "context switches per CPU", load_cpu_ctx_switches },
    { "thread-process map", load_tid_to_pid },
    { "CPU thread statistics", load_cpu_thread_data },
    { "symbols", load_symbols },
    { "symbol code", load_symbol_code },
    { "code-symbol map", load_code_symbol_map },
    { "hardware samples", load_hw_samples },
    { "source file cache", load_source_cache },
};

const char *load_section_name(int section)
{
    int n = (int)(sizeof SECTIONS / sizeof SECTIONS[0]);
    return section >= 0 && section < n ? SECTIONS[section].name : "?";
}

int load_model(tfread *r, tf_model *m, const load_options *o, char *err, size_t errsz)
{
    loader L = { .r = r, .m = m, .keep = o->keep, .sink = o->sink, .err = err, .errsz = errsz,
                 .last_thread = UINT64_MAX };
    size_t n = sizeof SECTIONS / sizeof SECTIONS[0];
    _Static_assert(sizeof SECTIONS / sizeof SECTIONS[0] == TF_SECTIONS, "one entry per section");
    for (size_t i = 0; i < n; i++) {
        L.section = (int)i;
        L.section_name = SECTIONS[i].name;
        m->section_offset[i] = tfread_offset(r);
        if (SECTIONS[i].load(&L) != 0 || L.failed) {
            fail(&L, "malformed section");
            return -1;
        }
    }
    L.section = (int)n - 1;
    int end = tfread_at_end(r);
    if (end < 0)
        return fail(&L, "%s", tfread_error(r));
    if (end == 0)
        return fail(&L, "trailing bytes after the last section");
    if (tf_model_build_lookups(m) != 0)
        return fail(&L, "out of memory building lookups");
    return 0;
}
