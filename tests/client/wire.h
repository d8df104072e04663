/* wire.h - socket I/O and LZ4 frame stream of tracy-test-client. */
#ifndef TC_WIRE_H
#define TC_WIRE_H

#include "client.h"

/* Allocate the ring and LZ4 state (once per process). */
bool wire_init(struct tc_client *c);
void wire_free(struct tc_client *c);

/* Start a session on a connected socket: non-blocking mode, empty ring,
 * empty query queue, fresh LZ4 stream (reset right before the welcome). */
void wire_attach(struct tc_client *c, int fd);

/* Close the session socket. `reset` closes with SO_LINGER 0 (RST). */
void wire_close(struct tc_client *c, bool reset);

/* True while the connection is usable for sending. */
bool wire_alive(const struct tc_client *c);

/* Send raw, uncompressed bytes (handshake status, welcome, injected
 * garbage); waits for the socket while draining incoming queries. */
bool wire_send_raw(struct tc_client *c, const void *data, size_t len);

/* Event buffer: make room for one whole event of `len` bytes (commits the
 * pending frame first if the event would not fit), then append it. */
void wire_reserve(struct tc_client *c, size_t len);
void wire_put(struct tc_client *c, const void *data, size_t len);

/* Direct access to the pending frame for the bulk encoders (bulk.h):
 * returns the next write position and sets *end to the end of the room
 * the frame has left. Hand the new write position back with
 * wire_window_set before any other wire call. */
uint8_t *wire_window(struct tc_client *c, uint8_t **end);
void wire_window_set(struct tc_client *c, const uint8_t *p);

/* Compress and send the pending frame, if any, then apply the ring rule. */
void wire_commit(struct tc_client *c);

/* Compress the pending frame like wire_commit but return the framed bytes
 * (4-byte length + block) instead of sending them. */
size_t wire_compress_pending(struct tc_client *c, const char **framed);

/* Send the 1-byte Terminate frame, compressed from a separate buffer. */
void wire_send_terminate(struct tc_client *c);

/* Wait up to timeout_ms (0 = just look) for query packets, reading all
 * that are available into the queue. Returns false once the connection
 * is gone. */
bool wire_poll(struct tc_client *c, int timeout_ms);

/* Take the oldest received query; false if none. */
bool wire_pop_query(struct tc_client *c, struct tc_query *q);

/* Bytes still in the kernel send queue (Linux SIOCOUTQ), 0 if unknown. */
int wire_unsent_bytes(const struct tc_client *c);

#endif
