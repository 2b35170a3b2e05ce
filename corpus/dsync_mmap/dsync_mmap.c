/*
 * MML002: what O_DSYNC on a file descriptor does, and what it does not.
 *   --io mmap : stores through a MAP_SHARED mapping of the fd, measured; then one msync, not
 *               measured (its I/O waits vary run to run and say nothing about O_DSYNC).  O_DSYNC
 *               governs write(2) on the fd, not stores into the mapping: expect no difference.
 *   --io write: the same bytes through write(2) in records.  With O_DSYNC each write() waits for
 *               the device; without it, one fdatasync at the end gives the same durability.
 * bad opens with O_DSYNC, fixed without it; everything else is identical.
 */
#include "../common/mml.h"

#include <stdint.h>
#include <sys/mman.h>

enum { SIZE, RECORD, IO, FILL, NPARAM };

static const char *const io_choices[] = {"mmap", "write", NULL};
enum { IO_MMAP, IO_WRITE };

static struct mml_param params[NPARAM] = {
    [SIZE] = {"size", 4 << 20, "bytes stored into the file", NULL},
    [RECORD] = {"record", 4096, "bytes per write() with --io write", NULL},
    [IO] = {"io", IO_MMAP, "how the bytes reach the file", io_choices},
    [FILL] = {"fill", MML_FILL_WRITE, "how the file enters the page cache", mml_fill_choices},
};

static char *store_through_mapping(int fd, size_t size, struct mml_meter *meter, unsigned long long *useful)
{
    char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        mml_die("mmap");
    mml_start(meter);
    uint32_t *words = (uint32_t *)map;
    for (size_t i = 0; i < size / sizeof *words; i++)
        words[i] = (uint32_t)i;
    *useful = size / sizeof *words * sizeof *words;
    return map;
}

static unsigned long long write_records(int fd, size_t size, size_t record, enum mml_variant v,
                                        struct mml_meter *meter)
{
    unsigned long long useful = 0;
    char *buf = malloc(record);
    if (!buf)
        mml_die("malloc");
    mml_start(meter);
    for (size_t off = 0; off < size; off += record) {
        memset(buf, (int)(off / record), record);
        double t0 = mml_now();
        if (pwrite(fd, buf, record, (off_t)off) != (ssize_t)record)
            mml_die("pwrite");
        mml_latency(meter, mml_now() - t0);
        useful += record;
    }
    if (v == MML_FIXED && fdatasync(fd))
        mml_die("fdatasync");
    free(buf);
    return useful;
}

int main(int argc, char **argv)
{
    struct mml_cli cli = mml_parse(argc, argv, params, NPARAM);
    size_t record = params[RECORD].value;
    size_t size = record ? params[SIZE].value / record * record : 0;
    if (size == 0) {
        fprintf(stderr, "--size must be at least one --record (both non-zero)\n");
        return 2;
    }
    if (cli.plan) {
        mml_print_plan(params, NPARAM, size);
        return 0;
    }

    int fd = mml_create_file("dsync_mmap.dat", cli.variant == MML_BAD ? O_DSYNC : 0, size,
                             (enum mml_fill)params[FILL].value);
    struct mml_meter meter;
    unsigned long long useful;
    if (params[IO].value == IO_MMAP) {
        char *map = store_through_mapping(fd, size, &meter, &useful);
        mml_finish(&meter, cli.variant, params, NPARAM, useful, size / sizeof(uint32_t));
        if (msync(map, size, MS_SYNC))
            mml_die("msync");
        munmap(map, size);
    } else {
        useful = write_records(fd, size, record, cli.variant, &meter);
        mml_finish(&meter, cli.variant, params, NPARAM, useful, size / record);
    }
    close(fd);
    return 0;
}
