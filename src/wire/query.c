/* query.c - query queue and flow control (see query.h). */
#include "query.h"

#include <stdlib.h>

#include "proto.h"

void queryq_init(queryq_t *q, int64_t space, query_sink_fn sink, void *ctx)
{
    *q = (queryq_t){0};
    q->space = space;
    q->sink = sink;
    q->sink_ctx = ctx;
    for (uint8_t k = 0; k < 16; k++) q->wire_of[k] = k;
    q->prio_below = SQ_DISCONNECT;
}

void queryq_set_protocol(queryq_t *q, const uint8_t wire_of[16], bool immediate)
{
    memcpy(q->wire_of, wire_of, sizeof q->wire_of);
    q->prio_below = wire_of[SQ_DISCONNECT];
    q->immediate = immediate;
}

void queryq_free(queryq_t *q)
{
    VEC_FREE(q->now);
    VEC_FREE(q->prio);
    VEC_FREE(q->normal);
}

void queryq_push(queryq_t *q, uint8_t type, uint64_t ptr, uint32_t extra)
{
    query_t x = { .type = type < 16 ? q->wire_of[type] : type, .extra = extra, .ptr = ptr };
    if (type < 16) q->issued[type]++;
    if (q->immediate && q->space > 0 && queryq_waiting(q) == 0) {
        q->space--;
        VEC_PUSH(q->now, x);
    } else if (x.type < q->prio_below) {
        VEC_PUSH(q->prio, x);
    } else {
        VEC_PUSH(q->normal, x);
    }
}

void query_encode(uint8_t out[13], uint8_t type, uint64_t ptr, uint32_t extra)
{
    out[0] = type;
    memcpy(out + 1, &ptr, 8);
    memcpy(out + 9, &extra, 4);
}

/* Encode `count` queries and hand them to the sink, 256 packets at a time. */
static void send_packets(queryq_t *q, const query_t *v, size_t count)
{
    uint8_t buf[13 * 256];
    for (size_t i = 0; i < count;) {
        const size_t chunk = count - i < 256 ? count - i : 256;
        for (size_t k = 0; k < chunk; k++) query_encode(buf + 13 * k, v[i + k].type, v[i + k].ptr, v[i + k].extra);
        if (q->sink) q->sink(q->sink_ctx, buf, 13 * chunk);
        i += chunk;
    }
    q->sent += count;
}

/* Send up to `space` queries from one queue and compact it. */
static void flush_one(queryq_t *q, query_t *v, size_t *n, size_t *head)
{
    size_t waiting = *n - *head;
    if (q->space <= 0 || waiting == 0) return;
    size_t count = waiting < (size_t)q->space ? waiting : (size_t)q->space;
    send_packets(q, v + *head, count);
    q->space -= (int64_t)count;
    *head += count;
    if (*head == *n) *n = *head = 0;
    else if (*head > 4096 && *head * 2 > *n) {
        memmove(v, v + *head, (*n - *head) * sizeof *v);
        *n -= *head;
        *head = 0;
    }
}

/* Send the queries immediate mode took (their space already counted). */
static void flush_now(queryq_t *q)
{
    send_packets(q, q->now.v, q->now.n);
    q->now.n = 0;
}

void queryq_flush(queryq_t *q)
{
    flush_now(q);
    flush_one(q, q->prio.v, &q->prio.n, &q->prio_head);
    flush_one(q, q->normal.v, &q->normal.n, &q->normal_head);
}

size_t queryq_waiting(const queryq_t *q)
{
    return (q->prio.n - q->prio_head) + (q->normal.n - q->normal_head);
}

int64_t query_space_for_sndbuf(size_t sndbuf)
{
    size_t n = sndbuf / PROTO_QUERY_PACKET_SIZE;
    if (n > 8192) n = 8192;
    return (int64_t)n - 4;
}
