/* protocol.h - Tracy protocol 82 constants used by tracy-test-client:
 * event (QueueType) numbers, server query numbers, handshake values and
 * framing limits (spec protocol-82.md §2-§6). The TC_EV_* and TC_SQ_*
 * values are also the ids the client uses internally in every protocol;
 * protocols.h maps them to an older protocol's numbers. */
#ifndef TC_PROTOCOL_H
#define TC_PROTOCOL_H

#include <stdint.h>

#define TC_PROTOCOL_VERSION 82
#define TC_SHIBBOLETH "TracyPrf"
#define TC_SHIBBOLETH_SIZE 8
#define TC_WELCOME_SIZE 1170
#define TC_QUERY_SIZE 13

/* §3.1: maximum decompressed frame and maximum compressed block. */
#define TC_FRAME_SIZE 262144
#define TC_LZ4_SIZE 263188

/* §6.3: offsets of the compact time forms. */
#define TC_OFFSET_8BIT 256
#define TC_OFFSET_16BIT 65536LL
#define TC_OFFSET_32BIT 4295032832LL

/* §2.2 HandshakeStatus */
enum tc_handshake {
    TC_HS_WELCOME = 1,
    TC_HS_PROTOCOL_MISMATCH = 2,
    TC_HS_NOT_AVAILABLE = 3,
};

/* §2.3 CpuArchitecture */
#define TC_CPU_ARCH_X64 2

/* §2.3 WelcomeFlag bits */
#define TC_WELCOME_ON_DEMAND 0x01
#define TC_WELCOME_CODE_TRANSFER 0x04

/* §2.4 OnDemandPayloadMessage */
#define TC_ON_DEMAND_SIZE 16

/* §4.2 ServerQuery values */
enum tc_server_query {
    TC_SQ_TERMINATE = 0,
    TC_SQ_STRING = 1,
    TC_SQ_THREAD_STRING = 2,
    TC_SQ_SOURCE_LOCATION = 3,
    TC_SQ_PLOT_NAME = 4,
    TC_SQ_FRAME_NAME = 5,
    TC_SQ_PARAMETER = 6,
    TC_SQ_FIBER_NAME = 7,
    TC_SQ_EXTERNAL_NAME = 8,
    TC_SQ_DISCONNECT = 9,
    TC_SQ_CALLSTACK_FRAME = 10,
    TC_SQ_SYMBOL = 11,
    TC_SQ_SYMBOL_CODE = 12,
    TC_SQ_SOURCE_CODE = 13,
    TC_SQ_DATA_TRANSFER = 14,
    TC_SQ_DATA_TRANSFER_PART = 15,
    TC_SQ_COUNT = 16,
};

/* §5.2 QueueType values the client sends (types 65-67 never travel). */
enum tc_event_type {
    TC_EV_ZONE_TEXT = 0,
    TC_EV_ZONE_NAME = 1,
    TC_EV_MESSAGE = 2,
    TC_EV_MESSAGE_COLOR = 3,
    TC_EV_MESSAGE_CALLSTACK = 4,
    TC_EV_MESSAGE_COLOR_CALLSTACK = 5,
    TC_EV_MESSAGE_APP_INFO = 6,
    TC_EV_ZONE_BEGIN_ALLOC_SRCLOC = 7,
    TC_EV_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK = 8,
    TC_EV_CALLSTACK_SERIAL = 9,
    TC_EV_CALLSTACK = 10,
    TC_EV_CALLSTACK_ALLOC = 11,
    TC_EV_CALLSTACK_SAMPLE = 12,    /* 13 = 32-bit form, 14 = 16-bit form */
    TC_EV_CALLSTACK_SAMPLE_CONTEXT_SWITCH = 15, /* 16, 17 */
    TC_EV_FRAME_IMAGE = 18,
    TC_EV_ZONE_BEGIN = 19,          /* 20 = 32-bit form, 21 = 16-bit form */
    TC_EV_ZONE_BEGIN_CALLSTACK = 22, /* 23, 24 */
    TC_EV_ZONE_END = 25,            /* 26, 27 */
    TC_EV_LOCK_WAIT = 28,
    TC_EV_LOCK_OBTAIN = 29,
    TC_EV_LOCK_RELEASE = 30,
    TC_EV_LOCK_SHARED_WAIT = 31,
    TC_EV_LOCK_SHARED_OBTAIN = 32,
    TC_EV_LOCK_SHARED_RELEASE = 33,
    TC_EV_LOCK_NAME = 34,
    TC_EV_MEM_ALLOC = 35,
    TC_EV_MEM_ALLOC_NAMED = 36,
    TC_EV_MEM_FREE = 37,
    TC_EV_MEM_FREE_NAMED = 38,
    TC_EV_MEM_ALLOC_CALLSTACK = 39,
    TC_EV_MEM_ALLOC_CALLSTACK_NAMED = 40,
    TC_EV_MEM_FREE_CALLSTACK = 41,
    TC_EV_MEM_FREE_CALLSTACK_NAMED = 42,
    TC_EV_MEM_DISCARD = 43,
    TC_EV_MEM_DISCARD_CALLSTACK = 44,
    TC_EV_GPU_ZONE_BEGIN = 45,
    TC_EV_GPU_ZONE_BEGIN_CALLSTACK = 46,
    TC_EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC = 47,
    TC_EV_GPU_ZONE_BEGIN_ALLOC_SRCLOC_CALLSTACK = 48,
    TC_EV_GPU_ZONE_END = 49,
    TC_EV_GPU_ZONE_BEGIN_SERIAL = 50, /* +5: the serial form of 45..49 */
    TC_EV_GPU_ZONE_END_SERIAL = 54,
    TC_EV_PLOT_DATA_INT = 55,
    TC_EV_PLOT_DATA_FLOAT = 56,
    TC_EV_PLOT_DATA_DOUBLE = 57,
    TC_EV_CONTEXT_SWITCH = 58,
    TC_EV_THREAD_WAKEUP = 59,
    TC_EV_GPU_TIME = 60,
    TC_EV_GPU_CONTEXT_NAME = 61,
    TC_EV_GPU_ANNOTATION_NAME = 62,
    TC_EV_CALLSTACK_FRAME_SIZE = 63,
    TC_EV_SYMBOL_INFORMATION = 64,
    TC_EV_FIBER_ENTER = 68,
    TC_EV_FIBER_LEAVE = 69,
    TC_EV_SECTION_ENTER = 70,
    TC_EV_SECTION_LEAVE = 71,
    TC_EV_SECTION_SETUP = 72,
    TC_EV_TERMINATE = 73,
    TC_EV_KEEP_ALIVE = 74,
    TC_EV_THREAD_CONTEXT = 75,
    TC_EV_GPU_CALIBRATION = 76,
    TC_EV_GPU_TIME_SYNC = 77,
    TC_EV_CRASH = 78,
    TC_EV_CRASH_REPORT = 79,
    TC_EV_ZONE_VALIDATION = 80,
    TC_EV_ZONE_COLOR = 81,
    TC_EV_ZONE_VALUE = 82,
    TC_EV_FRAME_MARK_MSG = 83,
    TC_EV_FRAME_MARK_MSG_START = 84,
    TC_EV_FRAME_MARK_MSG_END = 85,
    TC_EV_FRAME_VSYNC = 86,
    TC_EV_SOURCE_LOCATION = 87,
    TC_EV_LOCK_ANNOUNCE = 88,
    TC_EV_LOCK_TERMINATE = 89,
    TC_EV_LOCK_MARK = 90,
    TC_EV_MESSAGE_LITERAL = 91,
    TC_EV_MESSAGE_LITERAL_COLOR = 92,
    TC_EV_MESSAGE_LITERAL_CALLSTACK = 93,
    TC_EV_MESSAGE_LITERAL_COLOR_CALLSTACK = 94,
    TC_EV_GPU_NEW_CONTEXT = 95,
    TC_EV_CALLSTACK_FRAME = 96,
    TC_EV_SYS_TIME_REPORT = 97,
    TC_EV_SYS_POWER_REPORT = 98,
    TC_EV_TID_TO_PID = 99,
    TC_EV_HW_SAMPLE_CPU_CYCLE = 100, /* ..105: the six HwSample kinds */
    TC_EV_PLOT_CONFIG = 106,
    TC_EV_PARAM_SETUP = 107,
    TC_EV_ACK_SERVER_QUERY_NOOP = 108,
    TC_EV_ACK_SOURCE_CODE_NOT_AVAILABLE = 109,
    TC_EV_ACK_SYMBOL_CODE_NOT_AVAILABLE = 110,
    TC_EV_CPU_TOPOLOGY = 111,
    TC_EV_SINGLE_STRING_DATA = 112,
    TC_EV_SECOND_STRING_DATA = 113,
    TC_EV_SINGLE_STRING_DATA8 = 114,
    TC_EV_SECOND_STRING_DATA8 = 115,
    TC_EV_MEM_NAME_PAYLOAD = 116,
    TC_EV_THREAD_GROUP_HINT = 117,
    TC_EV_GPU_ZONE_ANNOTATION = 118,
    TC_EV_STRING_DATA = 119,
    TC_EV_THREAD_NAME = 120,
    TC_EV_PLOT_NAME = 121,
    TC_EV_SOURCE_LOCATION_PAYLOAD = 122,
    TC_EV_CALLSTACK_PAYLOAD = 123,
    TC_EV_CALLSTACK_ALLOC_PAYLOAD = 124,
    TC_EV_FRAME_NAME = 125,
    TC_EV_FRAME_IMAGE_DATA = 126,
    TC_EV_EXTERNAL_NAME = 127,
    TC_EV_EXTERNAL_THREAD_NAME = 128,
    TC_EV_SYMBOL_CODE = 129,
    TC_EV_SOURCE_CODE = 130,
    TC_EV_FIBER_NAME = 131,
    TC_EV_TYPE_COUNT = 132,
};

/* Message metadata byte (§5.2): low nibble source, high nibble severity. */
enum tc_severity {
    TC_SEV_TRACE = 0,
    TC_SEV_DEBUG = 1,
    TC_SEV_INFO = 2,
    TC_SEV_WARNING = 3,
    TC_SEV_ERROR = 4,
    TC_SEV_FATAL = 5,
};
#define TC_MSG_META(severity) ((uint8_t)((severity) << 4)) /* source = User */

/* PlotConfig.type */
enum tc_plot_format { TC_PLOT_NUMBER = 0, TC_PLOT_MEMORY = 1, TC_PLOT_PERCENTAGE = 2 };

/* LockAnnounce.type */
enum tc_lock_type { TC_LOCK_EXCLUSIVE = 0, TC_LOCK_SHARED = 1 };

/* GpuNewContext.type (GpuContextType) and .flags */
enum tc_gpu_type { TC_GPU_OPENGL = 1, TC_GPU_VULKAN = 2 };
#define TC_GPU_FLAG_CALIBRATION 0x01

/* ParamSetup.type */
enum tc_param_type { TC_PARAM_INTEGER = 0, TC_PARAM_BOOLEAN = 1, TC_PARAM_TRIGGER = 2 };

/* HwSample kinds, in QueueType order from TC_EV_HW_SAMPLE_CPU_CYCLE. */
enum tc_hw_kind {
    TC_HW_CPU_CYCLE, TC_HW_INSTRUCTION_RETIRED, TC_HW_CACHE_REFERENCE,
    TC_HW_CACHE_MISS, TC_HW_BRANCH_RETIRED, TC_HW_BRANCH_MISS, TC_HW_KINDS,
};

#endif
