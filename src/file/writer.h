/* writer.h - serialises the trace model as a .tracy payload: 0.14.0
 * (tracy-file-0.14.md section 2, all 36 sections in order) or the format
 * of an older release (format.h, tracy-file-older.md), which leaves out
 * what that release's files cannot hold. */
#ifndef TC_WRITER_H
#define TC_WRITER_H

#include "format.h"
#include "model.h"
#include "tfile.h"

/* Write the whole payload in format fmt into an open container (of the
 * kind fmt->legacy says), leaving out what `strip` (STRIP_*, strip.h)
 * names... */
void writer_write_payload(const model_t *m, const file_format_t *fmt, unsigned strip, tfile_t *f);
/* ...or nothing. */
void writer_write_trace(const model_t *m, const file_format_t *fmt, tfile_t *f);

typedef struct {
    tfile_codec_t codec;                /* zstd (the default) or an LZ4 mode */
    int level, streams;                 /* zstd level, stream count (0: one, no threads) */
    unsigned strip;                     /* STRIP_*: what is left out (strip.h) */
    bool this_thread;                   /* compress the streams on the calling thread (a pool's), */
                                        /* and write around the page cache (tfile's direct) */
    const atomic_int *spare;            /* this_thread: that pool's idle threads (tfile's spare) */
    const file_format_t *format;        /* NULL: file_format_default(); a legacy one has one stream */
    bool replace;                       /* -f: a file already at the path is replaced */
    char *volatile *tmp_path;           /* set to the temporary file while it exists */
    uint64_t file_bytes, payload_bytes; /* out */
    bool one_stream;                    /* out: memory ran out for `streams`; saved with one */
    char saved_as[4096];                /* out: where the trace is */
    char err[4608];                     /* out: what failed */
} save_opts_t;

/* Save the model to `path`: written to a temporary file beside it, then
 * renamed to it, so the final name never holds a partial file (with
 * s->replace, a device or FIFO at `path` is written in place instead). Without
 * s->replace, a file that took the name during the capture is kept and the
 * trace goes beside it (NAME-1.tracy...). Returns 0 (saved at path), 1
 * (saved at s->saved_as instead) or -1 (s->err says why; a partial
 * temporary file is removed, a finished one that could not be given its
 * name is kept and named in s->err). */
int writer_save(const model_t *m, const char *path, save_opts_t *s);

/* Give the finished file tmp the name path unless something took that
 * name (-1 with errno EEXIST; other errors as rename's). 0 when placed. */
int place_without_replacing(const char *tmp, const char *path);

/* Whether a save with s->replace writes into what is at path (a device
 * or FIFO) instead of renaming a finished file over it. */
bool writer_writes_in_place(const char *path);

#endif
