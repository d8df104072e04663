/* rhorder: emulation of the slot layout of Tracy 0.14.0's bundled robin-hood
 * unordered_flat_map (u64 keys), so that iterating it in slot order gives
 * upstream's iteration order.  See rhorder.h for the API and
 * csvexport-and-fidelity.md §A.3 for the rules reproduced here:
 *   - murmur3 finaliser mix, then multiply by a per-map multiplier, fold;
 *   - info byte = infoInc * (distance + 1) + hash bits >> hashShift;
 *   - an overflow tail of min(maxAllowed, 255) slots after the buckets,
 *     probing never wraps;
 *   - growth: 8 buckets first; then first try to halve infoInc, then a
 *     same-size rebuild with a new multiplier when under half full, else
 *     doubling; rebuilds re-insert in old slot order. */
#include "rhorder.h"

#include <stdlib.h>
#include <string.h>

enum {
    INITIAL_BUCKETS = 8,
    INFO_BITS = 5,
    INITIAL_INFO_INC = 1u << INFO_BITS,
    INFO_HASH_MASK = INITIAL_INFO_INC - 1u,
    MAX_LOAD_PERCENT = 80,
};

static const uint64_t INITIAL_MULTIPLIER = UINT64_C(0xc4ceb9fe1a85ec53);
static const uint64_t MULTIPLIER_STEP = UINT64_C(0xc4ceb9fe1a85ec54);

/* Largest element count allowed for a table of n buckets. */
static size_t max_elements_for(size_t n)
{
    if (n <= SIZE_MAX / 100)
        return n * MAX_LOAD_PERCENT / 100;
    return (n / 100) * MAX_LOAD_PERCENT;
}

/* Buckets plus overflow tail. */
static size_t slots_with_buffer(size_t n)
{
    size_t extra = max_elements_for(n);
    if (extra > 0xFF)
        extra = 0xFF;
    return n + extra;
}

static size_t current_slots(const rhorder *m)
{
    return m->keys ? slots_with_buffer(m->mask + 1) : 0;
}

static void hash_key(const rhorder *m, uint64_t key, size_t *idx, uint32_t *info)
{
    uint64_t x = key;
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    uint64_t h = x * m->multiplier;
    h ^= h >> 33;
    *info = m->info_inc + (uint32_t)((h & INFO_HASH_MASK) >> m->hash_shift);
    *idx = (size_t)(h >> INFO_BITS) & m->mask;
}

void rhorder_init(rhorder *m)
{
    memset(m, 0, sizeof *m);
    m->multiplier = INITIAL_MULTIPLIER;
    m->info_inc = INITIAL_INFO_INC;
}

void rhorder_free(rhorder *m)
{
    free(m->keys);
    free(m->values);
    free(m->info);
    rhorder_init(m);
}

size_t rhorder_memory(const rhorder *m)
{
    const size_t slots = current_slots(m);
    return slots ? slots * (sizeof *m->keys + sizeof *m->values) + slots + 8 : 0;
}

/* Allocate an empty table of `buckets` buckets (upstream initData).  Only
 * modifies *m on success.  The multiplier is kept. */
static int init_table(rhorder *m, size_t buckets)
{
    size_t slots = slots_with_buffer(buckets);
    uint64_t *keys = malloc(slots * sizeof *keys);
    uint64_t *values = malloc(slots * sizeof *values);
    /* sentinel byte plus padding so the 8-byte-group halving stays inside */
    uint8_t *info = calloc(slots + 8, 1);
    if (!keys || !values || !info) {
        free(keys);
        free(values);
        free(info);
        return -1;
    }
    info[slots] = 1;
    m->keys = keys;
    m->values = values;
    m->info = info;
    m->mask = buckets - 1;
    m->count = 0;
    m->max_allowed = max_elements_for(buckets);
    m->info_inc = INITIAL_INFO_INC;
    m->hash_shift = 0;
    return 0;
}

/* Halve infoInc to make room for longer probe distances (upstream
 * try_increase_info).  Returns 1 on success, 0 if infoInc is already 2. */
static int try_increase_info(rhorder *m)
{
    if (m->info_inc <= 2)
        return 0;
    m->info_inc >>= 1;
    m->hash_shift++;
    size_t slots = current_slots(m);
    size_t groups_end = (slots + 7) & ~(size_t)7;
    for (size_t i = 0; i < groups_end; i++)
        m->info[i] >>= 1;
    m->info[slots] = 1;
    m->max_allowed = max_elements_for(m->mask + 1);
    return 1;
}

/* Move the elements in [ins, end) one slot up, bumping their distance. */
static void shift_up(rhorder *m, size_t end, size_t ins)
{
    memmove(m->keys + ins + 1, m->keys + ins, (end - ins) * sizeof *m->keys);
    memmove(m->values + ins + 1, m->values + ins, (end - ins) * sizeof *m->values);
    for (size_t idx = end; idx != ins; idx--) {
        m->info[idx] = (uint8_t)(m->info[idx - 1] + m->info_inc);
        if (m->info[idx] + m->info_inc > 0xFF)
            m->max_allowed = 0;
    }
}

/* Find the first empty slot at or after idx; returns 0 if the tail is full. */
static int find_empty(const rhorder *m, size_t *idx)
{
    size_t slots = current_slots(m);
    while (*idx < slots && m->info[*idx] != 0)
        (*idx)++;
    return *idx < slots;
}

/* Place `key`, known to be absent, during a rebuild (upstream insert_move). */
static int insert_known_new(rhorder *m, uint64_t key, uint64_t value)
{
    if (m->max_allowed == 0 && !try_increase_info(m))
        return -1;
    size_t idx;
    uint32_t info;
    hash_key(m, key, &idx, &info);
    while (info <= m->info[idx]) {
        idx++;
        info += m->info_inc;
    }
    size_t ins = idx;
    uint8_t ins_info = (uint8_t)info;
    if (ins_info + m->info_inc > 0xFF)
        m->max_allowed = 0;
    if (!find_empty(m, &idx))
        return -1;
    if (idx != ins)
        shift_up(m, idx, ins);
    m->keys[ins] = key;
    m->values[ins] = value;
    m->info[ins] = ins_info;
    m->count++;
    return 0;
}

/* Re-create the table with `buckets` buckets and re-insert every element
 * in old slot order (upstream rehashPowerOfTwo).  On failure *m is restored. */
static int rebuild(rhorder *m, size_t buckets)
{
    rhorder old = *m;
    size_t old_slots = current_slots(&old);
    if (init_table(m, buckets) != 0)
        return -1;
    for (size_t i = 0; i < old_slots; i++) {
        if (old.info[i] == 0)
            continue;
        if (insert_known_new(m, old.keys[i], old.values[i]) != 0) {
            free(m->keys);
            free(m->values);
            free(m->info);
            *m = old;
            return -1;
        }
    }
    free(old.keys);
    free(old.values);
    free(old.info);
    return 0;
}

/* Upstream increase_size. */
static int grow(rhorder *m)
{
    if (!m->keys)
        return init_table(m, INITIAL_BUCKETS);
    size_t buckets = m->mask + 1;
    size_t limit = max_elements_for(buckets);
    if (m->count < limit && try_increase_info(m))
        return 0;
    if (m->count * 2 < limit) {
        uint64_t saved = m->multiplier;
        m->multiplier += MULTIPLIER_STEP;
        if (rebuild(m, buckets) != 0) {
            m->multiplier = saved;
            return -1;
        }
        return 0;
    }
    return rebuild(m, buckets * 2);
}

int rhorder_reserve(rhorder *m, size_t n)
{
    size_t want = n > m->count ? n : m->count;
    size_t buckets = INITIAL_BUCKETS;
    while (max_elements_for(buckets) < want && buckets != 0)
        buckets *= 2;
    if (buckets == 0)
        return -1;
    if (buckets > m->mask + 1)
        return rebuild(m, buckets);
    return 0;
}

int rhorder_insert(rhorder *m, uint64_t key, uint64_t value)
{
    for (int attempt = 0; attempt < 256; attempt++) {
        if (!m->keys) {
            if (grow(m) != 0)
                return -1;
            continue;
        }
        size_t idx;
        uint32_t info;
        hash_key(m, key, &idx, &info);
        while (info < m->info[idx]) {
            idx++;
            info += m->info_inc;
        }
        while (info == m->info[idx]) {
            if (m->keys[idx] == key)
                return 0;
            idx++;
            info += m->info_inc;
        }
        if (m->count >= m->max_allowed) {
            if (grow(m) != 0)
                return -1;
            continue;
        }
        size_t ins = idx;
        uint32_t ins_info = info;
        if (ins_info + m->info_inc > 0xFF)
            m->max_allowed = 0;
        if (!find_empty(m, &idx))
            return -1;
        if (idx != ins)
            shift_up(m, idx, ins);
        m->keys[ins] = key;
        m->values[ins] = value;
        m->info[ins] = (uint8_t)ins_info;
        m->count++;
        return 1;
    }
    return -1;
}

uint64_t *rhorder_find(const rhorder *m, uint64_t key)
{
    if (!m->keys)
        return NULL;
    size_t idx;
    uint32_t info;
    hash_key(m, key, &idx, &info);
    for (;;) {
        if (info == m->info[idx] && m->keys[idx] == key)
            return &m->values[idx];
        idx++;
        info += m->info_inc;
        if (info > m->info[idx])
            return NULL;
    }
}

size_t rhorder_size(const rhorder *m)
{
    return m->count;
}

size_t rhorder_slots(const rhorder *m)
{
    return current_slots(m);
}

int rhorder_slot(const rhorder *m, size_t i, uint64_t *key, uint64_t *value)
{
    if (i >= current_slots(m) || m->info[i] == 0)
        return 0;
    if (key)
        *key = m->keys[i];
    if (value)
        *value = m->values[i];
    return 1;
}
