/* tfile.h - the .tracy container writer: the payload is cut into 64 KiB
 * chunks, chunk k is compressed by zstd stream k mod N (each stream one
 * never-ended zstd frame, flushed per chunk) and written as u32 size +
 * bytes after the 6-byte header (tracy-file-0.14.md section 1). */
#ifndef TC_TFILE_H
#define TC_TFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TFILE_CHUNK 65536
#define TFILE_MAX_STREAMS 16

typedef struct {
    FILE *fp;
    void *zc[TFILE_MAX_STREAMS];   /* ZSTD_CCtx */
    int streams;
    uint8_t *chunk;
    size_t used;
    uint64_t nchunks;
    uint8_t *out;
    size_t outcap;
    uint64_t payload_bytes, file_bytes;
    int err;                       /* errno of the first failure */
    const char *err_what;
} tfile_t;

/* Start a container on an open stream. Returns 0 or -1 (errno set). */
int tfile_open(tfile_t *t, FILE *fp, int level, int streams);
/* Append payload bytes. Failures are remembered and reported by close. */
void tfile_write(tfile_t *t, const void *p, size_t n);
/* Flush the last chunk and release the compressors (the FILE stays open).
 * Returns 0 or -1 with t->err / t->err_what set. */
int tfile_close(tfile_t *t);

static inline void tfile_u8(tfile_t *t, uint8_t v) { tfile_write(t, &v, 1); }
static inline void tfile_u16(tfile_t *t, uint16_t v) { tfile_write(t, &v, 2); }
static inline void tfile_u32(tfile_t *t, uint32_t v) { tfile_write(t, &v, 4); }
static inline void tfile_u64(tfile_t *t, uint64_t v) { tfile_write(t, &v, 8); }
static inline void tfile_i64(tfile_t *t, int64_t v) { tfile_write(t, &v, 8); }
static inline void tfile_f64(tfile_t *t, double v) { tfile_write(t, &v, 8); }
static inline void tfile_int24(tfile_t *t, uint32_t v) { uint8_t b[3] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16) }; tfile_write(t, b, 3); }

#endif
