/* infer.h - the protocol of a bare recording of a client's bytes (its
 * status byte, welcome and LZ4 frames, with no handshake of ours before
 * them to name the protocol), inferred from the bytes themselves.
 *
 * The welcome's size splits the protocols into those of the 1170-byte
 * welcome (76, 82) and those of the 1178-byte one (64-74): each reading
 * puts the first frame elsewhere. The frames after it are decompressed
 * and walked event by event with each candidate's event sizes (no model);
 * a candidate stays while its walk ends exactly at every frame's end. A
 * welcome whose fields read implausibly (a timer multiplier that is no
 * positive number, a timer resolution of a tenth of a second or more, a
 * capture time in 1970's first 10^6 s) drops its candidates while others
 * read sanely.
 *
 * Some protocols differ only in events a recording may never hold (72
 * and 74: the context switch and the wake-up; 66 and 69: the thread group
 * hint and the fiber name), so several may fit to the end. The bytes go
 * in as they are read, until more cannot change the answer. Owns its
 * state (infer_new .. infer_finish). */
#ifndef TC_INFER_H
#define TC_INFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocols.h"

/* At most this much decompressed data of each welcome reading is walked. */
#define INFER_DECODED_MAX (64u << 20)
#define INFER_MAX_CANDIDATES 16

typedef enum {
    INFER_NOTHING,   /* no complete status byte and welcome to go on (or the status refuses) */
    INFER_DONE,      /* fits[] holds the candidates that fit, possibly none */
} infer_status_t;

typedef struct {
    const proto_desc_t *fits[INFER_MAX_CANDIDATES];   /* those that fit, newest first */
    unsigned nfits;
    uint64_t frames;                 /* complete frames the newest fitting one was walked over */
    /* When none fits: the newest candidate whose welcome reads sanely (or
     * the newest), and what its reading met. */
    const proto_desc_t *nearest;
    char why[256];
} infer_t;

typedef struct infer_state infer_state_t;

infer_state_t *infer_new(void);
/* Feed the recording's next n bytes (from its first byte on, any split).
 * Returns true once more bytes cannot change the answer. */
bool infer_feed(infer_state_t *s, const uint8_t *p, size_t n);
/* The answer from what was fed; frees s. */
infer_status_t infer_finish(infer_state_t *s, infer_t *out);

/* All three on the first n bytes of a recording. */
infer_status_t infer_protocol(const uint8_t *p, size_t n, infer_t *out);

#endif
