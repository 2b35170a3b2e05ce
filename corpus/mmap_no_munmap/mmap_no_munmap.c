/*
 * MML008: a MAP_SHARED segment of a file mapped on every iteration and never unmapped, against
 * the same loop unmapping each segment once it is written.  Every iteration maps --segment bytes
 * at the next offset of a --file-size file (wrapping around, so the disk used stays bounded while
 * the mappings do not), memsets the segment and moves on, while a thread calls
 * sync_file_range(WRITE) every --interval-ms (a stand-in for the flusher: a long-running program
 * meets writeback).
 *   bad  : the mappings pile up: one VMA each, their pages counted in the process's RSS, their
 *          page tables kept, until mmap fails at vm.max_map_count.  Every page of the file ends
 *          up mapped by many of them, and writeback must write-protect it in each (rmap walks
 *          under the file's mapping lock, which mmap and munmap also take).
 *   fixed: munmap after the memset.
 * Both variants map, write and unmap the same segments inside the measured phase: the bad one
 * unmaps its pile at the end, as exit would, so its teardown is timed as the fixed one's is.
 * Reported besides the common counters, as growth over the loop: vmas_added (lines of
 * /proc/self/maps) and rss_bytes (VmRSS).  One latency sample per iteration.
 *
 * Bounded so it cannot exhaust the machine: at most half of vm.max_map_count iterations and
 * MAX_MAPPED bytes mapped in all (the page tables of 16 GiB of 4 KiB pages take 32 MiB).
 */
#include "../common/mml.h"
#include "../common/mml_flusher.h"

#include <sys/mman.h>

#define MAX_MAPPED (16ULL << 30)
#define DEFAULT_MAX_MAP_COUNT 65530ULL

enum { SEGMENT, ITERATIONS, FILE_SIZE, INTERVAL_MS, FILL, NPARAM };

static struct mml_param params[NPARAM] = {
    [SEGMENT] = {"segment", 64 << 10, "bytes mapped and written per iteration", NULL},
    [ITERATIONS] = {"iterations", 2048, "segments mapped", NULL},
    [FILE_SIZE] = {"file-size", 2 << 20, "bytes in the file the segments cycle over", NULL},
    [INTERVAL_MS] = {"interval-ms", 20, "milliseconds between sync_file_range calls", NULL},
    [FILL] = {"fill", MML_FILL_FAULT, "how the file enters the page cache", mml_fill_choices},
};

static unsigned long long max_map_count(void)
{
    unsigned long long n = DEFAULT_MAX_MAP_COUNT;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%llu", &n) != 1)
            n = DEFAULT_MAX_MAP_COUNT;
        fclose(f);
    }
    return n;
}

static long long count_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    long long lines = 0;
    int c;
    while ((c = getc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    return lines;
}

/* A "Key:   N kB" line of /proc/self/status, in bytes; -1 when absent. */
static long long status_bytes(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long long kb = -1;
    size_t len = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, len) == 0 && line[len] == ':') {
            kb = strtoll(line + len + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

struct footprint {
    long long vmas, rss;
};

static struct footprint footprint(void)
{
    return (struct footprint){count_mappings(), status_bytes("VmRSS")};
}

int main(int argc, char **argv)
{
    struct mml_cli cli = mml_parse(argc, argv, params, NPARAM);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t segment = params[SEGMENT].value / page * page;
    unsigned long long iterations = params[ITERATIONS].value;
    unsigned long long file_size = params[FILE_SIZE].value / (segment ? segment : 1) * segment;
    if (segment == 0 || iterations == 0 || file_size == 0) {
        fprintf(stderr, "--segment must be at least a page, --file-size at least one segment, "
                        "--iterations at least 1\n");
        return 2;
    }
    unsigned long long max_iterations = max_map_count() / 2;
    if (iterations > max_iterations || iterations * segment > MAX_MAPPED) {
        fprintf(stderr, "--iterations %llu of --segment %zu exceeds the bounds of this reproducer "
                        "(%llu mappings, half of vm.max_map_count; %llu GiB mapped in all)\n",
                iterations, segment, max_iterations, MAX_MAPPED >> 30);
        return 2;
    }
    if (cli.plan) {
        mml_print_plan(params, NPARAM, file_size);
        return 0;
    }

    int fd = mml_create_file("mmap_no_munmap.dat", 0, file_size, (enum mml_fill)params[FILL].value);
    char **kept = calloc(iterations, sizeof *kept);
    if (!kept)
        mml_die("calloc");
    struct footprint before = footprint();
    struct mml_flusher flusher;
    struct mml_meter meter;
    unsigned long long useful = 0;
    mml_start(&meter);
    mml_flusher_start(&flusher, &fd, 1, params[INTERVAL_MS].value);
    for (unsigned long long i = 0; i < iterations; i++) {
        off_t offset = (off_t)(i * segment % file_size);
        double t0 = mml_now();
        char *p = mmap(NULL, segment, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);  // mmaplint: ignore[MML006] --fill fault leaves the file sparse on purpose
        if (p == MAP_FAILED)
            mml_die("mmap");
        memset(p, (int)(i & 0xff), segment);
        useful += segment;
        if (cli.variant == MML_FIXED && munmap(p, segment))
            mml_die("munmap");
        kept[i] = cli.variant == MML_BAD ? p : NULL;
        mml_latency(&meter, mml_now() - t0);
    }
    struct footprint after = footprint();
    for (unsigned long long i = 0; i < iterations; i++)
        if (kept[i] && munmap(kept[i], segment))
            mml_die("munmap");
    mml_flusher_stop(&flusher);
    mml_extra(&meter, "vmas_added", before.vmas, after.vmas);
    mml_extra(&meter, "rss_bytes", before.rss, after.rss);
    mml_finish(&meter, cli.variant, params, NPARAM, useful, iterations);
    free(kept);
    close(fd);
    return 0;
}
