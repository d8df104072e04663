/* model_plots.c - plots: user plot values and configuration, the system
 * CPU-usage plot and power plots. */
#include "model.h"

#include <math.h>


enum { FMT_NUMBER = 0, FMT_MEMORY = 1, FMT_PERCENTAGE = 2, FMT_WATT = 3 };

static plot_t *new_plot(model_t *m, uint64_t name, uint8_t type, uint8_t format)
{
    plot_t *p = xcalloc(1, sizeof *p);
    p->name = name;
    p->type = type;
    p->format = format;
    p->fill = 1;
    if (m->nplots == m->plots_cap)
        m->plots = grow_array(m->plots, sizeof *m->plots, &m->plots_cap, m->nplots + 1);
    m->plots[m->nplots++] = p;
    return p;
}

static void insert_point(plot_t *p, int64_t time, double val)
{
    if (p->points.n == 0) {
        p->min = p->max = p->sum = val;
    } else {
        if (p->min > val) p->min = val;
        else if (p->max < val) p->max = val;
        p->sum += val;
    }
    plot_point_t pt = { time, val };
    VEC_PUSH(p->points, pt);
}

/* Retrieve: the plot for a name pointer, created (with a PlotName query)
 * on first sight. */
static plot_t *retrieve_plot(model_t *m, uint64_t name)
{
    int64_t id = discovery_find(&m->plot_disc, name);
    if (id >= 0) return m->plots[id];
    plot_t *p = new_plot(m, name, PLOT_USER, FMT_NUMBER);
    discovery_add_pending(&m->plot_disc, name, (uint32_t)(m->nplots - 1));
    queryq_push(m->queries, SQ_PLOT_NAME, name, 0);
    return p;
}

void model_plot_name(model_t *m, uint64_t ptr, const uint8_t *s, size_t n)
{
    query_credit(m->queries);
    uint32_t str = model_store_string(m, s, n);
    int64_t item;
    int64_t into = discovery_resolve(m, &m->plot_disc, ptr, str, &item);
    if (into < 0) return;
    plot_t *dst = m->plots[into], *src = m->plots[item];
    for (size_t i = 0; i < src->points.n; i++) insert_point(dst, src->points.v[i].time, src->points.v[i].val);
    src->points.n = 0;
}

void model_plot_data(model_t *m, uint64_t name, int64_t ticks, double val)
{
    /* Non-finite values are dropped (the decoder already advanced the time
     * reference, unlike upstream). */
    if (!isfinite(val)) return;
    plot_t *p = retrieve_plot(m, name);
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    insert_point(p, t, val);
}

void model_plot_config(model_t *m, uint64_t name, uint8_t type, uint8_t step, uint8_t fill, uint32_t color)
{
    plot_t *p = retrieve_plot(m, name);
    p->format = type;
    p->show_steps = step;
    p->fill = fill;
    p->color = color & 0xFFFFFF;
}

void model_sys_time(model_t *m, int64_t ticks, float val)
{
    const int64_t t = model_time(m, ticks);
    model_raise_time(m, t);
    if (!m->systime_plot) {
        new_plot(m, 0, PLOT_SYSTIME, FMT_PERCENTAGE);
        VEC_PUSH(m->plot_disc.order, (uint32_t)(m->nplots - 1));
        m->systime_plot = (uint32_t)m->nplots;
    }
    insert_point(m->plots[m->systime_plot - 1], t, val);
}

void model_sys_power(model_t *m, int64_t ticks, uint64_t delta, uint64_t name)
{
    const int64_t t = model_time(m, ticks);
    /* One power plot per name; the first report only records its time. */
    uint64_t *v = hmap_get(&m->power_map, name);
    if (!v) {
        model_check_string(m, name);
        plot_t *p = new_plot(m, name, PLOT_POWER, FMT_WATT);
        VEC_PUSH(m->plot_disc.order, (uint32_t)(m->nplots - 1));
        hmap_put(&m->power_map, name, m->nplots - 1, NULL);
        VEC_PUSH(m->power_last, t);
        p->power_slot = (uint32_t)m->power_last.n;
        return;
    }
    plot_t *p = m->plots[*v];
    int64_t *last = &m->power_last.v[p->power_slot - 1];
    const int64_t dt = sub_wrap(t, *last);
    *last = t;
    model_raise_time(m, t);
    insert_point(p, t, (double)delta * 1000.0 / (double)dt);
}
