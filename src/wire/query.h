/* query.h - the server->client query queue with upstream's flow control.
 *
 * Queries wait in two FIFO queues (priority: types below 9; normal: the
 * rest) and leave only when query_flush() is called after a whole frame
 * has been processed, as many as the query space allows (protocol-82.md
 * section 4.3-4.4). Answers give space back with query_credit(). */
#ifndef TC_QUERY_H
#define TC_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* The kinds of query the server sends, numbered as protocol 82 sends them
 * (protocol-82.md section 4.2). */
enum server_query {
    SQ_TERMINATE = 0,
    SQ_STRING = 1,
    SQ_THREAD_STRING = 2,
    SQ_SOURCE_LOCATION = 3,
    SQ_PLOT_NAME = 4,
    SQ_FRAME_NAME = 5,
    SQ_PARAMETER = 6,
    SQ_FIBER_NAME = 7,
    SQ_EXTERNAL_NAME = 8,
    SQ_DISCONNECT = 9,
    SQ_CALLSTACK_FRAME = 10,
    SQ_SYMBOL = 11,
    SQ_SYMBOL_CODE = 12,
    SQ_SOURCE_CODE = 13,
    SQ_DATA_TRANSFER = 14,
    SQ_DATA_TRANSFER_PART = 15,
};
/* Queries below this value travel in the priority queue. */
#define SQ_PRIO_LIMIT 9

typedef struct {
    uint8_t type;
    uint32_t extra;
    uint64_t ptr;
} query_t;

/* Where flushed packets go: the socket, or nowhere for recorded streams. */
typedef void (*query_sink_fn)(void *ctx, const uint8_t *packets, size_t len);

typedef struct {
    VEC(query_t) prio;
    VEC(query_t) normal;
    size_t prio_head, normal_head;
    int64_t space;            /* query space left (may go negative on junk answers) */
    uint64_t issued[16];      /* queries issued per type */
    uint64_t sent;            /* packets written to the sink */
    uint64_t answered;        /* answers received (each gave space back) */
    query_sink_fn sink;
    void *sink_ctx;
} queryq_t;

void queryq_init(queryq_t *q, int64_t space, query_sink_fn sink, void *ctx);
void queryq_free(queryq_t *q);
void queryq_push(queryq_t *q, uint8_t type, uint64_t ptr, uint32_t extra);
/* One unit of query space comes back (an answer arrived). */
static inline void query_credit(queryq_t *q)
{
    q->space++;
    q->answered++;
}
/* Send what the space allows: priority queue first, then the normal one. */
void queryq_flush(queryq_t *q);
/* Number of queries still waiting to be sent. */
size_t queryq_waiting(const queryq_t *q);
/* Encode one 13-byte packet. */
void query_encode(uint8_t out[13], uint8_t type, uint64_t ptr, uint32_t extra);
/* Initial space for a socket send buffer of this many bytes (upstream rule). */
int64_t query_space_for_sndbuf(size_t sndbuf);

#endif
