/*
 * MML003: small stores scattered over a MAP_SHARED file mapping while writeback runs.  Writeback
 * write-protects every page (folio) it cleans, so the next store into it faults, waits for the I/O
 * in flight and dirties the whole folio again.  A short run cannot wait for dirty_expire, so a
 * thread calls sync_file_range(WRITE) every --interval-ms: a stand-in for the flusher.
 *   bad  : the stores go straight into the shared mapping.
 *   fixed: the same stores go into anonymous memory holding the file's contents, written to the
 *          file with one pwrite and fdatasync at the end (same final file, same flusher thread).
 * --stride 0 scatters the stores at random; a non-zero stride steps through the file by that many
 * bytes, wrapping around.  One latency sample per --batch stores.
 */
#include "../common/mml.h"
#include "../common/mml_flusher.h"

#include <stdint.h>
#include <sys/mman.h>

enum { SIZE, STORES, STRIDE, INTERVAL_MS, BATCH, FILL, NPARAM };

static struct mml_param params[NPARAM] = {
    [SIZE] = {"size", 8 << 20, "bytes in the file", NULL},
    [STORES] = {"stores", 1000000, "8-byte stores", NULL},
    [STRIDE] = {"stride", 0, "bytes between stores, 0 = random", NULL},
    [INTERVAL_MS] = {"interval-ms", 20, "milliseconds between sync_file_range calls", NULL},
    [BATCH] = {"batch", 256, "stores per latency sample", NULL},
    [FILL] = {"fill", MML_FILL_FAULT, "how the file enters the page cache", mml_fill_choices},
};

/* xorshift64: cheap enough not to hide the cost of a store, identical in both variants. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void *map_target(int fd, size_t size, enum mml_variant v)
{
    void *p = v == MML_BAD ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                           : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        mml_die("mmap");
    return p;
}

static void persist(int fd, char *data, size_t size, enum mml_variant v)
{
    if (v == MML_BAD) {
        if (msync(data, size, MS_SYNC))
            mml_die("msync");
        return;
    }
    for (size_t done = 0; done < size;) {
        ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
        if (w < 0)
            mml_die("pwrite");
        done += (size_t)w;
    }
    if (fdatasync(fd))
        mml_die("fdatasync");
}

int main(int argc, char **argv)
{
    struct mml_cli cli = mml_parse(argc, argv, params, NPARAM);
    size_t size = params[SIZE].value / 8 * 8, stride = params[STRIDE].value;
    unsigned long long stores = params[STORES].value, batch = params[BATCH].value;
    if (size == 0 || batch == 0) {
        fprintf(stderr, "--size must be at least 8 and --batch at least 1\n");
        return 2;
    }
    if (cli.plan) {
        mml_print_plan(params, NPARAM, size);
        return 0;
    }

    int fd = mml_create_file("scattered_shared_writes.dat", 0, size, (enum mml_fill)params[FILL].value);
    char *data = map_target(fd, size, cli.variant);  // mmaplint: ignore[MML006] --fill fault leaves the file sparse on purpose
    struct mml_flusher flusher;

    struct mml_meter meter;
    mml_start(&meter);
    mml_flusher_start(&flusher, &fd, 1, params[INTERVAL_MS].value);
    uint64_t state = 0x9e3779b97f4a7c15ull;
    size_t offset = 0;
    unsigned long long useful = 0;
    for (unsigned long long done = 0; done < stores;) {
        unsigned long long n = stores - done < batch ? stores - done : batch;
        double t0 = mml_now();
        for (unsigned long long i = 0; i < n; i++) {
            offset = stride ? (offset + stride) % size / 8 * 8 : next_random(&state) % (size / 8) * 8;
            *(volatile uint64_t *)(data + offset) = done + i;
        }
        useful += n * sizeof(uint64_t);
        mml_latency(&meter, mml_now() - t0);
        done += n;
    }
    mml_flusher_stop(&flusher);
    persist(fd, data, size, cli.variant);
    mml_finish(&meter, cli.variant, params, NPARAM, useful, stores);
    munmap(data, size);
    close(fd);
    return 0;
}
