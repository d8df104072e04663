/* fuzz_session.c - fuzz target of a whole capture session: a client
 * stream (recorded or plain, see fuzz.h) through session_feed, the frame
 * and event decoders, into the model, with queries going to a sink that
 * checks and counts them; then the session is freed (leaks are bugs). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_run_session(data, size, NULL);
    return 0;
}
