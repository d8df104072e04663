/* event.h - the event decoder: walks one decompressed frame of the
 * protocol-82 stream, decodes every event (fixed part, trailer, time
 * references and compact time forms) and hands it to the model. */
#ifndef TC_EVENT_H
#define TC_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct {
    model_t *model;
    int64_t ref_thread, ref_serial, ref_ctx, ref_gpu;  /* protocol-82.md 6.2 */
    size_t numbered_until;      /* this frame's payloads numbered by csdedup.c */
    uint8_t fixed[256];         /* event_fixed_sizes() */
} event_decoder_t;

void event_decoder_init(event_decoder_t *d, model_t *m);

/* Decode every event of one decompressed frame. Returns 0, or -1 when the
 * frame holds something that is not a valid protocol-82 event; then *where
 * is the offset of the bad event inside the frame and `err` says what.
 * Before the call, d->numbered_until tells how far the frame's call-stack
 * payloads carry csdedup.c's numbers (0: not at all). */
int event_decode_frame(event_decoder_t *d, const uint8_t *p, size_t n, size_t *where,
                       char *err, size_t errlen);

/* Size of the event at p (header included), or 0 when its type is not a
 * protocol-82 type or it does not fit in `left` bytes (err says which;
 * err may be NULL with errlen 0). */
size_t event_size(const uint8_t *p, size_t left, char *err, size_t errlen);

/* The size of every fixed-size event type by type byte; 0 for the
 * string and payload forms and for bytes that are no protocol-82 type
 * (event_size() decides those). */
void event_fixed_sizes(uint8_t out[256]);

/* Decode a compact zone/sample time delta (protocol-82.md 6.3). */
int64_t event_delta64(int64_t v);

#endif
