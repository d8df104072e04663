/* model_callstacks.c - call stacks and everything resolved from them:
 * frames (CallstackFrameSize/CallstackFrame answers), symbols, symbol code,
 * the per-thread and serial call-stack slots, and call-stack samples. */
#include "model.h"

#include <stdlib.h>

#include "disasm.h"

/* Files whose frame is dropped when it is the innermost of several inline
 * frames: compiler intrinsics headers (as upstream does). */
static const char *const skip_subframe_files[] = {
    "/include/arm_neon.h",
    "/include/adxintrin.h",
    "/include/ammintrin.h",
    "/include/amxbf16intrin.h",
    "/include/amxint8intrin.h",
    "/include/amxtileintrin.h",
    "/include/avx2intrin.h",
    "/include/avx5124fmapsintrin.h",
    "/include/avx5124vnniwintrin.h",
    "/include/avx512bf16intrin.h",
    "/include/avx512bf16vlintrin.h",
    "/include/avx512bitalgintrin.h",
    "/include/avx512bwintrin.h",
    "/include/avx512cdintrin.h",
    "/include/avx512dqintrin.h",
    "/include/avx512erintrin.h",
    "/include/avx512fintrin.h",
    "/include/avx512ifmaintrin.h",
    "/include/avx512ifmavlintrin.h",
    "/include/avx512pfintrin.h",
    "/include/avx512vbmi2intrin.h",
    "/include/avx512vbmi2vlintrin.h",
    "/include/avx512vbmiintrin.h",
    "/include/avx512vbmivlintrin.h",
    "/include/avx512vlbwintrin.h",
    "/include/avx512vldqintrin.h",
    "/include/avx512vlintrin.h",
    "/include/avx512vnniintrin.h",
    "/include/avx512vnnivlintrin.h",
    "/include/avx512vp2intersectintrin.h",
    "/include/avx512vp2intersectvlintrin.h",
    "/include/avx512vpopcntdqintrin.h",
    "/include/avx512vpopcntdqvlintrin.h",
    "/include/avxintrin.h",
    "/include/avxvnniintrin.h",
    "/include/bmi2intrin.h",
    "/include/bmiintrin.h",
    "/include/bmmintrin.h",
    "/include/cetintrin.h",
    "/include/cldemoteintrin.h",
    "/include/clflushoptintrin.h",
    "/include/clwbintrin.h",
    "/include/clzerointrin.h",
    "/include/emmintrin.h",
    "/include/enqcmdintrin.h",
    "/include/f16cintrin.h",
    "/include/fma4intrin.h",
    "/include/fmaintrin.h",
    "/include/fxsrintrin.h",
    "/include/gfniintrin.h",
    "/include/hresetintrin.h",
    "/include/ia32intrin.h",
    "/include/immintrin.h",
    "/include/keylockerintrin.h",
    "/include/lwpintrin.h",
    "/include/lzcntintrin.h",
    "/include/mmintrin.h",
    "/include/movdirintrin.h",
    "/include/mwaitxintrin.h",
    "/include/nmmintrin.h",
    "/include/pconfigintrin.h",
    "/include/pkuintrin.h",
    "/include/pmmintrin.h",
    "/include/popcntintrin.h",
    "/include/prfchwintrin.h",
    "/include/rdseedintrin.h",
    "/include/rtmintrin.h",
    "/include/serializeintrin.h",
    "/include/sgxintrin.h",
    "/include/shaintrin.h",
    "/include/smmintrin.h",
    "/include/tbmintrin.h",
    "/include/tmmintrin.h",
    "/include/tsxldtrkintrin.h",
    "/include/uintrintrin.h",
    "/include/vaesintrin.h",
    "/include/vpclmulqdqintrin.h",
    "/include/waitpkgintrin.h",
    "/include/wbnoinvdintrin.h",
    "/include/wmmintrin.h",
    "/include/x86gprintrin.h",
    "/include/x86intrin.h",
    "/include/xmmintrin.h",
    "/include/xopintrin.h",
    "/include/xsavecintrin.h",
    "/include/xsaveintrin.h",
    "/include/xsaveoptintrin.h",
    "/include/xsavesintrin.h",
    "/include/xtestintrin.h",
    "/bits/atomic_base.h",
    "/atomic",
};

/* CallstackFrameId of a native address (sel = 0): the low 62 bits. */
static uint64_t pack_pointer(uint64_t ptr) { return ptr & 0x3FFFFFFFFFFFFFFFULL; }
/* The address back from a packed id: bits 60-61 are copied into 62-63. */
static uint64_t canonical_pointer(uint64_t id)
{
    return (id & 0x3FFFFFFFFFFFFFFFULL) | ((id & 0x3000000000000000ULL) << 2);
}
#define FRAME_SEL_CUSTOM (1ULL << 62)
/* frame_map values besides frame_data index + 1 */
#define FRAME_ASKED 0
#define FRAME_ANSWERING UINT64_MAX

/* QueryCallstackFrame: ask how an address resolves, once per address
 * (76+); the servers before ask again while no answer is stored. */
static void query_frame(model_t *m, uint64_t addr)
{
    bool fresh;
    const uint64_t *v = hmap_put(&m->frame_map, pack_pointer(addr), FRAME_ASKED, &fresh);
    if (!fresh && (m->rules.frame_query_once || *v != FRAME_ASKED)) return;
    m->pending_frames++;
    queryq_push(m->queries, SQ_CALLSTACK_FRAME, addr, 0);
}

/* Intern a call stack (frame ids, innermost first). Returns its index and
 * whether it is new. */
/* Call stacks are keyed by a hash of their frame ids' bytes. A payload's
 * raw addresses are the same bytes as its ids unless a frame has one of
 * the two top bits set (kernel addresses), so the lookup from raw bytes
 * finds every user-space stack without converting it; the rest take the
 * converting path, which finds them too. */
static uint64_t frames_hash(const model_t *m, const uint64_t *ids, size_t n)
{
    return hash_bytes(&m->content_key, ids, n * 8);
}

/* The call stack with these raw addresses, if known (else -1). */
static int64_t find_callstack_raw(const model_t *m, const uint8_t *p, size_t n)
{
    for (uint64_t key = hash_bytes(&m->content_key, p, n * 8);; key++) {
        const uint64_t *v = hmap_get(&m->callstack_map, key);
        if (!v) return -1;
        const uint64_t *cs = m->callstacks.v[*v];
        if (cs[0] == n && memcmp(cs + 1, p, n * 8) == 0) return (int64_t)*v;
    }
}

static uint32_t intern_callstack(model_t *m, const uint64_t *ids, size_t n, bool *fresh)
{
    uint64_t key = frames_hash(m, ids, n);
    for (;; key++) {
        uint64_t *v = hmap_get(&m->callstack_map, key);
        if (!v) break;
        const uint64_t *cs = m->callstacks.v[*v];
        if (cs[0] == n && memcmp(cs + 1, ids, n * 8) == 0) {
            *fresh = false;
            return (uint32_t)*v;
        }
    }
    uint64_t *cs = xmalloc((n + 1) * 8);
    model_block_resized(m, 0, (n + 1) * 8);
    cs[0] = n;
    if (n) memcpy(cs + 1, ids, n * 8);
    uint32_t idx = (uint32_t)m->callstacks.n;
    VEC_PUSH(m->callstacks, cs);
    hmap_put(&m->callstack_map, key, idx, NULL);
    *fresh = true;
    return idx;
}

/* The cs_recent slot of a payload's frames: the products of its 16-byte
 * blocks, each block's words XORed with constants (the first's moved by
 * its position), summed (independent multiplications, where a hash chains
 * them), then folded. Unkeyed: payloads a client makes collide only take
 * the keyed look-up after, as any miss does. */
static inline size_t recent_slot(const uint8_t *p, size_t n)
{
    uint64_t h = (uint64_t)n * 0x1D8E4E27C47D124FULL;
    size_t i = 0;
    for (; i + 1 < n; i += 2)
        h += fold_mul(ld64(p + 8 * i) ^ (0x9E3779B97F4A7C15ULL + i), ld64(p + 8 * i + 8) ^ 0xC2B2AE3D27D4EB4FULL);
    if (i < n) h += fold_mul(ld64(p + 8 * i) ^ 0x165667B19E3779F9ULL, h | 1);
    return (size_t)((h ^ h >> 31) * 0xBF58476D1CE4E5B9ULL >> 52) & (CS_RECENT - 1);
}

void model_callstack_payload(model_t *m, const uint8_t *p, size_t n)
{
    if (m->pending_callstack) model_failure(m, "a staged call stack was never used");
    const size_t count = n / 8;
    m->pending_callstack = 0;
    if (count == 0) {
        model_failure(m, "call stack payload of %zu bytes holds no frame (dropped)", n);
        return;
    }
    /* Most payloads repeat a known stack: first where a cheap signature
     * of the bytes last put it, then by their keyed hash; neither copies. */
    cs_recent_t *r = &m->cs_recent[recent_slot(p, count)];
    if (r->frames && r->n == count && memcmp(r->frames, p, count * 8) == 0) {
        m->pending_callstack = r->idx;
        return;
    }
    const int64_t known = find_callstack_raw(m, p, count);
    if (known >= 0) {
        m->pending_callstack = (uint32_t)known;
        *r = (cs_recent_t){ .frames = m->callstacks.v[known] + 1, .n = (uint32_t)count, .idx = (uint32_t)known };
        return;
    }
    VEC_RESERVE(m->cs_scratch, count);
    uint64_t *ids = m->cs_scratch.v;
    for (size_t i = 0; i < count; i++) ids[i] = pack_pointer(ld64(p + 8 * i));
    bool fresh;
    uint32_t idx = intern_callstack(m, ids, count, &fresh);
    if (fresh)
        for (size_t i = 0; i < count; i++) query_frame(m, canonical_pointer(ids[i]));
    m->pending_callstack = idx;
}

/* A payload the decoder thread numbered: a number seen before names its
 * stack without looking at the bytes. */
void model_callstack_payload_seen(model_t *m, uint64_t number, const uint8_t *p, size_t n)
{
    if (number < m->cs_numbered.n && m->cs_numbered.v[number]) {
        if (m->pending_callstack) model_failure(m, "a staged call stack was never used");
        m->pending_callstack = m->cs_numbered.v[number];
        return;
    }
    model_callstack_payload(m, p, n);
    if (number >= (uint64_t)UINT32_MAX) return;
    if (number >= m->cs_numbered.n) {
        VEC_RESERVE(m->cs_numbered, (size_t)number + 1);
        memset(m->cs_numbered.v + m->cs_numbered.n, 0,
               ((size_t)number + 1 - m->cs_numbered.n) * sizeof *m->cs_numbered.v);
        m->cs_numbered.n = (size_t)number + 1;
    }
    m->cs_numbered.v[number] = m->pending_callstack;
}

/* A frame of an allocated (Lua-style) call stack: interned by content,
 * numbered in its own id space (sel = 1), resolved on the spot. */
static uint64_t custom_frame(model_t *m, uint32_t line, uint32_t name, uint32_t file)
{
    uint64_t k[3] = { line, name, file };
    uint64_t key = hash_bytes(&m->content_key, k, sizeof k);
    for (;; key++) {
        uint64_t *v = hmap_get(&m->custom_frame_map, key);
        if (!v) break;
        uint64_t *fd = hmap_get(&m->frame_map, *v);
        const cs_frame_t *f = fd && *fd ? m->frame_data.v[*fd - 1].frames : NULL;
        if (f && f->line == line && f->name == name && f->file == file) return *v;
    }
    uint64_t id = (m->next_custom_frame++ & 0x3FFFFFFFFFFFFFFFULL) | FRAME_SEL_CUSTOM;
    cs_frame_data_t fd = { .id = id, .image = 0, .size = 1 };
    fd.frames = xmalloc(sizeof *fd.frames);
    model_block_resized(m, 0, sizeof *fd.frames);
    fd.frames[0] = (cs_frame_t){ .name = name, .file = file, .line = line, .sym_addr = 0 };
    VEC_PUSH(m->frame_data, fd);
    hmap_put(&m->frame_map, id, m->frame_data.n, NULL);
    hmap_put(&m->custom_frame_map, key, id, NULL);
    return id;
}

void model_callstack_alloc_payload(model_t *m, const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n;
    if (n < 1) {
        model_failure(m, "empty allocated call stack payload");
        return;
    }
    uint8_t count = *p++;
    uint64_t ids[64 + 256];
    size_t k = 0;
    for (uint8_t i = 0; i < count && k < 64; i++) {
        if (end - p < 6) break;
        uint32_t line = ld32(p);
        uint16_t a = ld16(p + 4);
        p += 6;
        if (end - p < a + 2) break;
        uint32_t name = model_store_string(m, p, a);
        p += a;
        uint16_t b = ld16(p);
        p += 2;
        if (end - p < b) break;
        uint32_t file = model_store_string(m, p, b);
        p += b;
        ids[k++] = custom_frame(m, line, name, file);
    }
    if (k == 0 && !m->pending_callstack) {
        model_failure(m, "allocated call stack payload of %zu bytes holds no whole frame (dropped)", n);
        return;
    }
    size_t total = k;
    uint64_t *all = ids;
    uint64_t *joined = NULL;
    if (m->pending_callstack) {
        const uint64_t *native = m->callstacks.v[m->pending_callstack];
        joined = xmalloc((k + native[0] + 1) * 8);
        memcpy(joined, ids, k * 8);
        memcpy(joined + k, native + 1, native[0] * 8);
        total = k + native[0];
        all = joined;
    }
    bool fresh;
    uint32_t idx = intern_callstack(m, all, total, &fresh);
    /* 76 also asked for its own frames' ids, as if they were addresses */
    if (fresh)
        for (size_t i = 0; i < total; i++)
            if (!(all[i] & FRAME_SEL_CUSTOM) || m->rules.query_alloc_frames) query_frame(m, canonical_pointer(all[i]));
    free(joined);
    m->pending_callstack = idx;
}

void model_callstack(model_t *m)
{
    thread_t *t = model_current_thread(m);
    if (!m->pending_callstack) model_failure(m, "Callstack without a call stack payload");
    t->next_callstack = m->pending_callstack;
    m->pending_callstack = 0;
}

void model_callstack_serial(model_t *m)
{
    if (!m->pending_callstack) model_failure(m, "CallstackSerial without a call stack payload");
    m->serial_callstack = m->pending_callstack;
    m->pending_callstack = 0;
}

/* ---- frame resolution answers ------------------------------------------------ */

void model_callstack_frame_size(model_t *m, uint64_t ptr, uint8_t size)
{
    query_credit(m->queries);
    m->pending_subframes = size;
    int64_t image = model_take_single_string(m);
    uint64_t *v = hmap_get(&m->frame_map, pack_pointer(ptr));
    /* An answer to a question still open settles it. An answer nobody here
     * asked for (a replayed stream, or upstream's own disassembly queries)
     * is kept all the same; a duplicate is walked over. */
    /* Before 76 an address may be asked several times: every answer settles
     * one question, the first stores it, the later ones are walked over. */
    const bool once = m->rules.frame_query_once;
    if (!once && m->pending_frames) m->pending_frames--;
    if (!v) v = hmap_put(&m->frame_map, pack_pointer(ptr), FRAME_ANSWERING, NULL);
    else if (*v == FRAME_ASKED) {
        if (once) m->pending_frames--;
    }
    else v = NULL;
    m->staging_active = v != NULL;
    if (!m->staging_active) return;
    /* An empty answer stores nothing: before 76 the address is asked
     * again when met again. */
    *v = size || once ? FRAME_ANSWERING : FRAME_ASKED;
    if (size == 0) return;
    free(m->staging_frame.frames);
    m->staging_frame = (cs_frame_data_t){ .id = pack_pointer(ptr), .size = size };
    m->staging_frame.image = image >= 0 ? (uint32_t)image + 1 : 0;
    m->staging_frame.frames = xcalloc(size, sizeof *m->staging_frame.frames);
    m->staging_ptr = ptr;
}

static bool skip_subframe(const char *file)
{
    size_t flen = strlen(file);
    for (size_t i = 0; i < sizeof skip_subframe_files / sizeof skip_subframe_files[0]; i++) {
        size_t len = strlen(skip_subframe_files[i]);
        if (flen >= len && memcmp(file + flen - len, skip_subframe_files[i], len) == 0) return true;
    }
    return false;
}

void model_callstack_frame(model_t *m, uint32_t line, uint64_t sym_addr, uint32_t sym_len)
{
    int64_t name = model_take_single_string(m);
    int64_t file = model_take_second_string(m);
    if (m->pending_subframes == 0) {
        model_failure(m, "CallstackFrame that no CallstackFrameSize announced");
        return;
    }
    if (!m->staging_active) {
        m->pending_subframes--;
        return;
    }
    if (name < 0) name = model_store_string(m, "", 0);
    if (file < 0) file = model_store_string(m, "", 0);
    cs_frame_data_t *st = &m->staging_frame;
    uint32_t idx = st->size - m->pending_subframes;
    if (m->pending_subframes > 1 && idx == 0 && skip_subframe(strtab_get(&m->strings, (uint32_t)file))) {
        m->pending_subframes--;
        st->size--;
        return;
    }
    st->frames[idx] = (cs_frame_t){ .name = (uint32_t)name, .file = (uint32_t)file, .line = line,
                                    .sym_addr = sym_addr };
    if (sym_addr && !hmap_get(&m->symbol_map, sym_addr) && !hmap_get(&m->pending_symbols, sym_addr)) {
        symbol_pending_t sp = { .name = (uint32_t)name + 1, .image = st->image, .file = (uint32_t)file + 1,
                                .line = line, .size = sym_len, .is_inline = idx < (uint32_t)st->size - 1 };
        hmap_put(&m->pending_symbols, sym_addr, m->symbols_pending.n, NULL);
        VEC_PUSH(m->symbols_pending, sp);
        queryq_push(m->queries, SQ_SYMBOL, sym_addr, 0);
    }
    if (!hmap_get(&m->checked_file_idx, (uint64_t)file)) model_cache_source_idx(m, (uint32_t)file, st->image);

    if (--m->pending_subframes == 0) {
        model_block_resized(m, 0, st->size * sizeof *st->frames);
        VEC_PUSH(m->frame_data, *st);
        *hmap_get(&m->frame_map, st->id) = m->frame_data.n;
        hmap_put(&m->code_symbol_map, m->staging_ptr, st->frames[0].sym_addr, NULL);
        st->frames = NULL;
        m->staging_active = false;
    }
}

void model_symbol_information(model_t *m, uint32_t line, uint64_t sym_addr)
{
    query_credit(m->queries);
    int64_t file = model_take_single_string(m);
    uint64_t *pv = hmap_get(&m->pending_symbols, sym_addr);
    if (!pv) return;
    symbol_pending_t sp = m->symbols_pending.v[*pv];
    hmap_del(&m->pending_symbols, sym_addr);
    if (file < 0) file = model_store_string(m, "", 0);
    symbol_t s = { .name = sp.name, .file = (uint32_t)file + 1, .line = line, .image = sp.image,
                   .call_file = sp.file, .call_line = sp.line, .is_inline = sp.is_inline, .size = sp.size };
    hmap_put(&m->symbol_map, sym_addr, m->symbols.n, NULL);
    VEC_PUSH(m->symbols, s);
    VEC_PUSH(m->symbol_addrs, sym_addr);
    if (m->code_transfer && sp.size > 0 && sp.size <= 128 * 1024) {
        m->pending_symbol_code++;
        hmap_put(&m->pending_code, sym_addr, 0, NULL);
        queryq_push(m->queries, SQ_SYMBOL_CODE, sym_addr, sp.size);
    }
    if (!hmap_get(&m->checked_file_idx, (uint64_t)file)) model_cache_source_idx(m, (uint32_t)file, sp.image);
    if (m->pending_symbols.n == 0) m->symbols_pending.n = 0;
}

static void on_code_address(void *ctx, uint64_t addr)
{
    query_frame(ctx, addr);
}

void model_symbol_code(model_t *m, uint64_t ptr, const uint8_t *p, size_t n)
{
    query_credit(m->queries);
    if (hmap_del(&m->pending_code, ptr)) m->pending_symbol_code--;
    bool fresh;
    hmap_put(&m->symbol_code_map, ptr, m->symbol_code.n, &fresh);
    if (!fresh) return;
    bytes_t code = {0};
    bytes_put(&code, p, n);
    model_block_resized(m, 0, code.cap);
    VEC_PUSH(m->symbol_code_addrs, ptr);
    VEC_PUSH(m->symbol_code, code);
    /* Like upstream, ask how every instruction and every direct branch
     * target resolves, so the source and assembly views have them. */
    disasm_code(m->cpu_arch, p, n, ptr, on_code_address, m);
}

void model_symbol_code_unavailable(model_t *m)
{
    /* The answer names no address: one of the open requests is settled. */
    query_credit(m->queries);
    if (m->pending_symbol_code) m->pending_symbol_code--;
}

/* ---- samples -------------------------------------------------------------------- */

/* MergeCallstacks: the frames of both, as one (new or known) call stack. */
static uint32_t merge_callstacks(model_t *m, uint32_t first, uint32_t second)
{
    const uint64_t *a = m->callstacks.v[first], *b = m->callstacks.v[second];
    const size_t n = a[0] + b[0];
    uint64_t *ids = xmalloc((n ? n : 1) * 8);
    memcpy(ids, a + 1, a[0] * 8);
    memcpy(ids + a[0], b + 1, b[0] * 8);
    bool fresh;
    uint32_t idx = intern_callstack(m, ids, n, &fresh);
    free(ids);
    return idx;
}

/* Add a sample to a thread's list: in time order when it can be; a sample
 * at the time of an existing one merges its call stack into it. */
static void insert_sample(model_t *m, thread_t *t, sample_t s)
{
    if (t->samples.n && s.time != 0 && t->samples.v[t->samples.n - 1].time >= s.time) {
        size_t lo = 0, hi = t->samples.n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (t->samples.v[mid].time < s.time) lo = mid + 1;
            else hi = mid;
        }
        if (lo < t->samples.n && t->samples.v[lo].time == s.time) {
            t->samples.v[lo].callstack = merge_callstacks(m, t->samples.v[lo].callstack, s.callstack);
            return;
        }
        t->samples_unsorted = true;
    }
    VEC_PUSH(t->samples, s);
    const uint64_t *cs = m->callstacks.v[s.callstack];
    if (cs[0] && (canonical_pointer(cs[1]) >> 63) && !(cs[1] & FRAME_SEL_CUSTOM)) t->kernel_samples++;
    m->samples_total++;
}

void model_callstack_sample(model_t *m, uint32_t thread, int64_t ticks, bool ctx_switch)
{
    uint32_t cs = m->pending_callstack;
    m->pending_callstack = 0;
    if (!cs) {
        model_failure(m, "call stack sample without a call stack");
        return;
    }
    const int64_t t = ticks == 0 ? 0 : model_time(m, ticks);
    if (m->rules.samples_raise_time) model_raise_time(m, t);
    thread_t *td = model_notice_thread(m, thread);
    sample_t s = { .time = t, .callstack = cs };
    if (ctx_switch) {
        insert_sample(m, td, s);
        VEC_PUSH(td->ctx_switch_samples, s);
        return;
    }
    if (m->combine_samples && t != 0) {
        /* Windows sends kernel and user halves as two samples at one time. */
        if (td->pending_sample.time == 0) {
            td->pending_sample = s;
        } else if (td->pending_sample.time == t) {
            s.callstack = merge_callstacks(m, td->pending_sample.callstack, cs);
            insert_sample(m, td, s);
            td->pending_sample.time = 0;
        } else {
            insert_sample(m, td, td->pending_sample);
            td->pending_sample = s;
        }
        return;
    }
    insert_sample(m, td, s);
}
