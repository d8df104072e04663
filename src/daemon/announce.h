/* announce.h - the UDP announcement a Tracy client broadcasts while no
 * server is connected (spec protocol-82.md §1.2): decoding one datagram
 * of any broadcast version (0-3) as upstream's ParseBroadcastMessage
 * does, encoding the version-3 form a 0.14.0 client sends, and the text
 * that identifies a client (its pid, address and data port). */
#ifndef TC_ANNOUNCE_H
#define TC_ANNOUNCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define ANNOUNCE_VERSION 3           /* what a 0.14.0 client sends */
#define ANNOUNCE_NAME_SIZE 64        /* programName, NUL included */
#define ANNOUNCE_MAX_SIZE 84         /* the whole version-3 message */
#define ANNOUNCE_V0_PORT 8086        /* version 0 carries no port */

/* One announcement, whatever version it came in. Versions 0-2 carry no
 * pid (0 here); version 0 no port (8086 here). */
typedef struct {
    uint16_t broadcast_version;
    uint32_t protocol_version;
    uint16_t listen_port;            /* the client's TCP data port */
    uint64_t pid;
    int32_t active_time;             /* seconds since the client started; -1: busy or leaving */
    char program_name[ANNOUNCE_NAME_SIZE]; /* always NUL-terminated */
} announce_t;

/* Why a datagram is not an announcement. */
typedef enum {
    ANNOUNCE_OK = 0,
    ANNOUNCE_TOO_SHORT,              /* shorter than its version's fields before the name */
    ANNOUNCE_UNKNOWN_VERSION,        /* broadcast version above 3 */
    ANNOUNCE_TOO_LONG,               /* longer than its version's whole message */
    ANNOUNCE_N_RESULTS
} announce_result_t;

/* Decode the datagram of len bytes into *out (left untouched unless
 * ANNOUNCE_OK). As upstream: the version is the first u16 (little-endian;
 * versions 0 and 1 store it as a u32 whose high half is not looked at),
 * a datagram longer than its version's struct (84 bytes for 3, 76 for 2,
 * 80 for 1, 76 for 0) is refused, and a shorter one is the struct's
 * beginning: the name is what came of it, cut at its first NUL or at 63
 * bytes. Unlike upstream, which reads whatever its stack held for the
 * fields a short datagram lacks, one that ends before the name (20 bytes
 * for 3, 12 for 2, 16 for 1, 12 for 0) is refused; one that ends inside
 * the name is taken (a real client sends the name up to its NUL only). */
announce_result_t announce_parse(const void *data, size_t len, announce_t *out);

/* A short phrase for a result ("too short", ...), for diagnostics. */
const char *announce_result_text(announce_result_t r);

/* Encode *a as a version-3 datagram (a->broadcast_version is not looked
 * at) into out, cut after the name's NUL as a client sends it: returns its
 * length, 21..84. A name of more than 63 bytes is cut to 63. */
size_t announce_encode(const announce_t *a, uint8_t out[ANNOUNCE_MAX_SIZE]);

/* The text of a sender's address as upstream prints it: an IPv4 address
 * as a dotted quad (an IPv4-mapped IPv6 one too); another IPv6 address
 * as inet_ntop writes it (upstream listens on IPv4 only). Returns buf, ""
 * for another family. */
#define ANNOUNCE_ADDR_SIZE 46        /* INET6_ADDRSTRLEN */
const char *announce_address_text(const struct sockaddr *sa, char buf[ANNOUNCE_ADDR_SIZE]);

/* The key that tells clients apart, as upstream forms it:
 * "PID_ADDRESS_PORT" (decimal pid, the sender's address text, the
 * announced data port). Two announcements with equal keys are one client. */
typedef struct {
    char text[20 + 1 + ANNOUNCE_ADDR_SIZE + 1 + 5 + 1];
} announce_key_t;

void announce_key(const announce_t *a, const struct sockaddr *from, announce_key_t *key);

#endif
