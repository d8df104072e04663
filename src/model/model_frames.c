/* model_frames.c - frame sets (FrameMark, FrameMarkStart/End, FrameVsync,
 * frame images) and the name-discovery helper shared with plots. */
#include "model.h"

#include <stdlib.h>


/* ---- name discovery (upstream's StringDiscovery) --------------------------- */

/* The item named by pointer `name`, or -1 if unknown. */
int64_t discovery_find(const discovery_t *d, uint64_t name)
{
    uint64_t *v = hmap_get(&d->named, name);
    if (!v) v = hmap_get(&d->pending, name);
    return v ? (int64_t)*v : -1;
}

/* Register a new item as waiting for its name. */
void discovery_add_pending(discovery_t *d, uint64_t name, uint32_t item)
{
    hmap_put(&d->pending, name, item, NULL);
}

/* The name of a pending item arrived. Returns the item the pending one must
 * be merged into, or -1 when it becomes a new entry of the ordered list.
 * *item receives the pending item; -2 means the answer matched nothing. */
int64_t discovery_resolve(model_t *m, discovery_t *d, uint64_t name, uint32_t str, int64_t *item)
{
    uint64_t *pv = hmap_get(&d->pending, name);
    if (!pv) {
        *item = -2;
        return -1;
    }
    uint32_t pending = (uint32_t)*pv;
    hmap_del(&d->pending, name);
    *item = pending;
    uint64_t *existing = hmap_get(&d->by_string, str);
    if (existing) {
        hmap_put(&d->named, name, *existing, NULL);
        return (int64_t)*existing;
    }
    hmap_put(&d->named, name, pending, NULL);
    hmap_put(&d->by_string, str, pending, NULL);
    VEC_PUSH(d->order, pending);
    /* the name pointer now reads as this string (unless already known) */
    hmap_put(&m->ptr_strings, name, (uint64_t)str + 1, NULL);
    return -1;
}

/* ---- frame sets ------------------------------------------------------------ */

static uint32_t new_frameset(model_t *m, uint64_t name, bool continuous)
{
    frameset_t *f = xcalloc(1, sizeof *f);
    f->name = name;
    f->continuous = continuous;
    if (m->nframesets == m->framesets_cap)
        m->framesets = grow_array(m->framesets, sizeof *m->framesets, &m->framesets_cap, m->nframesets + 1);
    m->framesets[m->nframesets] = f;
    return (uint32_t)m->nframesets++;
}

static void merge_frames(frameset_t *dst, frameset_t *src)
{
    /* Stable merge by start time; frames of dst come first on ties. */
    size_t na = dst->frames.n, nb = src->frames.n;
    frame_t *out = xmalloc((na + nb) * sizeof *out);
    size_t i = 0, j = 0, k = 0;
    while (i < na && j < nb)
        out[k++] = src->frames.v[j].start < dst->frames.v[i].start ? src->frames.v[j++] : dst->frames.v[i++];
    while (i < na) out[k++] = dst->frames.v[i++];
    while (j < nb) out[k++] = src->frames.v[j++];
    free(dst->frames.v);
    dst->frames.v = out;
    dst->frames.n = dst->frames.cap = na + nb;
    src->frames.n = 0;
}

void model_frame_name(model_t *m, uint64_t ptr, const uint8_t *p, size_t n)
{
    query_credit(m->queries);
    uint32_t str = model_store_string(m, p, n);
    int64_t item;
    int64_t into = discovery_resolve(m, &m->frame_disc, ptr, str, &item);
    if (into >= 0) merge_frames(m->framesets[into], m->framesets[item]);
}

void model_base_frames(model_t *m, int64_t t0, int64_t t1)
{
    if (m->nframesets == 0) {
        uint32_t id = new_frameset(m, 0, true);
        discovery_add_pending(&m->frame_disc, 0, id);
        uint32_t str = model_store_string(m, "Frame", 5);
        int64_t item;
        discovery_resolve(m, &m->frame_disc, 0, str, &item);
    }
    frameset_t *f = m->framesets[0];
    frame_t fr = { .start = t0, .end = -1, .image = -1 };
    VEC_PUSH(f->frames, fr);
    if (t1 != INT64_MIN) {
        fr.start = t1;
        VEC_PUSH(f->frames, fr);
    }
}

/* Retrieve: the frame set named `name`, created (with a FrameName query)
 * on first sight when `create` says how. */
static frameset_t *retrieve_frameset(model_t *m, uint64_t name, int create_continuous)
{
    int64_t id = discovery_find(&m->frame_disc, name);
    if (id >= 0) return m->framesets[id];
    if (create_continuous < 0) return NULL;
    uint32_t nid = new_frameset(m, name, create_continuous);
    discovery_add_pending(&m->frame_disc, name, nid);
    queryq_push(m->queries, SQ_FRAME_NAME, name, 0);
    return m->framesets[nid];
}

void model_frame_mark(model_t *m, int64_t ticks, uint64_t name)
{
    frameset_t *f = retrieve_frameset(m, name, 1);
    int32_t image = -1;
    if (name == 0) {
        uint64_t *v = hmap_get(&m->frame_image_staging, f->frames.n);
        if (v) {
            image = (int32_t)*v;
            hmap_del(&m->frame_image_staging, f->frames.n);
        }
    }
    const int64_t t = model_time(m, ticks);
    if (!f->continuous) {
        model_failure(m, "FrameMark on the discontinuous frame set %#llx", (unsigned long long)name);
        return;
    }
    frame_t fr = { .start = t, .end = -1, .image = image };
    VEC_PUSH(f->frames, fr);
    model_raise_time(m, t);
}

void model_frame_mark_start(model_t *m, int64_t ticks, uint64_t name)
{
    frameset_t *f = retrieve_frameset(m, name, 0);
    const int64_t t = model_time(m, ticks);
    if (f->continuous) {
        model_failure(m, "FrameMarkStart on the continuous frame set %#llx", (unsigned long long)name);
        return;
    }
    frame_t fr = { .start = t, .end = -1, .image = -1 };
    VEC_PUSH(f->frames, fr);
    model_raise_time(m, t);
}

void model_frame_mark_end(model_t *m, int64_t ticks, uint64_t name)
{
    /* 64 created an unknown name's (discontinuous) set first, then failed */
    frameset_t *f = retrieve_frameset(m, name, m->rules.frame_end_creates_set ? 0 : -1);
    if (!f || f->frames.n == 0 || f->continuous) {
        if (!m->ignore_frame_end_faults)
            model_failure(m, "FrameMarkEnd without a matching FrameMarkStart (name %#llx)",
                          (unsigned long long)name);
        return;
    }
    const int64_t t = model_time(m, ticks);
    f->frames.v[f->frames.n - 1].end = t;
    model_raise_time(m, t);
}

void model_frame_vsync(model_t *m, int64_t ticks, uint32_t id)
{
    uint64_t *v = hmap_get(&m->vsync_map, id);
    uint32_t fid;
    if (v) {
        fid = (uint32_t)*v;
    } else {
        fid = new_frameset(m, (uint64_t)m->vsync_map.n | 0x8000000000000000ULL, true);
        VEC_PUSH(m->frame_disc.order, fid);
        hmap_put(&m->vsync_map, id, fid, NULL);
    }
    const int64_t t = model_time(m, ticks);
    frame_t fr = { .start = t, .end = -1, .image = -1 };
    VEC_PUSH(m->framesets[fid]->frames, fr);
    model_raise_time(m, t);
}

/* ---- frame images ------------------------------------------------------------ */

/* The client's DXT1 blocks use index values 0..3 where standard BC1 uses
 * 1, 3, 2, 0: rewrite the 16 two-bit indices of each 8-byte block. */
static void fix_bc1_order(uint8_t *p, size_t blocks)
{
    static const uint8_t map[4] = { 1, 3, 2, 0 };
    for (size_t b = 0; b < blocks; b++, p += 8) {
        uint32_t idx = ld32(p + 4), out = 0;
        for (int i = 0; i < 16; i++) out |= (uint32_t)map[(idx >> (2 * i)) & 3] << (2 * i);
        memcpy(p + 4, &out, 4);
    }
}

void model_frame_image_data(model_t *m, const uint8_t *p, size_t n)
{
    if (m->image_staged) model_failure(m, "a staged frame image was never used");
    m->image_data.n = 0;
    bytes_put(&m->image_data, p, n);
    fix_bc1_order(m->image_data.p, n / 8);
    m->image_staged = true;
}

void model_frame_image(model_t *m, uint32_t frame, uint16_t w, uint16_t h, uint8_t flip)
{
    if (!m->image_staged) {
        model_failure(m, "FrameImage without image data");
        return;
    }
    m->image_staged = false;
    const int64_t fidx = add_wrap(sub_wrap((int64_t)frame, (int64_t)m->frame_offset), 1);
    if (m->on_demand && fidx <= 1) return;
    if (fidx <= 0) {
        model_failure(m, "frame image for frame %lld before the first frame", (long long)fidx);
        return;
    }
    /* DXT1 data is w*h/2 bytes; upstream would read past shorter data, and
     * padding it would let a 10-byte event write gigabytes */
    const size_t need = (size_t)w * h / 2;
    if (m->image_data.n < need) {
        model_failure(m, "frame image of %ux%u needs %zu bytes of image data, %zu arrived", w, h, need,
                      m->image_data.n);
        return;
    }
    frame_image_t img = { .w = w, .h = h, .flip = flip, .len = (uint32_t)m->image_data.n };
    img.data = (uint8_t *)xmemdup(m->image_data.p, m->image_data.n);
    model_block_resized(m, 0, m->image_data.n);
    uint32_t idx = (uint32_t)m->images.n;
    VEC_PUSH(m->images, img);

    frameset_t *base = m->framesets[0];
    if (fidx >= (int64_t)base->frames.n) {
        bool fresh;
        hmap_put(&m->frame_image_staging, (uint64_t)fidx, idx, &fresh);
        if (!fresh) model_failure(m, "two frame images for frame %lld", (long long)fidx);
    } else if (base->frames.v[fidx].image >= 0) {
        model_failure(m, "two frame images for frame %lld", (long long)fidx);
    } else {
        base->frames.v[fidx].image = (int32_t)idx;
    }
}
