/* query.h - the server->client query queue with upstream's flow control.
 *
 * Queries wait in two FIFO queues (priority: wire types below the wire's
 * Disconnect, 9 but in protocol 64 where it is 8; normal: the rest) and
 * leave only when query_flush() is called after a whole frame has been
 * processed, as many as the query space allows (protocol-82.md section
 * 4.3-4.4). Answers give space back with query_credit().
 *
 * Protocols 64-76 (immediate mode): their server sent a query at once when
 * it had query space and both queues were empty, and queued it otherwise
 * (v0.14.0 dropped that). Ours leave at the frame's end all the same, in
 * that order: the ones taken at once first, then the priority queue, then
 * the normal one.
 *
 * Queries are pushed as canonical kinds (SQ_, protocol 82's numbers) and
 * written with the protocol's wire numbers (queryq_set_protocol). */
#ifndef TC_QUERY_H
#define TC_QUERY_H

#include <stdbool.h>
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

typedef struct {
    uint8_t type;
    uint32_t extra;
    uint64_t ptr;
} query_t;

/* Where flushed packets go: the socket, or nowhere for recorded streams. */
typedef void (*query_sink_fn)(void *ctx, const uint8_t *packets, size_t len);

typedef struct {
    VEC(query_t) now;         /* immediate mode: taken at once (space already counted), sent first */
    VEC(query_t) prio;
    VEC(query_t) normal;
    size_t prio_head, normal_head;
    int64_t space;            /* query space left (may go negative on junk answers) */
    uint64_t issued[16];      /* queries issued per type */
    uint64_t sent;            /* packets written to the sink */
    uint64_t answered;        /* answers received (each gave space back) */
    query_sink_fn sink;
    void *sink_ctx;
    uint8_t wire_of[16];      /* canonical kind -> wire type */
    uint8_t prio_below;       /* wire types below this are priority (the wire's Disconnect) */
    bool immediate;
} queryq_t;

/* A queue with protocol 82's numbering and mode. */
void queryq_init(queryq_t *q, int64_t space, query_sink_fn sink, void *ctx);
/* The protocol's wire number of each kind (16 entries) and whether it
 * sends a query at once while nothing waits (64-76). */
void queryq_set_protocol(queryq_t *q, const uint8_t wire_of[16], bool immediate);
void queryq_free(queryq_t *q);
void queryq_push(queryq_t *q, uint8_t type, uint64_t ptr, uint32_t extra);
/* One unit of query space comes back (an answer arrived). */
static inline void query_credit(queryq_t *q)
{
    q->space++;
    q->answered++;
}
/* Send the queries taken at once, then what the space allows: priority
 * queue first, then the normal one. */
void queryq_flush(queryq_t *q);
/* Number of queries still waiting to be sent. */
size_t queryq_waiting(const queryq_t *q);
/* Encode one 13-byte packet (type: the wire's number). */
void query_encode(uint8_t out[13], uint8_t type, uint64_t ptr, uint32_t extra);
/* Initial space for a socket send buffer of this many bytes (upstream rule). */
int64_t query_space_for_sndbuf(size_t sndbuf);

#endif
