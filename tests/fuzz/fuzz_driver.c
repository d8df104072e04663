/* fuzz_driver.c - a standalone main for the fuzz targets, for compilers
 * without libFuzzer (gcc in CI): runs every input file given (or found in
 * the directories given), then mutates them for a bounded time with a
 * seeded PRNG (bit flips, byte and word sets, truncations, insertions,
 * erasures, copies, splices), so a failure reproduces from its seed; the
 * input that crashed is written to the crash directory.
 *
 *   fuzz-NAME [-t SECONDS] [-n RUNS] [-s SEED] [-m MAX_LEN] [-o CRASH_DIR] PATH...
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

/* Present when built with a sanitizer; called when it reports an error. */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

typedef struct {
    uint8_t *p;
    size_t n;
} input_t;

typedef struct {
    double seconds;
    uint64_t runs, seed;
    size_t max_len;
    const char *crash_dir;
} opts_t;

/* The input being run and where to save it: the crash handlers (signal
 * and sanitizer death callback) can only reach them through globals. */
static struct {
    const uint8_t *p;
    size_t n;
    uint64_t seed, iter;
    char path[4096];
    volatile sig_atomic_t saved;
} current;

static void save_current(void)
{
    if (current.saved || !current.path[0]) return;
    current.saved = 1;
    int fd = open(current.path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    size_t off = 0;
    while (off < current.n) {
        ssize_t w = write(fd, current.p + off, current.n - off);
        if (w <= 0) break;
        off += (size_t)w;
    }
    close(fd);
    static const char msg[] = "\nfuzz-driver: the failing input was written to ";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)!write(STDERR_FILENO, current.path, strlen(current.path));
    (void)!write(STDERR_FILENO, "\n", 1);
}

static void on_crash_signal(int sig)
{
    save_current();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void run_one(const uint8_t *p, size_t n, const opts_t *o)
{
    current.p = p;
    current.n = n;
    snprintf(current.path, sizeof current.path, "%s/crash-%llu-%llu", o->crash_dir,
             (unsigned long long)current.seed, (unsigned long long)current.iter);
    /* a copy of exactly n bytes, so reads past the end are caught */
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, p, n);
    LLVMFuzzerTestOneInput(copy, n);
    free(copy);
    current.iter++;
}

/* ---- inputs ------------------------------------------------------------- */

static void add_file(input_t **v, size_t *nv, const char *path, size_t max_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz-driver: cannot read %s\n", path);
        exit(2);
    }
    uint8_t *p = malloc(max_len ? max_len : 1);
    size_t n = fread(p, 1, max_len, f);
    fclose(f);
    *v = realloc(*v, (*nv + 1) * sizeof **v);
    (*v)[(*nv)++] = (input_t){ p, n };
}

static int visible(const struct dirent *d) { return d->d_name[0] != '.'; }

static void add_path(input_t **v, size_t *nv, const char *path, size_t max_len)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        add_file(v, nv, path, max_len);
        return;
    }
    struct dirent **names;
    int k = scandir(path, &names, visible, alphasort);
    for (int i = 0; i < k; i++) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
        if (stat(sub, &st) == 0 && S_ISREG(st.st_mode)) add_file(v, nv, sub, max_len);
        free(names[i]);
    }
    if (k >= 0) free(names);
}

/* ---- mutations ------------------------------------------------------------ */

static uint64_t below(uint64_t *rng, uint64_t n) { return n ? fuzz_rand(rng) % n : 0; }

static uint8_t interesting_byte(uint64_t *rng)
{
    static const uint8_t v[] = { 0, 1, 2, 0x7f, 0x80, 0xfe, 0xff, 16, 32, 64 };
    return fuzz_rand(rng) & 1 ? v[below(rng, sizeof v)] : (uint8_t)fuzz_rand(rng);
}

static void set_word(uint64_t *rng, uint8_t *p, size_t n)
{
    static const uint32_t v[] = { 0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0xffffu, 0x10000u,
                                  PROTO_TARGET_FRAME_SIZE, 4096, 255, 256 };
    size_t w = fuzz_rand(rng) & 1 ? 4 : 2;
    if (n < w) return;
    uint32_t x = v[below(rng, sizeof v / sizeof *v)];
    if (fuzz_rand(rng) & 1) x += (uint32_t)below(rng, 33) - 16;
    memcpy(p + below(rng, n - w + 1), &x, w);
}

/* Apply one mutation to buf (capacity cap, length *n). */
static void mutate(uint64_t *rng, uint8_t *buf, size_t *n, size_t cap, const input_t *seeds, size_t nseeds)
{
    size_t len = *n;
    switch (below(rng, 9)) {
    case 0: if (len) buf[below(rng, len)] ^= (uint8_t)(1u << below(rng, 8)); break;
    case 1: if (len) buf[below(rng, len)] = interesting_byte(rng); break;
    case 2: set_word(rng, buf, len); break;
    case 3: if (len) *n = below(rng, len); break;
    case 4: {   /* insert random or repeated bytes */
        size_t k = 1 + below(rng, 16), at = below(rng, len + 1);
        if (len + k > cap) break;
        memmove(buf + at + k, buf + at, len - at);
        const uint8_t b = interesting_byte(rng);
        for (size_t i = 0; i < k; i++) buf[at + i] = fuzz_rand(rng) & 1 ? b : (uint8_t)fuzz_rand(rng);
        *n = len + k;
        break;
    }
    case 5: {   /* erase a range */
        if (!len) break;
        size_t at = below(rng, len), k = 1 + below(rng, len - at < 64 ? len - at : 64);
        memmove(buf + at, buf + at + k, len - at - k);
        *n = len - k;
        break;
    }
    case 6: {   /* copy a range over another place */
        if (len < 2) break;
        size_t from = below(rng, len), to = below(rng, len), k = 1 + below(rng, 32);
        if (k > len - from) k = len - from;
        if (k > len - to) k = len - to;
        memmove(buf + to, buf + from, k);
        break;
    }
    case 7: {   /* splice: our head, another seed's tail */
        const input_t *o = &seeds[below(rng, nseeds)];
        size_t at = below(rng, len + 1), from = below(rng, o->n + 1), k = o->n - from;
        if (at + k > cap) k = cap - at;
        memcpy(buf + at, o->p + from, k);
        *n = at + k;
        break;
    }
    default:    /* a run of flips in a small window */
        for (size_t i = 0, k = 2 + below(rng, 6); len && i < k; i++) buf[below(rng, len)] ^= (uint8_t)fuzz_rand(rng);
        break;
    }
}

/* ---- main ----------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [-t SECONDS] [-n RUNS] [-s SEED] [-m MAX_LEN] [-o CRASH_DIR] PATH...\n"
                    "Runs every input file (or file in a directory), then mutates them for SECONDS\n"
                    "(default 0) or RUNS mutations, whichever ends first.\n", prog);
    exit(2);
}

static int parse(int argc, char **argv, opts_t *o)
{
    *o = (opts_t){ .seconds = 0, .runs = UINT64_MAX, .max_len = 65536, .crash_dir = "." };
    o->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16);
    int c;
    while ((c = getopt(argc, argv, "t:n:s:m:o:h")) != -1) {
        switch (c) {
        case 't': o->seconds = atof(optarg); break;
        case 'n': o->runs = strtoull(optarg, NULL, 0); break;
        case 's': o->seed = strtoull(optarg, NULL, 0); break;
        case 'm': o->max_len = strtoull(optarg, NULL, 0); break;
        case 'o': o->crash_dir = optarg; break;
        default: usage(argv[0]);
        }
    }
    if (optind >= argc || o->max_len == 0) usage(argv[0]);
    return optind;
}

static void install_handlers(void)
{
    const int sigs[] = { SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) signal(sigs[i], on_crash_signal);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(save_current);
}

int main(int argc, char **argv)
{
    opts_t o;
    int first = parse(argc, argv, &o);
    input_t *seeds = NULL;
    size_t nseeds = 0;
    for (int i = first; i < argc; i++) add_path(&seeds, &nseeds, argv[i], o.max_len);
    current.seed = o.seed;
    install_handlers();
    const double t0 = now();
    for (size_t i = 0; i < nseeds; i++) run_one(seeds[i].p, seeds[i].n, &o);
    uint64_t rng = o.seed, mutations = 0;
    uint8_t *buf = malloc(o.max_len);
    while (nseeds && mutations < o.runs && now() - t0 < o.seconds) {
        const input_t *base = &seeds[below(&rng, nseeds)];
        size_t n = base->n;
        memcpy(buf, base->p, n);
        for (uint64_t k = 1 + below(&rng, 8); k > 0; k--) mutate(&rng, buf, &n, o.max_len, seeds, nseeds);
        run_one(buf, n, &o);
        mutations++;
    }
    const double dt = now() - t0;
    printf("%s: %zu input files, %llu mutations, %llu runs in %.1f s (%.0f/s); seed %llu, max_len %zu\n",
           argv[0], nseeds, (unsigned long long)mutations, (unsigned long long)current.iter, dt,
           dt > 0 ? (double)current.iter / dt : 0.0, (unsigned long long)o.seed, o.max_len);
    current.path[0] = 0;
    for (size_t i = 0; i < nseeds; i++) free(seeds[i].p);
    free(seeds);
    free(buf);
    return 0;
}
