/* protocols.c - the tables of protocols.h, transcribed from each
 * release's QueueType enum and QueueDataSize (public/common/TracyQueue.hpp),
 * ServerQuery enum and WelcomeMessage (public/common/TracyProtocol.hpp) and
 * summed up in spec protocol-older.md. One row per event of protocol 82 in
 * its QueueType order says since which protocol the event exists and its
 * size; an older protocol numbers the events it has in the same order (every
 * older enum is protocol 82's with events left out), so the type bytes of
 * every protocol follow from the rows. */
#include "protocols.h"

#include <stdlib.h>

#define P_NEWEST 82

static const uint32_t versions[] = { 82, 76, 74, 72, 69, 66, 64 };
static const char *const releases[] = { "v0.14.0", "v0.13.1", "v0.12.2", "5479a42e",
                                        "v0.11.1", "v0.11.0", "v0.10" };
#define N_VERSIONS (sizeof(versions) / sizeof(versions[0]))

/* One event: the first protocol that has it, its size (type byte
 * included) and, for the five events that grew, the size before
 * `grew_in`; `len` is the width of the length field behind the fixed part
 * (strings, transfers). */
struct row {
    const char *name;
    uint8_t since;
    uint8_t size;
    uint8_t old_size;
    uint8_t grew_in;
    uint8_t len;
};

#define R(id_, name_, since_, size_) [id_] = { name_, since_, size_, 0, 0, 0 }
#define GREW(id_, name_, size_, old_, in_) [id_] = { name_, 64, size_, old_, in_, 0 }
#define STR(id_, name_, since_, size_, len_) [id_] = { name_, since_, size_, 0, 0, len_ }

static const struct row rows[TC_EV_TYPE_COUNT] = {
    R(0, "ZoneText", 64, 1),
    R(1, "ZoneName", 64, 1),
    GREW(2, "Message", 10, 9, 82),
    GREW(3, "MessageColor", 13, 12, 82),
    GREW(4, "MessageCallstack", 10, 9, 82),
    GREW(5, "MessageColorCallstack", 13, 12, 82),
    R(6, "MessageAppInfo", 64, 9),
    R(7, "ZoneBeginAllocSrcLoc", 64, 9),
    R(8, "ZoneBeginAllocSrcLocCallstack", 64, 9),
    R(9, "CallstackSerial", 64, 1),
    R(10, "Callstack", 64, 1),
    R(11, "CallstackAlloc", 64, 1),
    R(12, "CallstackSample", 64, 13),
    R(13, "CallstackSample32", 82, 9),
    R(14, "CallstackSample16", 82, 7),
    R(15, "CallstackSampleContextSwitch", 64, 13),
    R(16, "CallstackSampleContextSwitch32", 82, 9),
    R(17, "CallstackSampleContextSwitch16", 82, 7),
    R(18, "FrameImage", 64, 10),
    R(19, "ZoneBegin", 64, 17),
    R(20, "ZoneBegin32", 82, 13),
    R(21, "ZoneBegin16", 82, 11),
    R(22, "ZoneBeginCallstack", 64, 17),
    R(23, "ZoneBeginCallstack32", 82, 13),
    R(24, "ZoneBeginCallstack16", 82, 11),
    R(25, "ZoneEnd", 64, 9),
    R(26, "ZoneEnd32", 82, 5),
    R(27, "ZoneEnd16", 82, 3),
    R(28, "LockWait", 64, 17),
    R(29, "LockObtain", 64, 17),
    R(30, "LockRelease", 64, 13),
    R(31, "LockSharedWait", 64, 17),
    R(32, "LockSharedObtain", 64, 17),
    R(33, "LockSharedRelease", 64, 17),
    R(34, "LockName", 64, 5),
    R(35, "MemAlloc", 64, 27),
    R(36, "MemAllocNamed", 64, 27),
    R(37, "MemFree", 64, 21),
    R(38, "MemFreeNamed", 64, 21),
    R(39, "MemAllocCallstack", 64, 27),
    R(40, "MemAllocCallstackNamed", 64, 27),
    R(41, "MemFreeCallstack", 64, 21),
    R(42, "MemFreeCallstackNamed", 64, 21),
    R(43, "MemDiscard", 72, 21),
    R(44, "MemDiscardCallstack", 72, 21),
    R(45, "GpuZoneBegin", 64, 24),
    R(46, "GpuZoneBeginCallstack", 64, 24),
    R(47, "GpuZoneBeginAllocSrcLoc", 64, 16),
    R(48, "GpuZoneBeginAllocSrcLocCallstack", 64, 16),
    R(49, "GpuZoneEnd", 64, 16),
    R(50, "GpuZoneBeginSerial", 64, 24),
    R(51, "GpuZoneBeginCallstackSerial", 64, 24),
    R(52, "GpuZoneBeginAllocSrcLocSerial", 64, 16),
    R(53, "GpuZoneBeginAllocSrcLocCallstackSerial", 64, 16),
    R(54, "GpuZoneEndSerial", 64, 16),
    R(55, "PlotDataInt", 64, 25),
    R(56, "PlotDataFloat", 64, 21),
    R(57, "PlotDataDouble", 64, 25),
    GREW(58, "ContextSwitch", 23, 20, 74),
    GREW(59, "ThreadWakeup", 16, 13, 74),
    R(60, "GpuTime", 64, 12),
    R(61, "GpuContextName", 64, 2),
    R(62, "GpuAnnotationName", 76, 10),
    R(63, "CallstackFrameSize", 64, 10),
    R(64, "SymbolInformation", 64, 13),
    R(65, "ExternalNameMetadata", 64, 1),
    R(66, "SymbolCodeMetadata", 64, 1),
    R(67, "SourceCodeMetadata", 64, 1),
    GREW(68, "FiberEnter", 25, 21, 69),
    R(69, "FiberLeave", 64, 13),
    R(70, "SectionEnter", 82, 15),
    R(71, "SectionLeave", 82, 13),
    R(72, "SectionSetup", 82, 3),
    R(73, "Terminate", 64, 1),
    R(74, "KeepAlive", 64, 1),
    R(75, "ThreadContext", 64, 5),
    R(76, "GpuCalibration", 64, 26),
    R(77, "GpuTimeSync", 66, 18),
    R(78, "Crash", 64, 1),
    R(79, "CrashReport", 64, 17),
    R(80, "ZoneValidation", 64, 5),
    R(81, "ZoneColor", 64, 4),
    R(82, "ZoneValue", 64, 9),
    R(83, "FrameMarkMsg", 64, 17),
    R(84, "FrameMarkMsgStart", 64, 17),
    R(85, "FrameMarkMsgEnd", 64, 17),
    R(86, "FrameVsync", 64, 13),
    R(87, "SourceLocation", 64, 32),
    R(88, "LockAnnounce", 64, 22),
    R(89, "LockTerminate", 64, 13),
    R(90, "LockMark", 64, 17),
    R(91, "MessageLiteral", 64, 17),
    R(92, "MessageLiteralColor", 64, 20),
    R(93, "MessageLiteralCallstack", 64, 17),
    R(94, "MessageLiteralColorCallstack", 64, 20),
    R(95, "GpuNewContext", 64, 28),
    R(96, "CallstackFrame", 64, 17),
    R(97, "SysTimeReport", 64, 13),
    R(98, "SysPowerReport", 64, 25),
    R(99, "TidToPid", 64, 17),
    R(100, "HwSampleCpuCycle", 64, 17),
    R(101, "HwSampleInstructionRetired", 64, 17),
    R(102, "HwSampleCacheReference", 64, 17),
    R(103, "HwSampleCacheMiss", 64, 17),
    R(104, "HwSampleBranchRetired", 64, 17),
    R(105, "HwSampleBranchMiss", 64, 17),
    R(106, "PlotConfig", 64, 16),
    R(107, "ParamSetup", 64, 18),
    R(108, "AckServerQueryNoop", 64, 1),
    R(109, "AckSourceCodeNotAvailable", 64, 5),
    R(110, "AckSymbolCodeNotAvailable", 64, 1),
    GREW(111, "CpuTopology", 17, 13, 69),
    STR(112, "SingleStringData", 64, 1, 2),
    STR(113, "SecondStringData", 64, 1, 2),
    STR(114, "SingleStringData8", 82, 1, 1),
    STR(115, "SecondStringData8", 82, 1, 1),
    R(116, "MemNamePayload", 64, 9),
    R(117, "ThreadGroupHint", 69, 9),
    R(118, "GpuZoneAnnotation", 76, 24),
    STR(119, "StringData", 64, 9, 2),
    STR(120, "ThreadName", 64, 9, 2),
    STR(121, "PlotName", 64, 9, 2),
    STR(122, "SourceLocationPayload", 64, 9, 2),
    STR(123, "CallstackPayload", 64, 9, 2),
    STR(124, "CallstackAllocPayload", 64, 9, 2),
    STR(125, "FrameName", 64, 9, 2),
    STR(126, "FrameImageData", 64, 9, 4),
    STR(127, "ExternalName", 64, 9, 2),
    STR(128, "ExternalThreadName", 64, 9, 2),
    STR(129, "SymbolCode", 64, 9, 4),
    STR(130, "SourceCode", 64, 9, 4),
    STR(131, "FiberName", 64, 9, 2),
};

/* Protocols [since, until] of each feature. */
static const struct {
    uint8_t since, until;
} features[TC_FEAT_COUNT] = {
    [TC_FEAT_WELCOME_DELAY] = { 64, 74 },
    [TC_FEAT_COMPACT_TIMES] = { 82, P_NEWEST },
    [TC_FEAT_MESSAGE_METADATA] = { 82, P_NEWEST },
    [TC_FEAT_SHORT_STRINGS] = { 82, P_NEWEST },
    [TC_FEAT_SAMPLE_THREAD_FIRST] = { 82, P_NEWEST },
    [TC_FEAT_PARAM_TRIGGER] = { 82, P_NEWEST },
    [TC_FEAT_FIBER_GROUP_HINT] = { 69, P_NEWEST },
    [TC_FEAT_TOPOLOGY_DIE] = { 69, P_NEWEST },
    [TC_FEAT_SCHED_DETAILS] = { 74, P_NEWEST },
    [TC_FEAT_SAMPLES_SET_LAST_TIME] = { 66, P_NEWEST },
};

bool proto_known(uint32_t version)
{
    for (size_t i = 0; i < N_VERSIONS; i++)
        if (versions[i] == version)
            return true;
    return false;
}

const char *proto_version_list(void)
{
    return "64, 66, 69, 72, 74, 76, 82";
}

const uint32_t *proto_versions(size_t *n)
{
    *n = N_VERSIONS;
    return versions;
}

/* ServerQuery numbering: 64 has Disconnect 8, CallstackFrame 9 and
 * ExternalName 10; 66 and later ExternalName 8, Disconnect 9,
 * CallstackFrame 10. The protocol-82 values are the 66+ ones. */
static void init_queries(struct tc_proto *p)
{
    for (uint8_t q = 0; q < TC_SQ_COUNT; q++)
        p->query[q] = q;
    if (p->version == 64) {
        p->query[8] = TC_SQ_DISCONNECT;
        p->query[9] = TC_SQ_CALLSTACK_FRAME;
        p->query[10] = TC_SQ_EXTERNAL_NAME;
    }
}

void proto_init(struct tc_proto *p, uint32_t version)
{
    p->version = version;
    p->release = "?";
    for (size_t i = 0; i < N_VERSIONS; i++)
        if (versions[i] == version)
            p->release = releases[i];
    for (int f = 0; f < TC_FEAT_COUNT; f++)
        p->feature[f] = version >= features[f].since && version <= features[f].until;
    p->welcome_size = p->feature[TC_FEAT_WELCOME_DELAY] ? TC_WELCOME_SIZE_OLD : TC_WELCOME_SIZE;
    for (int b = 0; b < 256; b++)
        p->id[b] = TC_NO_TYPE;
    uint8_t next = 0;
    for (int id = 0; id < TC_EV_TYPE_COUNT; id++) {
        if (rows[id].since > version) {
            p->wire[id] = TC_NO_TYPE;
            continue;
        }
        p->wire[id] = next;
        p->id[next] = (uint8_t)id;
        next++;
    }
    p->n_types = next;
    init_queries(p);
}

uint8_t proto_wire(const struct tc_proto *p, uint8_t id)
{
    if (id >= TC_EV_TYPE_COUNT || p->wire[id] == TC_NO_TYPE) {
        fprintf(stderr, "tracy-test-client: bug: event %s sent in protocol %u, which lacks it\n",
                id < TC_EV_TYPE_COUNT ? rows[id].name : "?", p->version);
        abort();
    }
    return p->wire[id];
}

/* QueueDataSize of the id in the protocol. */
static unsigned queue_size(const struct tc_proto *p, uint8_t id)
{
    const struct row *r = &rows[id];
    return r->grew_in && p->version < r->grew_in ? r->old_size : r->size;
}

unsigned proto_built_size(const struct tc_proto *p, uint8_t id)
{
    return queue_size(p, id) + rows[id].len;
}

void proto_list_types(const struct tc_proto *p, FILE *out)
{
    fprintf(out, "# protocol %u (Tracy %s): type number, QueueDataSize, name\n", p->version,
            p->release);
    for (int w = 0; w < p->n_types; w++)
        fprintf(out, "%d %u %s\n", w, queue_size(p, p->id[w]), rows[p->id[w]].name);
}
