/* proto.h - constants of the Tracy network protocol 82 (Tracy v0.14.0).
 *
 * Event type numbers, their fixed wire sizes, the handshake and query
 * constants. See ../shared/spec/protocol-82.md, sections 2-5.  Only facts
 * live here; decoding is in event.c, framing in frame.c. Protocol 82's
 * event numbers are also the canonical types every older protocol's bytes
 * are translated to (protocols.h, wire/proto/). */
#ifndef TC_PROTO_H
#define TC_PROTO_H

#include <stdint.h>

#include "query.h"

#define PROTO_VERSION 82u
#define PROTO_SHIBBOLETH "TracyPrf"
#define PROTO_SHIBBOLETH_SIZE 8

#define PROTO_WELCOME_SIZE 1170
#define PROTO_ONDEMAND_SIZE 16

#define PROTO_TARGET_FRAME_SIZE (256 * 1024)
/* LZ4_COMPRESSBOUND(TargetFrameSize): the largest compressed frame. */
#define PROTO_LZ4_MAX_FRAME (PROTO_TARGET_FRAME_SIZE + PROTO_TARGET_FRAME_SIZE / 255 + 16)

#define PROTO_OFFSET_8BIT 256
#define PROTO_OFFSET_16BIT 65536
#define PROTO_OFFSET_32BIT (65536LL + 4294967296LL)

#define PROTO_QUERY_PACKET_SIZE 13

/* The status byte a client answers the handshake with. Upstream's server
 * also names 0 (pending) and 4 (dropped), but only for its own state: no
 * client sends them, so a peer that does is no Tracy client. */
enum handshake_status {
    HS_WELCOME = 1,
    HS_PROTOCOL_MISMATCH = 2,
    HS_NOT_AVAILABLE = 3,
};

enum welcome_flag {
    WF_ON_DEMAND = 0x01,
    WF_IGNORE_MEM_FAULTS = 0x02,
    WF_CODE_TRANSFER = 0x04,
    WF_COMBINE_SAMPLES = 0x08,
    WF_IDENTIFY_SAMPLES = 0x10,
};


/* QueueType: every event type of protocol 82. */
enum ev_type {
    EV_ZONE_TEXT = 0,
    EV_ZONE_NAME,
    EV_MESSAGE,
    EV_MESSAGE_COLOR,
    EV_MESSAGE_CALLSTACK,
    EV_MESSAGE_COLOR_CALLSTACK,
    EV_MESSAGE_APP_INFO,
    EV_ZONE_BEGIN_ALLOC_SRCLOC,
    EV_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK,
    EV_CALLSTACK_SERIAL,
    EV_CALLSTACK = 10,
    EV_CALLSTACK_ALLOC,
    EV_CALLSTACK_SAMPLE,
    EV_CALLSTACK_SAMPLE32,
    EV_CALLSTACK_SAMPLE16,
    EV_CALLSTACK_SAMPLE_CTX_SWITCH,
    EV_CALLSTACK_SAMPLE_CTX_SWITCH32,
    EV_CALLSTACK_SAMPLE_CTX_SWITCH16,
    EV_FRAME_IMAGE,
    EV_ZONE_BEGIN,
    EV_ZONE_BEGIN32 = 20,
    EV_ZONE_BEGIN16,
    EV_ZONE_BEGIN_CALLSTACK,
    EV_ZONE_BEGIN_CALLSTACK32,
    EV_ZONE_BEGIN_CALLSTACK16,
    EV_ZONE_END,
    EV_ZONE_END32,
    EV_ZONE_END16,
    EV_LOCK_WAIT,
    EV_LOCK_OBTAIN,
    EV_LOCK_RELEASE = 30,
    EV_LOCK_SHARED_WAIT,
    EV_LOCK_SHARED_OBTAIN,
    EV_LOCK_SHARED_RELEASE,
    EV_LOCK_NAME,
    EV_MEM_ALLOC,
    EV_MEM_ALLOC_NAMED,
    EV_MEM_FREE,
    EV_MEM_FREE_NAMED,
    EV_MEM_ALLOC_CALLSTACK,
    EV_MEM_ALLOC_CALLSTACK_NAMED = 40,
    EV_MEM_FREE_CALLSTACK,
    EV_MEM_FREE_CALLSTACK_NAMED,
    EV_MEM_DISCARD,
    EV_MEM_DISCARD_CALLSTACK,
    EV_GPU_ZONE_BEGIN,
    EV_GPU_ZONE_BEGIN_CALLSTACK,
    EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC,
    EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK,
    EV_GPU_ZONE_END,
    EV_GPU_ZONE_BEGIN_SERIAL = 50,
    EV_GPU_ZONE_BEGIN_CALLSTACK_SERIAL,
    EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC_SERIAL,
    EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK_SERIAL,
    EV_GPU_ZONE_END_SERIAL,
    EV_PLOT_DATA_INT,
    EV_PLOT_DATA_FLOAT,
    EV_PLOT_DATA_DOUBLE,
    EV_CONTEXT_SWITCH,
    EV_THREAD_WAKEUP,
    EV_GPU_TIME = 60,
    EV_GPU_CONTEXT_NAME,
    EV_GPU_ANNOTATION_NAME,
    EV_CALLSTACK_FRAME_SIZE,
    EV_SYMBOL_INFORMATION,
    EV_EXTERNAL_NAME_METADATA,  /* client-internal, never on the wire */
    EV_SYMBOL_CODE_METADATA,    /* client-internal, never on the wire */
    EV_SOURCE_CODE_METADATA,    /* client-internal, never on the wire */
    EV_FIBER_ENTER,
    EV_FIBER_LEAVE,
    EV_SECTION_ENTER = 70,
    EV_SECTION_LEAVE,
    EV_SECTION_SETUP,
    EV_TERMINATE,
    EV_KEEP_ALIVE,
    EV_THREAD_CONTEXT,
    EV_GPU_CALIBRATION,
    EV_GPU_TIME_SYNC,
    EV_CRASH,
    EV_CRASH_REPORT,
    EV_ZONE_VALIDATION = 80,
    EV_ZONE_COLOR,
    EV_ZONE_VALUE,
    EV_FRAME_MARK_MSG,
    EV_FRAME_MARK_MSG_START,
    EV_FRAME_MARK_MSG_END,
    EV_FRAME_VSYNC,
    EV_SOURCE_LOCATION,
    EV_LOCK_ANNOUNCE,
    EV_LOCK_TERMINATE,
    EV_LOCK_MARK = 90,
    EV_MESSAGE_LITERAL,
    EV_MESSAGE_LITERAL_COLOR,
    EV_MESSAGE_LITERAL_CALLSTACK,
    EV_MESSAGE_LITERAL_COLOR_CALLSTACK,
    EV_GPU_NEW_CONTEXT,
    EV_CALLSTACK_FRAME,
    EV_SYS_TIME_REPORT,
    EV_SYS_POWER_REPORT,
    EV_TID_TO_PID,
    EV_HW_SAMPLE_CPU_CYCLE = 100,
    EV_HW_SAMPLE_INSTRUCTION_RETIRED,
    EV_HW_SAMPLE_CACHE_REFERENCE,
    EV_HW_SAMPLE_CACHE_MISS,
    EV_HW_SAMPLE_BRANCH_RETIRED,
    EV_HW_SAMPLE_BRANCH_MISS,
    EV_PLOT_CONFIG,
    EV_PARAM_SETUP,
    EV_ACK_SERVER_QUERY_NOOP,
    EV_ACK_SOURCE_CODE_NOT_AVAILABLE,
    EV_ACK_SYMBOL_CODE_NOT_AVAILABLE = 110,
    EV_CPU_TOPOLOGY,
    EV_SINGLE_STRING_DATA,
    EV_SECOND_STRING_DATA,
    EV_SINGLE_STRING_DATA8,
    EV_SECOND_STRING_DATA8,
    EV_MEM_NAME_PAYLOAD,
    EV_THREAD_GROUP_HINT,
    EV_GPU_ZONE_ANNOTATION,
    EV_STRING_DATA,
    EV_THREAD_NAME = 120,
    EV_PLOT_NAME,
    EV_SOURCE_LOCATION_PAYLOAD,
    EV_CALLSTACK_PAYLOAD,
    EV_CALLSTACK_ALLOC_PAYLOAD,
    EV_FRAME_NAME,
    EV_FRAME_IMAGE_DATA,
    EV_EXTERNAL_NAME,
    EV_EXTERNAL_THREAD_NAME,
    EV_SYMBOL_CODE,
    EV_SOURCE_CODE = 130,
    EV_FIBER_NAME,
    EV_TYPE_COUNT
};

/* Fixed wire size of each event, header byte included (QueueDataSize). For
 * types with a trailer it is the size before the trailer. 0 marks the three
 * client-internal types, which never appear on the wire. */
extern const uint8_t proto_event_size[EV_TYPE_COUNT];

/* Human-readable name of an event type ("ZoneBegin"), or NULL. */
const char *proto_event_name(unsigned type);

/* Human-readable name of a server query ("SourceLocation"), or "?". */
const char *proto_query_name(unsigned type);

#endif
