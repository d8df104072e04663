/* fuzz.h - what the fuzz targets share: the libFuzzer entry point (also
 * called by fuzz_driver.c), a check that aborts with a message, a small
 * deterministic PRNG for split points, and the client stream a session
 * input stands for (fuzz_stream.c).
 *
 * Session inputs come in two forms:
 *   - a recorded client stream (status byte, welcome, LZ4 frames), exactly
 *     as a client-to-server.bin holds it; fed as is;
 *   - a plain stream: FUZZ_PLAIN, then the welcome (and on-demand payload)
 *     as recorded, then frames whose bodies are the decompressed events
 *     (u32 size + bytes). fuzz_stream.c compresses them as a client does,
 *     so that mutations reach the event decoder and the model instead of
 *     dying in LZ4. */
#ifndef TC_FUZZ_H
#define TC_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "session.h"

#define FUZZ_PLAIN 'P'

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant that must hold: a crash the fuzzer reports, with the reason. */
#define FUZZ_CHECK(cond, ...)                                           \
    do {                                                                \
        if (!(cond)) {                                                  \
            fprintf(stderr, "fuzz check failed (%s:%d): %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                               \
            fputc('\n', stderr);                                        \
            abort();                                                    \
        }                                                               \
    } while (0)

/* splitmix64: split points and choices derived from the input. */
static inline uint64_t fuzz_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* FNV-1a of the first `n` bytes (and the length), to seed fuzz_rand. */
static inline uint64_t fuzz_hash(const uint8_t *p, size_t n, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull ^ len;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Length of the next piece when feeding `left` bytes in splits: mostly
 * small (header and body boundaries), sometimes large, sometimes all. */
size_t fuzz_piece(uint64_t *state, size_t left);

/* The client stream of a session input: the input itself, or for a plain
 * stream a newly built one (*owned is then set, to be freed). */
const uint8_t *fuzz_client_stream(const uint8_t *in, size_t n, size_t *out_n, uint8_t **owned);

/* Feed a client stream into a session in input-derived splits (stop once
 * the session has ended); with one seed bit set, ask for a disconnect
 * halfway, as a stopped live capture does; with another, frames go the
 * live capture's way, their call-stack payloads numbered (csdedup.c). */
void fuzz_feed_session(session_t *s, const uint8_t *p, size_t n);

/* Query sink that checks and counts packets (ctx: a fuzz_sink_t). */
typedef struct {
    uint64_t bytes;
} fuzz_sink_t;
void fuzz_sink(void *ctx, const uint8_t *packets, size_t len);

/* Checks that hold for any session after feeding. */
void fuzz_check_session(const session_t *s, const fuzz_sink_t *sink);

/* One input through a fresh session (fuzz_client_stream, fuzz_feed_session,
 * fuzz_check_session), then `then` (if not NULL) before it is freed. */
void fuzz_run_session(const uint8_t *data, size_t size, void (*then)(session_t *s));

#endif
