/* event.h - the event decoder: walks one decompressed frame of the
 * stream of one protocol (a descriptor of protocols.h), decodes every
 * event (fixed part, trailer, time references and time forms) by its
 * canonical type and hands it to the model. */
#ifndef TC_EVENT_H
#define TC_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "protocols.h"

typedef struct {
    model_t *model;
    int64_t ref_thread, ref_serial, ref_ctx, ref_gpu;  /* protocol-82.md 6.2 */
    size_t numbered_until;      /* this frame's payloads numbered by csdedup.c */
    uint32_t layout;            /* the protocol's PL_ bits */
    proto_tables_t t;           /* its wire bytes, built from the descriptor */
    const char *names[256];     /* each wire byte's event name (for the model's messages) */
} event_decoder_t;

/* A decoder of protocol `desc`'s events into m (which it gives its names). */
void event_decoder_init(event_decoder_t *d, model_t *m, const proto_desc_t *desc);

/* Decode every event of one decompressed frame. Returns 0, or -1 when the
 * frame holds something that is not a valid event of the protocol; then *where
 * is the offset of the bad event inside the frame and `err` says what.
 * Before the call, d->numbered_until tells how far the frame's call-stack
 * payloads carry csdedup.c's numbers (0: not at all). */
int event_decode_frame(event_decoder_t *d, const uint8_t *p, size_t n, size_t *where,
                       char *err, size_t errlen);

/* Size of the event at p (header included) in the protocol of t, or 0
 * when its type is not one of the protocol's or it does not fit in `left`
 * bytes (err says which; err may be NULL with errlen 0). */
size_t event_size(const proto_tables_t *t, const uint8_t *p, size_t left, char *err, size_t errlen);

/* Decode protocol 82's 64-bit zone/sample time delta (protocol-82.md 6.3). */
int64_t event_delta64(int64_t v);

#endif
