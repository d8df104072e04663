/* csvexport: the tracy-csvexport output modes (see csvexport.h).  Numbers are printed
 * the way std::to_string does: %ld for int64, %lu for uint64/size_t, %u for
 * the line, %d for the thread number, %f for doubles.  Mode precedence:
 * -m, then -g, then -u, then statistics.
 *
 * -p: upstream prints the memory-usage plots it rebuilds in background
 * threads first, racing with the output (§A.11); they are not reproducible,
 * so only the §5.22 plots stored in the file are printed here. */
#include "csvexport.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


enum { MAX_FIELDS = 12, NUM_LEN = 64 };

typedef struct row {
    const char *field[MAX_FIELDS];
    char num[MAX_FIELDS][NUM_LEN];
    size_t n;
} row;

static void emit_row(FILE *out, const char *sep, const row *r)
{
    fputs(r->field[0], out);
    if (sep)
        for (size_t i = 1; i < r->n; i++) {
            fputs(sep, out);
            fputs(r->field[i], out);
        }
    fputc('\n', out);
}

static void set_i64(row *r, size_t i, int64_t v)
{
    snprintf(r->num[i], NUM_LEN, "%" PRId64, v);
    r->field[i] = r->num[i];
}

static void set_u64(row *r, size_t i, uint64_t v)
{
    snprintf(r->num[i], NUM_LEN, "%" PRIu64, v);
    r->field[i] = r->num[i];
}

static void set_double(row *r, size_t i, double v)
{
    snprintf(r->num[i], NUM_LEN, "%f", v);
    r->field[i] = r->num[i];
}

static void set_header(row *r, const char *const *names, size_t n)
{
    r->n = n;
    for (size_t i = 0; i < n; i++)
        r->field[i] = names[i];
}

static void clear_row(row *r, size_t n)
{
    r->n = n;
    for (size_t i = 0; i < n; i++)
        r->field[i] = "";
}

/* ---- names and filtering -------------------------------------------------- */

static const char *srcloc_name(const tf_model *m, int16_t id)
{
    const tf_srcloc *s = tf_model_srcloc(m, id);
    if (!s)
        return "???";
    return tf_model_strref_text(m, (s->name.flags & TF_REF_ACTIVE) ? s->name : s->function);
}

static const char *srcloc_file(const tf_model *m, int16_t id)
{
    const tf_srcloc *s = tf_model_srcloc(m, id);
    return s ? tf_model_strref_text(m, s->file) : "???";
}

static char *ascii_lower_dup(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (!d)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        d[i] = (char)tolower((unsigned char)s[i]);
    return d;
}

typedef struct name_filter {
    const char *needle;      /* NULL: keep everything */
    char *owned;
    int case_sensitive;
} name_filter;

static int filter_init(name_filter *f, const csv_options *o)
{
    memset(f, 0, sizeof *f);
    if (!o->filter || o->filter[0] == '\0')
        return 0;
    f->case_sensitive = o->case_sensitive;
    if (o->case_sensitive) {
        f->needle = o->filter;
        return 0;
    }
    f->owned = ascii_lower_dup(o->filter);
    f->needle = f->owned;
    return f->owned ? 0 : -1;
}

/* -1 out of memory, 0 rejected, 1 kept. */
static int filter_keeps(const name_filter *f, const char *name)
{
    if (!f->needle)
        return 1;
    if (f->case_sensitive)
        return strstr(name, f->needle) != NULL;
    char *low = ascii_lower_dup(name);
    if (!low)
        return -1;
    int keep = strstr(low, f->needle) != NULL;
    free(low);
    return keep;
}

/* Records of a map in slot order that have total != 0 and pass the filter. */
static int select_records(const rhorder *map, const srcloc_stats *recs, const tf_model *m,
                          const name_filter *f, size_t **out, size_t *count)
{
    size_t *sel = malloc((rhorder_size(map) + 1) * sizeof *sel);
    if (!sel)
        return -1;
    size_t n = 0;
    uint64_t r;
    for (size_t slot = 0; slot < rhorder_slots(map); slot++) {
        if (!rhorder_slot(map, slot, NULL, &r) || recs[r].total == 0)
            continue;
        int keep = filter_keeps(f, srcloc_name(m, recs[r].id));
        if (keep < 0) {
            free(sel);
            return -1;
        }
        if (keep)
            sel[n++] = (size_t)r;
    }
    *out = sel;
    *count = n;
    return 0;
}

/* ---- -m ------------------------------------------------------------------- */

static int write_messages(const tf_model *m, const csv_options *o, FILE *out)
{
    if (m->message_count == 0) {
        fputs("There are currently no messages!\n", out);
        return 0;
    }
    static const char *const header[] = { "MessageName", "total_ns" };
    row r;
    set_header(&r, header, 2);
    emit_row(out, o->sep, &r);
    for (size_t i = 0; i < m->message_count; i++) {
        r.field[0] = tf_model_strref_text(m, m->messages[i].text);
        set_i64(&r, 1, m->messages[i].time);
        emit_row(out, o->sep, &r);
    }
    return 0;
}

/* ---- -g ------------------------------------------------------------------- */

static int write_gpu(const tf_model *m, const tf_stats *s, const csv_options *o, const name_filter *f,
                     FILE *out)
{
    static const char *const header[] = { "name", "src_file", "Time from start of program",
                                          "GPU execution time" };
    size_t *sel, n;
    if (select_records(&s->gpu_map, s->gpu, m, f, &sel, &n) != 0)
        return -1;
    row r;
    set_header(&r, header, 4);
    emit_row(out, o->sep, &r);
    for (size_t k = 0; k < n; k++) {
        const srcloc_stats *rec = &s->gpu[sel[k]];
        r.field[0] = srcloc_name(m, rec->id);
        r.field[1] = srcloc_file(m, rec->id);
        for (uint64_t j = 0; j < rec->count; j++) {
            const tf_gpu_zone *z = &m->gpu_zones[s->gpu_list[rec->list_first + j]];
            set_i64(&r, 2, z->gpu_start);
            set_i64(&r, 3, z->gpu_end - z->gpu_start);
            emit_row(out, o->sep, &r);
        }
    }
    free(sel);
    return 0;
}

/* ---- -u [-p] -------------------------------------------------------------- */

static void write_zone_rows(const tf_model *m, const csv_options *o, const csv_release *rel,
                            const srcloc_stats *rec, FILE *out)
{
    row r;
    clear_row(&r, rel->gpu ? 7 : 6);
    r.field[0] = srcloc_name(m, rec->id);
    r.field[1] = srcloc_file(m, rec->id);
    const tf_srcloc *loc = tf_model_srcloc(m, rec->id);
    set_u64(&r, 2, loc ? loc->line : 0);
    for (size_t j = 0; j < rec->row_n; j++) {
        const zone_row *z = &rec->rows[j];
        if (z->dropped)
            continue;
        set_i64(&r, 3, z->start);
        set_i64(&r, 4, z->exec);
        set_i64(&r, 5, z->thread);
        /* the text carries over to later zones without text (§A.10) */
        if (rel->zone_text && z->extra != 0 && z->extra < m->extra_count) {
            const char *text = tf_model_sidx_text(m, m->extras[z->extra].text_sidx);
            if (text)
                r.field[6] = text;
        }
        emit_row(out, o->sep, &r);
    }
}

static void write_plot_rows(const tf_model *m, const csv_options *o, FILE *out)
{
    for (size_t p = 0; p < m->plot_count; p++) {
        const tf_plot *plot = &m->plots[p];
        row r;
        clear_row(&r, 7);
        r.field[0] = tf_model_pointer_text(m, plot->name);
        for (size_t j = 0; j < plot->count; j++) {
            set_i64(&r, 3, plot->points[j].time);
            set_double(&r, 6, plot->points[j].value);
            emit_row(out, o->sep, &r);
        }
    }
}

static int write_unwrap(const tf_model *m, const tf_stats *s, const csv_options *o, const name_filter *f,
                        FILE *out)
{
    static const char *const header[] = { "name", "src_file", "src_line", "ns_since_start",
                                          "exec_time_ns", "thread", "value" };
    const csv_release *rel = o->release ? o->release : csv_release_newest();
    size_t *sel, n;
    if (select_records(&s->cpu_map, s->cpu, m, f, &sel, &n) != 0)
        return -1;
    row r;
    set_header(&r, header, rel->gpu ? 7 : 6);   /* the value column came with -g */
    emit_row(out, o->sep, &r);
    for (size_t k = 0; k < n; k++)
        write_zone_rows(m, o, rel, &s->cpu[sel[k]], out);
    if (o->plot && rel->gpu)
        write_plot_rows(m, o, out);
    free(sel);
    return 0;
}

/* ---- statistics ----------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* §A.9: percentile (rounded) and mean of the samples <= the percentile,
 * of the record's values (sorted here, in place). */
static void percentile_and_truncated_mean(const csv_options *o, srcloc_stats *rec, int64_t *pct, int64_t *tmean)
{
    size_t n = rec->value_n;
    int64_t *v = rec->values;
    *pct = *tmean = 0;
    if (n == 0)
        return;
    qsort(v, n, sizeof *v, cmp_i64);
    double idx = (o->truncated_mean / 100.0) * ((double)n - 1.0);
    size_t lo = (size_t)floor(idx);
    size_t hi = lo + 1 < n - 1 ? lo + 1 : n - 1;
    double frac = idx - (double)lo;
    double low = (double)v[lo], high = (double)v[hi];
    double pv = low + (high - low) * frac;
    *pct = (int64_t)llround(pv);
    uint64_t sum = 0;
    size_t cnt = 0;
    while (cnt < n && (double)v[cnt] <= pv)
        sum += (uint64_t)v[cnt++];
    *tmean = cnt ? (int64_t)(sum / cnt) : 0;
}

/* The default-mode row; formulas of §A.7/§A.8 including the std quirks. */
static void fill_stats_row(const tf_model *m, const csv_options *o, srcloc_stats *rec, row *r)
{
    const tf_srcloc *loc = tf_model_srcloc(m, rec->id);
    r->field[0] = srcloc_name(m, rec->id);
    r->field[1] = srcloc_file(m, rec->id);
    set_u64(r, 2, loc ? loc->line : 0);
    int64_t time = o->self_time ? rec->self_total : rec->total;
    uint64_t sz = rec->count;
    uint64_t avg = (uint64_t)time / sz;
    set_i64(r, 3, time);
    set_double(r, 4, 100.0 * (double)time / (double)m->last_time);
    set_u64(r, 5, sz);
    set_u64(r, 6, avg);
    set_i64(r, 7, o->self_time ? rec->self_min : rec->min);
    set_i64(r, 8, o->self_time ? rec->self_max : rec->max);
    double ss = rec->sum_sq - 2.0 * (double)rec->total * (double)avg + (double)(avg * avg * sz);
    set_double(r, 9, sz > 1 ? sqrt(ss / (double)(sz - 1)) : 0.0);
    if (o->truncated_mean) {
        int64_t pct, tmean;
        percentile_and_truncated_mean(o, rec, &pct, &tmean);
        set_i64(r, 10, pct);
        set_i64(r, 11, tmean);
    }
}

static int write_statistics(const tf_model *m, tf_stats *s, const csv_options *o,
                            const name_filter *f, FILE *out)
{
    static const char *const header[] = { "name",    "src_file", "src_line", "total_ns",
                                          "total_perc", "counts", "mean_ns", "min_ns",
                                          "max_ns",  "std_ns",   "percentile_ns", "truncated_mean_ns" };
    size_t ncols = o->truncated_mean ? 12 : 10;
    size_t *sel, n;
    if (select_records(&s->cpu_map, s->cpu, m, f, &sel, &n) != 0)
        return -1;
    row r;
    set_header(&r, header, ncols);
    emit_row(out, o->sep, &r);
    for (size_t k = 0; k < n; k++) {
        /* (sorting a record's values for the percentile changes no output) */
        fill_stats_row(m, o, &s->cpu[sel[k]], &r);
        emit_row(out, o->sep, &r);
    }
    free(sel);
    return 0;
}

/* What the statistics of o keep. */
static stats_options stats_options_for(const csv_options *o)
{
    const int stats = !o->messages && !o->gpu;
    return (stats_options){ .keep_rows = stats && o->unwrap,
                            .keep_values = stats && !o->unwrap && o->truncated_mean,
                            .self_rows = o->self_time };
}

/* What the model of o keeps besides its tables. */
static unsigned load_keep_for(const csv_options *o)
{
    if (o->messages)
        return LOAD_KEEP_MESSAGES;
    if (o->gpu)
        return LOAD_KEEP_GPU_ZONES;
    if (o->unwrap)
        return LOAD_KEEP_EXTRAS | (o->plot ? LOAD_KEEP_PLOTS : 0);
    return 0;
}

int csv_load(tfread *r, tf_model *m, tf_stats *s, const csv_options *o, unsigned keep, char *err, size_t errsz)
{
    const stats_options so = stats_options_for(o);
    stats_init(s, &so);
    const load_sink sink = stats_sink(s);
    const load_options lo = { .keep = keep | load_keep_for(o), .sink = o->messages ? NULL : &sink };
    if (load_model(r, m, &lo, err, errsz) != 0)
        return -1;
    if (o->gpu && !o->messages && stats_build_gpu(s, m) != 0) {
        snprintf(err, errsz, "out of memory for the GPU zones' statistics");
        return -1;
    }
    return 0;
}

int csv_write(const tf_model *m, tf_stats *s, const csv_options *o, FILE *out)
{
    if (o->messages)
        return write_messages(m, o, out);
    name_filter f;
    int rc;
    if (filter_init(&f, o) != 0)
        return -1;
    if (o->gpu)
        rc = write_gpu(m, s, o, &f, out);
    else if (o->unwrap)
        rc = write_unwrap(m, s, o, &f, out);
    else
        rc = write_statistics(m, s, o, &f, out);
    free(f.owned);
    return rc;
}
