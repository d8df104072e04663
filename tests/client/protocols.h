/* protocols.h - the seven Tracy network protocols tracy-test-client
 * speaks (64, 66, 69, 72, 74, 76, 82) as the client's own tables: which
 * events each protocol has, their type numbers and sizes, the ServerQuery
 * numbering, the welcome layout and the wire differences the encoders ask
 * about (spec protocol-older.md). The encoders build every event with the
 * protocol-82 ids of protocol.h (TC_EV_*) and this module turns an id into
 * the negotiated protocol's type byte. Transcribed independently of the
 * capture's own tables (src/), so the end-to-end tests check those. */
#ifndef TC_PROTOCOLS_H
#define TC_PROTOCOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "protocol.h"

#define TC_PROTOCOL_NONE 0   /* --protocol none: refuse every version */
#define TC_NO_TYPE 0xFF      /* wire[] value of an event the protocol lacks */
#define TC_WELCOME_SIZE_OLD 1178 /* 64-74: with the u64 queue delay at offset 24 */

/* Wire differences that are not a whole event type (types present or
 * absent are asked with proto_has). */
enum tc_feature {
    TC_FEAT_WELCOME_DELAY,       /* 64-74: u64 queue delay at welcome offset 24 */
    TC_FEAT_COMPACT_TIMES,       /* 82: 32/16-bit zone and sample forms, offset 64-bit form */
    TC_FEAT_MESSAGE_METADATA,    /* 82: message metadata byte, literal address << 8 | metadata */
    TC_FEAT_SHORT_STRINGS,       /* 82: 8-bit string forms; the 16-bit forms carry length - 256 */
    TC_FEAT_SAMPLE_THREAD_FIRST, /* 82: CallstackSample* thread before time */
    TC_FEAT_PARAM_TRIGGER,       /* 82: ParamSetup type 2 (Trigger); before: a bool flag */
    TC_FEAT_FIBER_GROUP_HINT,    /* 69+: FiberEnter ends with an i32 group hint */
    TC_FEAT_TOPOLOGY_DIE,        /* 69+: CpuTopology has a die field */
    TC_FEAT_SCHED_DETAILS,       /* 74+: ContextSwitch 23 bytes, ThreadWakeup 16 */
    TC_FEAT_SAMPLES_SET_LAST_TIME, /* 66+, server side: samples advance the last time */
    TC_FEAT_COUNT,
};

/* One protocol, its tables filled by proto_init. */
struct tc_proto {
    uint32_t version;
    const char *release;               /* e.g. "v0.13.1" */
    uint16_t welcome_size;
    uint8_t n_types;                   /* wire type numbers 0 .. n_types - 1 */
    uint8_t wire[TC_EV_TYPE_COUNT];    /* protocol-82 id -> type byte, TC_NO_TYPE */
    uint8_t id[256];                   /* type byte -> protocol-82 id, TC_NO_TYPE */
    uint8_t query[TC_SQ_COUNT];        /* ServerQuery on the wire -> protocol-82 value */
    bool feature[TC_FEAT_COUNT];
};

/* True for the seven versions above. */
bool proto_known(uint32_t version);

/* Comma-separated list of the versions, for messages. */
const char *proto_version_list(void);

/* The versions, newest first; *n gets their count. */
const uint32_t *proto_versions(size_t *n);

/* Fill p for a known version. */
void proto_init(struct tc_proto *p, uint32_t version);

static inline bool proto_has(const struct tc_proto *p, enum tc_event_type id)
{
    return p->wire[id] != TC_NO_TYPE;
}

static inline bool proto_feature(const struct tc_proto *p, enum tc_feature f)
{
    return p->feature[f];
}

/* The type byte of an event the protocol has; a missing one is a bug of
 * the scenario (it must skip the family): reported, then abort(). */
uint8_t proto_wire(const struct tc_proto *p, uint8_t id);

/* Bytes of the fixed part an encoder builds for the id (type byte, fields,
 * and the length field of a string or transfer event). */
unsigned proto_built_size(const struct tc_proto *p, uint8_t id);

/* The protocol-82 ServerQuery value of a query type byte (values past the
 * numbering are returned as they are). */
static inline uint8_t proto_query(const struct tc_proto *p, uint8_t wire_type)
{
    return wire_type < TC_SQ_COUNT ? p->query[wire_type] : wire_type;
}

/* "NUMBER SIZE NAME" per type of the protocol (size as upstream's
 * QueueDataSize: type byte and fixed fields, no length field). */
void proto_list_types(const struct tc_proto *p, FILE *out);

#endif
