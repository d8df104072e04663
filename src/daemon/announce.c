/* announce.c - decoding and encoding the client's UDP announcement (see
 * announce.h). The four broadcast versions differ only in where their
 * fields lie and how wide they are, so one table describes them. */
#include "announce.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

#define NONE 0xFF                    /* a field the version lacks */

/* Where a version keeps its fields (byte offsets, little-endian). */
typedef struct {
    uint8_t size;                    /* the whole message, the longest datagram taken */
    uint8_t name;                    /* programName's offset: the shortest datagram taken */
    uint8_t port;
    uint8_t protocol;
    uint8_t pid;
    uint8_t active;
} layout_t;

static const layout_t layouts[ANNOUNCE_VERSION + 1] = {
    /* 0: u32 version, u32 protocol, u32 activeTime, name */
    { .size = 76, .name = 12, .port = NONE, .protocol = 4, .pid = NONE, .active = 8 },
    /* 1: u32 version, u32 protocol, u32 listenPort, u32 activeTime, name */
    { .size = 80, .name = 16, .port = 8, .protocol = 4, .pid = NONE, .active = 12 },
    /* 2: u16 version, u16 listenPort, u32 protocol, i32 activeTime, name */
    { .size = 76, .name = 12, .port = 2, .protocol = 4, .pid = NONE, .active = 8 },
    /* 3: u16 version, u16 listenPort, u32 protocol, u64 pid, i32 activeTime, name */
    { .size = 84, .name = 20, .port = 2, .protocol = 4, .pid = 8, .active = 16 },
};

/* The name as received: up to its first NUL, the datagram's end or 63
 * bytes, whichever comes first. */
static void copy_name(char dst[ANNOUNCE_NAME_SIZE], const uint8_t *src, size_t avail)
{
    size_t n = avail < ANNOUNCE_NAME_SIZE - 1 ? avail : ANNOUNCE_NAME_SIZE - 1;
    const uint8_t *nul = memchr(src, '\0', n);
    if (nul) n = (size_t)(nul - src);
    memset(dst, 0, ANNOUNCE_NAME_SIZE);
    memcpy(dst, src, n);
}

announce_result_t announce_parse(const void *data, size_t len, announce_t *out)
{
    const uint8_t *p = data;
    if (len < 2) return ANNOUNCE_TOO_SHORT;
    const uint16_t version = ld16(p);
    if (version > ANNOUNCE_VERSION) return ANNOUNCE_UNKNOWN_VERSION;
    const layout_t *l = &layouts[version];
    if (len > l->size) return ANNOUNCE_TOO_LONG;
    if (len < l->name) return ANNOUNCE_TOO_SHORT;
    announce_t a = { .broadcast_version = version };
    a.protocol_version = ld32(p + l->protocol);
    /* A u32 port of version 1 is cut to 16 bits, as upstream assigns it. */
    a.listen_port = l->port == NONE ? ANNOUNCE_V0_PORT : ld16(p + l->port);
    a.pid = l->pid == NONE ? 0 : ld64(p + l->pid);
    a.active_time = (int32_t)ld32(p + l->active);
    copy_name(a.program_name, p + l->name, len - l->name);
    *out = a;
    return ANNOUNCE_OK;
}

const char *announce_result_text(announce_result_t r)
{
    switch (r) {
    case ANNOUNCE_OK: return "an announcement";
    case ANNOUNCE_TOO_SHORT: return "too short";
    case ANNOUNCE_UNKNOWN_VERSION: return "an unknown broadcast version";
    case ANNOUNCE_TOO_LONG: return "too long";
    default: return "?";
    }
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

size_t announce_encode(const announce_t *a, uint8_t out[ANNOUNCE_MAX_SIZE])
{
    const layout_t *l = &layouts[ANNOUNCE_VERSION];
    const size_t n = strnlen(a->program_name, ANNOUNCE_NAME_SIZE - 1);
    memset(out, 0, ANNOUNCE_MAX_SIZE);
    put_le(out, ANNOUNCE_VERSION, 2);
    put_le(out + l->port, a->listen_port, 2);
    put_le(out + l->protocol, a->protocol_version, 4);
    put_le(out + l->pid, a->pid, 8);
    put_le(out + l->active, (uint32_t)a->active_time, 4);
    memcpy(out + l->name, a->program_name, n);
    return l->name + n + 1;
}

const char *announce_address_text(const struct sockaddr *sa, char buf[ANNOUNCE_ADDR_SIZE])
{
    buf[0] = '\0';
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, buf, ANNOUNCE_ADDR_SIZE);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
            inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], buf, ANNOUNCE_ADDR_SIZE);
        else
            inet_ntop(AF_INET6, &in6->sin6_addr, buf, ANNOUNCE_ADDR_SIZE);
    }
    return buf;
}

void announce_key(const announce_t *a, const struct sockaddr *from, announce_key_t *key)
{
    char addr[ANNOUNCE_ADDR_SIZE];
    snprintf(key->text, sizeof key->text, "%" PRIu64 "_%s_%u", a->pid,
             announce_address_text(from, addr), (unsigned)a->listen_port);
}
