/* spool.h - every byte received from the client, appended to a file beside
 * the output while capturing (OUT.spool), so that a capture killed before
 * it could save (SIGKILL, the OOM killer, a CI timeout, a crash) can be
 * rebuilt with --recover. The bytes go out on a thread of their own
 * (netdec.c; the daemon's jobs hand their full megabytes to one, spool_io):
 * tracy-capture's straight to the disk (spool_direct) a
 * megabyte at a time while the disk keeps up with the wire, through the
 * page cache (spool_write_now) while it does not, and a partial megabyte
 * within moments of its bytes; a killed process loses at most those
 * moments and the few MB still queued for that thread (the reading pauses
 * beyond that). A spool that cannot be written (a full disk) is reported
 * and abandoned; the capture itself goes on.
 *
 * The spool also lets the capture keep pace with the wire: received bytes
 * that wait to be decoded are dropped from memory once in the file and
 * read back in their turn (spoolread.h), so the client is never held back
 * by the decoding. */
#ifndef TC_SPOOL_H
#define TC_SPOOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spool_io;

/* A megabyte of a write-behind spool under way (spool_write_behind). */
typedef struct spool_req {
    struct spool_req *next;      /* the io thread's queue */
    int dfd;
    uint8_t *buf;                /* NULL: none under way */
    uint64_t at;                 /* its file offset */
    size_t done;                 /* bytes the io thread wrote (< SPOOL_STAGE: it failed there) */
    bool busy;                   /* the io thread has it (under the io's lock) */
} spool_req_t;

typedef struct {
    int fd;                      /* -1: no spool */
    const char *path;
    uint64_t bytes;
    int err;                     /* first write error (errno), then nothing more is written */
    bool regular;                /* a regular file (a FIFO or device is never removed) */
    bool abandoned;              /* failed and given up (spool_abandon): removed at close */
    bool removed;                /* its name already removed (spool_remove) */
    atomic_bool stop_waiting;    /* spool_stop_waiting was called */
    bool readable;               /* a regular file opened for reading back, too */
    bool drop_behind;            /* spool_drop_behind: written windows leave the page cache */
    uint64_t dropped_to;         /* ...up to here */
    /* A drop-behind spool written around the page cache (O_DIRECT), when
     * the file system lets it: whole megabytes from `stage`, the rest on
     * spool_flush_stale and spool_close. */
    int dfd;                     /* the file opened O_DIRECT, or -1 */
    uint8_t *stage;              /* SPOOL_STAGE bytes, aligned */
    bool cached;                 /* for now written through the page cache (spool_write_now) */
    size_t staged;               /* bytes in it, at file offset direct_at */
    size_t tail_flushed;         /* ...of which already written through the page cache */
    uint64_t direct_at;
    int64_t staged_ms;           /* when the oldest unwritten staged byte came */
    /* Write-behind: a full stage goes to the io thread, and the writer
     * fills the spare meanwhile. */
    struct spool_io *io;
    spool_req_t req;
    uint8_t *spare;
} spool_t;

#define SPOOL_STAGE (1u << 20)

/* Create the spool at path, locked (flock) while it is open. An existing
 * file is refused (EEXIST) unless `force` (it may be the only copy of an
 * earlier, killed capture), or it is empty (a capture killed or failed
 * before any byte came: nothing to lose); one another capture holds open
 * is refused even with `force` (EBUSY); an existing FIFO or character
 * device is simply opened. Returns 0, or an errno value. */
int spool_open(spool_t *s, const char *path, bool force);
/* Append bytes. Called by one thread at a time. A FIFO or device that is
 * full is waited for, but one that takes nothing for 10 s fails the spool
 * (ETIMEDOUT), as does spool_stop_waiting (ECANCELED). */
void spool_write(spool_t *s, const void *p, size_t n);
/* The same, for a writer that has more waiting than the disk takes: a
 * direct spool then writes through the page cache (the write returns at
 * once, and the bytes hold memory of the machine's until the kernel writes
 * them back), and goes back to the disk at the next whole megabyte that
 * spool_write writes. */
void spool_write_now(spool_t *s, const void *p, size_t n);
/* Write the spool around the page cache (O_DIRECT) where the file system
 * allows: whole megabytes from an aligned stage, the last, partial one
 * held in memory until spool_flush_stale or spool_close write it. What is
 * written then costs no copy into the page cache and no memory of the
 * machine's (on a VM, the copy alone can cost 2.5 s of CPU per GB when the
 * cache takes pages the guest never touched). Elsewhere nothing changes.
 * A regular file only; call before the first write. */
void spool_direct(spool_t *s);
/* For a spool nothing reads back while it is written (the daemon's): it
 * holds no memory of the machine's, so that a long capture's spool (and
 * many clients' spools) do not fill it. Where the file system allows, it is
 * written around the page cache (O_DIRECT) a megabyte at a time, which
 * also spares the CPU the copy into it (on a VM, up to 2.5 s per GB when
 * the cache takes pages the guest never touched); the last, partial
 * megabyte then waits in memory until spool_flush_stale or spool_close
 * write it. Elsewhere every few MB go to the disk and leave the page cache
 * once written. A regular file only; call before the first write. */
void spool_drop_behind(spool_t *s);
/* A thread that writes the full megabytes of direct spools for their
 * writers (spool_write_behind), so that a writer that has other work (a
 * daemon's pool thread, which decodes other clients meanwhile) does not
 * wait for the disk. NULL when the thread cannot start: the spools then
 * write their megabytes themselves. Stopped once no spool uses it. */
struct spool_io *spool_io_start(void);
void spool_io_stop(struct spool_io *io);
/* A drop-behind spool's full megabytes written by io (NULL: by the
 * writer); the writer goes on into a second stage, and waits only when
 * the megabyte before is still under way. A kill then loses at most the
 * two megabytes in memory. Call after spool_drop_behind, before the first
 * write. */
void spool_write_behind(spool_t *s, struct spool_io *io);
/* Wait for a write-behind spool's megabyte under way, and take its
 * outcome (a failed direct write: the rest through the page cache, or
 * s->err). By the thread that writes the spool; spool_close, spool_empty
 * do it too. */
void spool_settle(spool_t *s);
/* Write what a direct spool has held in memory for max_ms or longer (the
 * client sends slowly, or paused), so that a kill loses at most about that
 * time. By the thread that writes it. */
void spool_flush_stale(spool_t *s, int max_ms);
/* Whether a direct spool holds bytes that are not in its file yet. */
bool spool_holds_back(const spool_t *s);
/* The bytes from the start that a spool_reader may read now (by the thread
 * that writes the spool, which passes it on): all that was written, but
 * for a direct spool's staged part. */
uint64_t spool_on_disk(const spool_t *s);
/* Make a spool_write that waits for a full FIFO or device give up at once
 * (any thread). */
void spool_stop_waiting(spool_t *s);
/* The text for a spool's err: strerror, or what ETIMEDOUT and ECANCELED
 * mean here. */
const char *spool_strerror(int err);
/* Read n bytes back from offset `at` (written before; a direct spool's
 * staged bytes from memory, by the thread that writes it). Returns 0 or
 * an errno value. Any thread may call it. */
int spool_read_at(const spool_t *s, uint64_t at, void *p, size_t n);
/* A descriptor of the spool's file opened anew by its name with these
 * flags (O_DIRECT ones: the writer's and spoolread.c's), or -1, also when
 * the name is another file's by now. */
int spool_reopen(const spool_t *s, int flags);
/* Give up a spool that failed: it is removed at close, whatever `keep`
 * says; spool_empty gives a full disk its space back at once (a regular
 * file: truncated). Call when no thread writes or reads it any more. */
void spool_abandon(spool_t *s);
void spool_empty(spool_t *s);
/* Give up a spool nothing will be written to at once: abandoned, and a
 * regular file's name removed now, so that no exit, however abrupt, leaves
 * it in the next capture's way. */
void spool_remove(spool_t *s);
/* Close; remove the file unless `keep` (an abandoned one always) or it is not a regular file (a
 * FIFO or a device named with --spool stays where it was). */
void spool_close(spool_t *s, bool keep);

#endif
