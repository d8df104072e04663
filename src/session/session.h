/* session.h - one capture session, independent of where its bytes come
 * from: handshake answer, welcome message, on-demand payload, then the LZ4
 * frame stream, decoded into the model; queries go out through a sink.
 *
 * The connection (conn.c) feeds what the socket delivers; a later recovery
 * path can feed a recorded stream the same way. */
#ifndef TC_SESSION_H
#define TC_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "frame.h"
#include "model.h"
#include "proto.h"
#include "protocols.h"
#include "query.h"

typedef enum {
    SESSION_HANDSHAKE,   /* waiting for status byte / welcome */
    SESSION_STREAMING,   /* frames flowing */
    SESSION_COMPLETE,    /* client terminated and every answer is in */
    SESSION_REJECTED,    /* status byte was not Welcome (see status) */
    SESSION_BROKEN,      /* undecodable data; err says what and where */
} session_state_t;

typedef struct {
    const proto_desc_t *desc;    /* the protocol this session speaks */
    session_state_t state;
    uint8_t status;              /* handshake status byte received */
    uint8_t welcome[PROTO_WELCOME_MAX + PROTO_ONDEMAND_SIZE];
    size_t have, need;           /* handshake bytes */
    bool welcomed;
    model_t model;
    queryq_t queries;
    event_decoder_t events;
    frame_decoder_t frames;      /* the synchronous path's decoder (session_feed) */
    bool frames_ready;
    bool disconnecting;          /* we asked the client to disconnect */
    char err[512];
} session_t;

/* A session of protocol `desc` (one of proto_all). */
void session_init(session_t *s, const proto_desc_t *desc, query_sink_fn sink, void *sink_ctx);
void session_free(session_t *s);
/* Feed bytes from the client (the handshake's, if they were not given to
 * session_feed_handshake, then the frames'); returns the new state. */
session_state_t session_feed(session_t *s, const uint8_t *p, size_t n);
/* For a transport that decodes frames elsewhere (netdec.c): consume the
 * handshake bytes only, returning how many were used... */
size_t session_feed_handshake(session_t *s, const uint8_t *p, size_t n);
/* ...then process each decoded frame (numbered, with its stream offset,
 * for messages; `numbered`: how far its call-stack payloads carry
 * csdedup.h's numbers); returns the new state. */
session_state_t session_feed_frame(session_t *s, const uint8_t *data, size_t n, uint64_t frame_no,
                                   uint64_t offset, size_t numbered);
/* Stream offset of the first frame byte (after the welcome). */
static inline uint64_t session_frames_offset(const session_t *s) { return 1 + s->need; }
/* The query space, computed by the transport from its send buffer. */
void session_set_query_space(session_t *s, int64_t space);
/* Ask the client to end the session (a Disconnect query, sent now). */
void session_request_disconnect(session_t *s);
/* Whether the session still waits for something after Terminate; `why`
 * lists what. */
bool session_waiting(const session_t *s, char *why, size_t whylen);

#endif
