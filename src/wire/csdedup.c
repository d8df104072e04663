/* csdedup.c - numbering call-stack payloads ahead of the model (see
 * csdedup.h). */
#include "csdedup.h"

#include <string.h>

#include "event.h"
#include "proto.h"

void csdedup_init(csdedup_t *d, const proto_desc_t *desc)
{
    *d = (csdedup_t){0};
    hashkey_draw(&d->key);
    proto_tables_init(&d->t, desc);
    d->payload_type = d->t.wire[EV_CALLSTACK_PAYLOAD];
}

void csdedup_free(csdedup_t *d)
{
    for (size_t i = 0; i < d->payloads.n; i++) free(d->payloads.v[i]);
    VEC_FREE(d->payloads);
    hmap_free(&d->by_hash);
}

static bool same_payload(const uint8_t *known, const uint8_t *p, uint16_t n)
{
    return ld16(known) == n && memcmp(known + 2, p, n) == 0;
}

/* The number of payload bytes with this hash, from the table, given one
 * if they are new. */
static uint64_t payload_number_slow(csdedup_t *d, uint64_t hash, const uint8_t *p, uint16_t n)
{
    uint64_t key = hash;
    for (;; key++) {
        const uint64_t *v = hmap_get(&d->by_hash, key);
        if (!v) break;
        if (same_payload(d->payloads.v[*v], p, n)) return *v;
    }
    uint8_t *copy = xmalloc(2 + (size_t)n);
    memcpy(copy, &n, 2);
    if (n) memcpy(copy + 2, p, n);
    const uint64_t number = d->payloads.n;
    VEC_PUSH(d->payloads, copy);
    hmap_put(&d->by_hash, key, number, NULL);
    return number;
}

/* The number of these payload bytes: a payload seen recently is found by
 * its hash in a small direct-mapped table before the full one. */
static uint64_t payload_number(csdedup_t *d, const uint8_t *p, uint16_t n)
{
    const uint64_t hash = hash_bytes_wide(&d->key, p, n);
    csdedup_recent_t *r = &d->recent[hash % CSDEDUP_CACHE];
    if (r->number && r->hash == hash && same_payload(d->payloads.v[r->number - 1], p, n)) return r->number - 1;
    const uint64_t number = payload_number_slow(d, hash, p, n);
    *r = (csdedup_recent_t){ hash, number + 1 };
    return number;
}

#define SKIP_WITHOUT_PAYLOADS 15

size_t csdedup_frame(csdedup_t *d, uint8_t *p, size_t n)
{
    if (d->skip) {
        d->skip--;
        return 0;
    }
    size_t off = 0, found = 0;
    while (off < n) {
        size_t size = d->t.fixed[p[off]];
        if (size == 0 || size > n - off) size = event_size(&d->t, p + off, n - off, NULL, 0);
        if (size == 0) break;
        if (p[off] == d->payload_type) {
            const uint64_t number = payload_number(d, p + off + 11, ld16(p + off + 9));
            memcpy(p + off + 1, &number, 8);
            found++;
        }
        off += size;
    }
    if (!found) d->skip = SKIP_WITHOUT_PAYLOADS;
    return off;
}
