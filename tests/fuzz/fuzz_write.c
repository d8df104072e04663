/* fuzz_write.c - fuzz target of the file writer: a session as in
 * fuzz_session.c, then, once welcomed, the save path of main.c
 * (model_finish, writer_save; one zstd stream without threads) into a
 * file in /dev/shm that is removed after each input. The file must be a
 * valid container whose blocks decompress to the whole payload, which
 * starts with the 0.14 header. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tfread.h"
#include "format.h"
#include "fuzz.h"
#include "writer.h"

static void check_file(const char *path, const save_opts_t *so, const file_format_t *format)
{
    tfread *r;
    int open_failed = 0;
    char err[512];
    FUZZ_CHECK(tfread_open(&r, path, &open_failed, err, sizeof err) == 0, "%s", err);
    uint8_t *payload = NULL;
    size_t len = 0;
    FUZZ_CHECK(tfread_read_rest(r, &payload, &len) == 0, "%s", tfread_error(r));
    FUZZ_CHECK(len == so->payload_bytes, "%zu payload bytes read, %llu written", len,
               (unsigned long long)so->payload_bytes);
    FUZZ_CHECK(len >= 8 && memcmp(payload, "tracy", 5) == 0 && memcmp(payload + 5, format->stamp, 3) == 0,
               "no %s payload header", format->name);
    free(payload);
    tfread_close(r);
}

static void save(session_t *s)
{
    struct stat st;
    const char *dir = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    char path[64];
    snprintf(path, sizeof path, "%s/tracy-fuzz-write-%ld.tracy", dir, (long)getpid());
    /* the format of the session's release, as tracy-capture saves it */
    const file_format_t *format = file_format_by_name(s->desc->file_format);
    FUZZ_CHECK(format, "protocol %u names no file format", s->desc->version);
    save_opts_t so = { .level = 1, .streams = 0, .format = format };
    model_finish(&s->model);
    FUZZ_CHECK(writer_save(&s->model, path, &so) == 0, "%s", so.err);
    check_file(path, &so, format);
    unlink(path);
}

/* Save a session that got as far as its welcome. */
static void save_if_welcomed(session_t *s)
{
    if (s->welcomed) save(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_run_session(data, size, save_if_welcomed);
    return 0;
}
