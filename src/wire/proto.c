/* proto.c - tables of the protocol-82 event types: wire sizes and names. */
#include "proto.h"

#include <stddef.h>

const uint8_t proto_event_size[EV_TYPE_COUNT] = {
    1, 1, 10, 13, 10, 13, 9, 9, 9, 1, 1, 1,  /* 0.. */
    13, 9, 7, 13, 9, 7, 10, 17, 13, 11, 17, 13,  /* 12.. */
    11, 9, 5, 3, 17, 17, 13, 17, 17, 17, 5, 27,  /* 24.. */
    27, 21, 21, 27, 27, 21, 21, 21, 21, 24, 24, 16,  /* 36.. */
    16, 16, 24, 24, 16, 16, 16, 25, 21, 25, 23, 16,  /* 48.. */
    12, 2, 10, 10, 13, 0, 0, 0, 25, 13, 15, 13,  /* 60.. */
    3, 1, 1, 5, 26, 18, 1, 17, 5, 4, 9, 17,  /* 72.. */
    17, 17, 13, 32, 22, 13, 17, 17, 20, 17, 20, 28,  /* 84.. */
    17, 13, 25, 17, 17, 17, 17, 17, 17, 17, 16, 18,  /* 96.. */
    1, 5, 1, 17, 1, 1, 1, 1, 9, 9, 24, 9,  /* 108.. */
    9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,  /* 120.. */
};

static const char *const event_names[EV_TYPE_COUNT] = {
    "ZoneText",
    "ZoneName",
    "Message",
    "MessageColor",
    "MessageCallstack",
    "MessageColorCallstack",
    "MessageAppInfo",
    "ZoneBeginAllocSrcLoc",
    "ZoneBeginAllocSrcLocCallstack",
    "CallstackSerial",
    "Callstack",
    "CallstackAlloc",
    "CallstackSample",
    "CallstackSample32",
    "CallstackSample16",
    "CallstackSampleContextSwitch",
    "CallstackSampleContextSwitch32",
    "CallstackSampleContextSwitch16",
    "FrameImage",
    "ZoneBegin",
    "ZoneBegin32",
    "ZoneBegin16",
    "ZoneBeginCallstack",
    "ZoneBeginCallstack32",
    "ZoneBeginCallstack16",
    "ZoneEnd",
    "ZoneEnd32",
    "ZoneEnd16",
    "LockWait",
    "LockObtain",
    "LockRelease",
    "LockSharedWait",
    "LockSharedObtain",
    "LockSharedRelease",
    "LockName",
    "MemAlloc",
    "MemAllocNamed",
    "MemFree",
    "MemFreeNamed",
    "MemAllocCallstack",
    "MemAllocCallstackNamed",
    "MemFreeCallstack",
    "MemFreeCallstackNamed",
    "MemDiscard",
    "MemDiscardCallstack",
    "GpuZoneBegin",
    "GpuZoneBeginCallstack",
    "GpuZoneBeginAllocSrcLoc",
    "GpuZoneBeginAllocSrcLocCallstack",
    "GpuZoneEnd",
    "GpuZoneBeginSerial",
    "GpuZoneBeginCallstackSerial",
    "GpuZoneBeginAllocSrcLocSerial",
    "GpuZoneBeginAllocSrcLocCallstackSerial",
    "GpuZoneEndSerial",
    "PlotDataInt",
    "PlotDataFloat",
    "PlotDataDouble",
    "ContextSwitch",
    "ThreadWakeup",
    "GpuTime",
    "GpuContextName",
    "GpuAnnotationName",
    "CallstackFrameSize",
    "SymbolInformation",
    "ExternalNameMetadata",
    "SymbolCodeMetadata",
    "SourceCodeMetadata",
    "FiberEnter",
    "FiberLeave",
    "SectionEnter",
    "SectionLeave",
    "SectionSetup",
    "Terminate",
    "KeepAlive",
    "ThreadContext",
    "GpuCalibration",
    "GpuTimeSync",
    "Crash",
    "CrashReport",
    "ZoneValidation",
    "ZoneColor",
    "ZoneValue",
    "FrameMarkMsg",
    "FrameMarkMsgStart",
    "FrameMarkMsgEnd",
    "FrameVsync",
    "SourceLocation",
    "LockAnnounce",
    "LockTerminate",
    "LockMark",
    "MessageLiteral",
    "MessageLiteralColor",
    "MessageLiteralCallstack",
    "MessageLiteralColorCallstack",
    "GpuNewContext",
    "CallstackFrame",
    "SysTimeReport",
    "SysPowerReport",
    "TidToPid",
    "HwSampleCpuCycle",
    "HwSampleInstructionRetired",
    "HwSampleCacheReference",
    "HwSampleCacheMiss",
    "HwSampleBranchRetired",
    "HwSampleBranchMiss",
    "PlotConfig",
    "ParamSetup",
    "AckServerQueryNoop",
    "AckSourceCodeNotAvailable",
    "AckSymbolCodeNotAvailable",
    "CpuTopology",
    "SingleStringData",
    "SecondStringData",
    "SingleStringData8",
    "SecondStringData8",
    "MemNamePayload",
    "ThreadGroupHint",
    "GpuZoneAnnotation",
    "StringData",
    "ThreadName",
    "PlotName",
    "SourceLocationPayload",
    "CallstackPayload",
    "CallstackAllocPayload",
    "FrameName",
    "FrameImageData",
    "ExternalName",
    "ExternalThreadName",
    "SymbolCode",
    "SourceCode",
    "FiberName",
};

const char *proto_event_name(unsigned type)
{
    return type < EV_TYPE_COUNT ? event_names[type] : NULL;
}

static const char *const query_names[] = {
    "Terminate", "String", "ThreadString", "SourceLocation", "PlotName",
    "FrameName", "Parameter", "FiberName", "ExternalName", "Disconnect",
    "CallstackFrame", "Symbol", "SymbolCode", "SourceCode", "DataTransfer",
    "DataTransferPart",
};

const char *proto_query_name(unsigned type)
{
    return type < sizeof query_names / sizeof query_names[0] ? query_names[type] : "?";
}
