/* protocols.h - the network protocols this tool speaks, one descriptor
 * each (wire/proto/protoNN.c), newest first, and their lookup by the
 * version number or the Tracy release a user names.
 *
 * A descriptor is everything the wire layer needs to know of one
 * protocol: its release, the file format its release writes, its event
 * types in wire order as the canonical ids of proto.h (protocol 82's
 * numbering, which the decoder switches on), the sizes and layouts that
 * differ from 82's, its welcome, its query numbering and mode, and the
 * server behaviour the model follows (model_rules_t). Adding a protocol is
 * one new protoNN.c and one line in protocols.c.
 *
 * The translation tables (proto_tables_t) are built from a descriptor by
 * their owner (the event decoder, the call-stack numbering), once, into
 * its own state. */
#ifndef TC_PROTOCOLS_H
#define TC_PROTOCOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "proto.h"

/* How a protocol lays out the events whose layout changed between
 * releases (protocol-older.md section 4). */
enum proto_layout {
    PL_MSG_META = 1u << 0,        /* 82: messages end with a metadata byte, literal messages tag their
                                     address with it; before: no metadata (User, Info) */
    PL_COMPACT_TIMES = 1u << 1,   /* 82: 32/16-bit zone and sample forms, the 64-bit forms add
                                     2^32 + 2^16 to a non-negative delta, samples are thread first;
                                     before: 64-bit deltas as they are, samples time first */
    PL_STR16_MINUS256 = 1u << 2,  /* 82: a 16-bit single/second string length counts from 256 */
    PL_FIBER_GROUP = 1u << 3,     /* 69+: FiberEnter ends with a group hint (25 bytes, else 21) */
    PL_TOPO_DIE = 1u << 4,        /* 69+: CpuTopology is package, die, core, thread (17, else 13) */
    PL_WAKEUP_CPU = 1u << 5,      /* 74+: ThreadWakeup carries the cpu (16, else 13); ContextSwitch
                                     23 bytes (else 20, the same fields up to its end) */
    PL_WELCOME_DELAY = 1u << 6,   /* 64-74: the welcome holds the queue delay at 24, the rest 8 later */
};

/* A fixed event size that differs from protocol 82's. */
typedef struct {
    uint8_t ev;      /* canonical type */
    uint8_t size;    /* 0 ends the list */
} proto_size_t;

#define PROTO_WELCOME_SIZE_DELAY 1178     /* the welcome of protocols 64-74 */
#define PROTO_WELCOME_MAX PROTO_WELCOME_SIZE_DELAY

typedef struct proto_desc {
    uint32_t version;          /* 76 */
    const char *release;       /* the releases that speak it: "0.13.x" */
    const char *file_format;   /* the stamp its release's capture writes by default: "0.13.0" */
    /* The release's QueueType list, in order: wire byte i is types[i]. */
    const uint8_t *types;
    unsigned ntypes;
    proto_size_t sizes[8];     /* fixed sizes that differ from protocol 82's */
    uint16_t welcome_size, welcome_flags_at;
    /* The wire number of each canonical query kind (SQ_, query.h); the
     * priority queue takes the numbers below the wire's Disconnect. */
    uint8_t query_wire[16];
    bool query_immediate;      /* 64-76: a query leaves at once while nothing waits (query.h) */
    uint32_t layout;           /* PL_ bits */
    model_rules_t rules;
} proto_desc_t;

/* The tables one descriptor's bytes are read with. */
#define EV_NONE 0xFF
typedef struct {
    const proto_desc_t *desc;
    uint8_t canon[256];            /* wire byte -> canonical type, EV_NONE when the protocol has none */
    uint8_t size[256];             /* wire byte -> fixed size (type byte included; strings and payloads:
                                      their fixed part), 0 when no event has that byte */
    uint8_t fixed[256];            /* the same for fixed-size events only; 0 for the string and payload
                                      forms (their length field decides) and for unknown bytes */
    uint8_t wire[EV_TYPE_COUNT];   /* canonical type -> wire byte, EV_NONE when the protocol has none */
} proto_tables_t;

void proto_tables_init(proto_tables_t *t, const proto_desc_t *d);

/* Every supported protocol, newest first, NULL-terminated: the order of
 * the version search. */
extern const proto_desc_t *const proto_all[];

/* The descriptor of a protocol version, or NULL. */
const proto_desc_t *proto_by_version(uint32_t version);

/* The next older protocol after `d` in the search, or NULL after the
 * oldest. */
const proto_desc_t *proto_older(const proto_desc_t *d);

/* The descriptor a user names: a protocol number ("76") or a release
 * ("0.13", "0.13.1", "v0.13.1", "5479a42"); NULL when none matches. */
const proto_desc_t *proto_by_name(const char *name);

/* "82, 76, 74, 72, 69, 66, 64": the supported versions, for messages. */
void proto_list_text(char *out, size_t len);

#endif
