/* families.c - the families of what a capture holds (see families.h). */
#include "families.h"

#include <stdio.h>
#include <string.h>

static const char *const names[FAM_COUNT] = {
    [FAM_ZONES] = "zones",
    [FAM_FRAMES] = "frames",
    [FAM_MESSAGES] = "messages",
    [FAM_PLOTS] = "plots",
    [FAM_LOCKS] = "locks",
    [FAM_MEMORY] = "memory",
    [FAM_CALLSTACKS] = "callstacks",
    [FAM_SAMPLING] = "sampling",
    [FAM_CONTEXT_SWITCHES] = "context-switches",
    [FAM_GPU] = "gpu",
    [FAM_SOURCE_FILES] = "source-files",
    [FAM_SECTIONS] = "sections",
    [FAM_PARAMETERS] = "parameters",
    [FAM_CRASH] = "crash",
};

const char *family_name(family_t f)
{
    return f < FAM_COUNT ? names[f] : "?";
}

int family_by_name(const char *name, size_t len)
{
    for (int f = 0; f < FAM_REQUIRABLE; f++)
        if (strlen(names[f]) == len && memcmp(names[f], name, len) == 0) return f;
    return -1;
}

void family_names_text(char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int f = 0; f < FAM_REQUIRABLE && o < len; f++) {
        int n = snprintf(buf + o, len - o, "%s%s", f ? ", " : "", names[f]);
        if (n < 0) break;
        o += (size_t)n;
    }
}

/* Context switches of threads, not the runs of fibers. */
static uint64_t thread_switches(const model_counts_t *k)
{
    return k->context_switches > k->fiber_runs ? k->context_switches - k->fiber_runs : 0;
}

bool family_present(family_t f, const model_counts_t *k)
{
    switch (f) {
    case FAM_ZONES: return k->zones > 0;
    case FAM_FRAMES: return k->marked_frames > 0;
    case FAM_MESSAGES: return k->messages > 0 || k->app_info > 0;
    case FAM_PLOTS: return k->plots > k->system_plots;
    case FAM_LOCKS: return k->locks > 0;
    case FAM_MEMORY: return k->memory_events > 0;
    case FAM_CALLSTACKS: return k->callstacks > 0;
    case FAM_SAMPLING: return k->samples > 0;
    case FAM_CONTEXT_SWITCHES: return k->cpu_context_switches > 0 || thread_switches(k) > 0;
    case FAM_GPU: return k->gpu_zones > 0;
    case FAM_SOURCE_FILES: return k->source_files > 0;
    case FAM_SECTIONS: return k->sections > 0;
    case FAM_PARAMETERS: return k->params > 0;
    case FAM_CRASH: return k->crashes > 0;
    default: return false;
    }
}

#define COUNT(key, sep, one, many, value) (out[n++] = (family_count_t){ key, sep, one, many, value })

int family_counts(family_t f, const model_counts_t *k, family_count_t *out)
{
    int n = 0;
    switch (f) {
    case FAM_ZONES:
        COUNT("zones", "", "zone", "zones", k->zones);
        COUNT("zone_extras", " (", "with text, name, colour or value)", "with text, name, colour or value)",
              k->zone_extras);
        COUNT("source_locations", ", ", "source location", "source locations", k->source_locations);
        COUNT("threads", ", ", "thread", "threads", k->threads);
        COUNT("fibers", ", ", "fiber", "fibers", k->fibers);
        COUNT("fiber_runs", " (", "run)", "runs)", k->fiber_runs);
        break;
    case FAM_FRAMES:
        COUNT("frames", "", "frame", "frames", k->frames);
        COUNT("marked_frames", "", NULL, NULL, k->marked_frames);
        COUNT("frame_sets", " in ", "frame set", "frame sets", k->frame_sets);
        COUNT("frame_images", ", ", "frame image", "frame images", k->frame_images);
        break;
    case FAM_MESSAGES:
        COUNT("messages", "", "message", "messages", k->messages);
        COUNT("app_info", ", ", "app info line", "app info lines", k->app_info);
        break;
    case FAM_PLOTS:
        COUNT("plots", "", "plot", "plots", k->plots);
        COUNT("system_plots", " (", "of CPU usage or power)", "of CPU usage or power)", k->system_plots);
        COUNT("points", ", ", "point", "points", k->plot_points);
        break;
    case FAM_LOCKS:
        COUNT("locks", "", "lock", "locks", k->locks);
        COUNT("lock_events", ", ", "lock event", "lock events", k->lock_events);
        break;
    case FAM_MEMORY:
        COUNT("memory_events", "", "memory event", "memory events", k->memory_events);
        COUNT("pools", " in ", "pool", "pools", k->memory_pools);
        break;
    case FAM_CALLSTACKS:
        COUNT("callstacks", "", "call stack", "call stacks", k->callstacks);
        COUNT("frames", " of ", "frame", "frames", k->callstack_frames);
        COUNT("symbols", ", ", "symbol", "symbols", k->symbols);
        COUNT("symbol_code", " (", "with code", "with code", k->symbol_code);
        COUNT("symbol_code_bytes", ", ", "byte of it)", "bytes of it)", k->symbol_code_bytes);
        break;
    case FAM_SAMPLING:
        COUNT("samples", "", "sample", "samples", k->samples);
        COUNT("context_switch_samples", " (", "at a context switch)", "at context switches)",
              k->context_switch_samples);
        COUNT("hardware_samples", ", ", "hardware sample", "hardware samples", k->hw_samples);
        break;
    case FAM_CONTEXT_SWITCHES:
        COUNT("cpu_context_switches", "", "CPU context switch", "CPU context switches", k->cpu_context_switches);
        COUNT("thread_context_switches", ", ", "thread context switch", "thread context switches",
              thread_switches(k));
        break;
    case FAM_GPU:
        COUNT("gpu_zones", "", "GPU zone", "GPU zones", k->gpu_zones);
        COUNT("gpu_contexts", " in ", "GPU context", "GPU contexts", k->gpu_contexts);
        break;
    case FAM_SOURCE_FILES:
        COUNT("source_files", "", "source file", "source files", k->source_files);
        COUNT("bytes", " of ", "byte", "bytes", k->source_file_bytes);
        break;
    case FAM_SECTIONS:
        COUNT("sections", "", "section", "sections", k->sections);
        break;
    case FAM_PARAMETERS:
        COUNT("parameters", "", "parameter (not saved in the file)",
              "parameters (not saved in the file)", k->params);
        break;
    case FAM_CRASH:
        COUNT("crashes", "", "crash of the client", "crashes of the client", k->crashes);
        break;
    default: break;
    }
    return n;
}

const char *family_missing_text(family_t f, const model_counts_t *k, int64_t sampling_period, char *buf, size_t len)
{
    const char *sys_start = sampling_period ? "" : " (the client says its sampling period is 0: its system tracing "
                                                   "did not start)";
    switch (f) {
    case FAM_ZONES:
        snprintf(buf, len, "no zones: the program ran no instrumented zone (ZoneScoped...), its client was built "
                 "without TRACY_ENABLE, or the capture ended before a zone did");
        break;
    case FAM_FRAMES:
        snprintf(buf, len, "no frames: the program marks none (FrameMark, FrameMarkNamed, FrameMarkStart/End)");
        break;
    case FAM_MESSAGES:
        snprintf(buf, len, "no messages: the program logs none (TracyMessage, TracyMessageL, TracyAppInfo)");
        break;
    case FAM_PLOTS:
        snprintf(buf, len, "no plots: the program records no values (TracyPlot)%s",
                 k->system_plots ? "; the client's own plots of CPU usage or power do not count" : "");
        break;
    case FAM_LOCKS:
        snprintf(buf, len, "no locks: the program uses no instrumented lock (TracyLockable, TracySharedLockable; "
                 "a plain mutex is not seen)");
        break;
    case FAM_MEMORY:
        snprintf(buf, len, "no memory events: the program reports none (TracyAlloc, TracyFree...); if an "
                 "allocation interposer is to report them through LD_PRELOAD, it did not load into the program");
        break;
    case FAM_CALLSTACKS:
        snprintf(buf, len, "no call stacks: the call-stack depth is 0 (zones, allocations and messages carry "
                 "call stacks only with a depth: ZoneScopedS, TracyAllocS, TRACY_CALLSTACK), or the client "
                 "cannot collect them on its platform");
        break;
    case FAM_SAMPLING:
        snprintf(buf, len, "no samples: sampling needs the client to run as root or with "
                 "/proc/sys/kernel/perf_event_paranoid at most 1, and a client built without TRACY_NO_SAMPLING "
                 "and TRACY_NO_SYSTEM_TRACING (and run without TRACY_NO_SAMPLING=1); sampling does not work in "
                 "most virtual machines%s", sys_start);
        break;
    case FAM_CONTEXT_SWITCHES:
        snprintf(buf, len, "no context switches: they need the client to run as root or with "
                 "/proc/sys/kernel/perf_event_paranoid at most 1 (and tracefs readable), and a client built "
                 "without TRACY_NO_SYSTEM_TRACING and TRACY_NO_CONTEXT_SWITCH (and run without "
                 "TRACY_NO_SYS_TRACE=1)%s%s", sys_start,
                 k->fiber_runs ? "; the runs of fibers do not count" : "");
        break;
    case FAM_GPU:
        if (k->gpu_contexts)
            snprintf(buf, len, "no GPU zones: %llu GPU context%s created, but no zone came: the program must "
                     "collect the context's timestamps (TracyGpuCollect, TracyVkCollect, TracyD3D12Collect...)",
                     (unsigned long long)k->gpu_contexts, k->gpu_contexts == 1 ? " was" : "s were");
        else
            snprintf(buf, len, "no GPU zones: the program has no GPU instrumentation (TracyGpuContext and "
                     "TracyGpuZone, TracyVkZone, TracyD3D12Zone, TracyCLZone...)");
        break;
    case FAM_SOURCE_FILES:
        snprintf(buf, len, "no source files: the client was built without debug information (-g), or it did "
                 "not find the source files it was asked for (moved, or built on another machine)");
        break;
    default:
        snprintf(buf, len, "nothing of %s", family_name(f));
        break;
    }
    return buf;
}
