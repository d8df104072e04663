/* fuzz_session.c - fuzz target of a whole capture session: a client
 * stream (recorded or plain, see fuzz.h) through session_feed, the frame
 * and event decoders, into the model, with queries going to a sink that
 * checks and counts them; then the session is freed (leaks are bugs). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n;
    uint8_t *owned;
    const uint8_t *stream = fuzz_client_stream(data, size, &n, &owned);
    fuzz_sink_t sink = { 0 };
    session_t *s = malloc(sizeof *s);
    session_init(s, fuzz_sink, &sink);
    fuzz_feed_session(s, stream, n);
    fuzz_check_session(s, &sink);
    session_free(s);
    free(s);
    free(owned);
    return 0;
}
