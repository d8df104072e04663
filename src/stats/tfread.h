/* tfread: the outer layer of a .tracy file (tracy-file-0.14.md §1).
 * Opens the file, checks the container header and block framing, decodes
 * the round-robin compressed streams (zstd or LZ4, one persistent decoder
 * per stream) and hands out the uncompressed payload as one sequential byte
 * stream, reading the file a block at a time.  Strict: every non-final
 * block must decode to exactly 64 KiB, the last one to 1..64 KiB, and
 * every block must decode in one call as upstream's reader requires. */
#ifndef TC_TFREAD_H
#define TC_TFREAD_H

#include <stddef.h>
#include <stdint.h>

enum { TF_CHUNK = 65536 };

typedef enum { TF_MAGIC_CURRENT, TF_MAGIC_LEGACY_LZ4, TF_MAGIC_LEGACY_ZSTD } tf_magic;

typedef struct tfread tfread;

typedef struct tfread_info {
    tf_magic magic;
    int compression;        /* 0 LZ4, 1 zstd */
    int streams;            /* stream count from the header (1 for legacy) */
    size_t blocks;          /* number of blocks in the file */
    uint64_t file_size;
} tfread_info;

/* Open and check the container.  Returns 0 and sets *out, or -1 with a
 * message in err: *open_failed is set to 1 if the file itself could not be
 * opened/read (as opposed to being malformed). */
int tfread_open(tfread **out, const char *path, int *open_failed, char *err, size_t errsz);

void tfread_close(tfread *r);

const tfread_info *tfread_get_info(const tfread *r);

/* Copy the next n payload bytes to dst (dst may be NULL to skip).
 * Returns 0, or -1 (message via tfread_error). */
int tfread_read(tfread *r, void *dst, size_t n);

/* Copy the next n payload bytes to dst without consuming them (n at most
 * what is left of the current 64 KiB chunk: the payload header fits).
 * Returns 0, or -1 (message via tfread_error). */
int tfread_peek(tfread *r, void *dst, size_t n);

/* Read all remaining payload bytes into a malloc'ed buffer (*buf, *len).
 * Returns 0, or -1 (message via tfread_error). */
int tfread_read_rest(tfread *r, uint8_t **buf, size_t *len);

/* Payload bytes consumed so far. */
uint64_t tfread_offset(const tfread *r);

/* Upper bound for the payload bytes not yet consumed (64 KiB per block). */
uint64_t tfread_remaining_bound(const tfread *r);

/* 1 if the payload is exhausted, 0 if bytes remain, -1 on decode error. */
int tfread_at_end(tfread *r);

const char *tfread_error(const tfread *r);

#endif
