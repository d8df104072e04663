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
} event_decoder_t;

void event_decoder_init(event_decoder_t *d, model_t *m);

/* Decode every event of one decompressed frame. Returns 0, or -1 when the
 * frame holds something that is not a valid protocol-82 event; then *where
 * is the offset of the bad event inside the frame and `err` says what. */
int event_decode_frame(event_decoder_t *d, const uint8_t *p, size_t n, size_t *where,
                       char *err, size_t errlen);

/* Decode a compact zone/sample time delta (protocol-82.md 6.3). */
int64_t event_delta64(int64_t v);

#endif
