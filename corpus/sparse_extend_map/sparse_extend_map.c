/*
 * MML006: files grown sparsely, the new range mapped MAP_SHARED and written, against the same
 * range allocated with posix_fallocate before it is mapped.  Like the seed's program, --files
 * files grow in turn by one --segment at a time; each new segment is mapped, memset in --step
 * pieces and unmapped, --segments times per file.
 *   bad  : the file grows by a one-byte write at the segment's last byte (lseek + write, --grow
 *          write) or by ftruncate (--grow ftruncate): the segment is a hole, so the first store to
 *          each page faults into page_mkwrite, which must find or reserve blocks for it.
 *   fixed: posix_fallocate(fd, offset, segment) first: the faults find allocated blocks.
 * A thread calls sync_file_range(WRITE) on every file each --interval-ms, a stand-in for the
 * flusher, so the stores meet writeback (and block allocation) as they would in a long run.
 * One latency sample per segment: growing the file, mapping, memset and munmap, so the fixed
 * variant's posix_fallocate is priced where the bad variant's faults are.
 */
#include "../common/mml.h"
#include "../common/mml_flusher.h"

#include <sys/mman.h>

enum { FILES, SEGMENTS, SEGMENT, STEP, INTERVAL_MS, GROW, NPARAM };

static const char *const grow_choices[] = {"write", "ftruncate", NULL};
enum { GROW_WRITE, GROW_FTRUNCATE };

static struct mml_param params[NPARAM] = {
    [FILES] = {"files", 4, "files grown in turn", NULL},
    [SEGMENTS] = {"segments", 8, "segments each file grows by", NULL},
    [SEGMENT] = {"segment", 512 << 10, "bytes per segment, mapped and written at once", NULL},
    [STEP] = {"step", 64 << 10, "bytes per memset", NULL},
    [INTERVAL_MS] = {"interval-ms", 20, "milliseconds between sync_file_range rounds", NULL},
    [GROW] = {"grow", GROW_WRITE, "how the bad variant grows a file", grow_choices},
};

static void grow(int fd, off_t offset, size_t segment, enum mml_variant v, unsigned long long how)
{
    int err = 0;
    if (v == MML_FIXED)
        err = posix_fallocate(fd, offset, (off_t)segment);
    else if (how == GROW_FTRUNCATE)
        err = ftruncate(fd, offset + (off_t)segment) ? errno : 0;
    else if (lseek(fd, offset + (off_t)segment - 1, SEEK_SET) < 0 || write(fd, "", 1) != 1)
        err = errno ? errno : EIO;
    if (err) {
        errno = err;
        mml_die(v == MML_FIXED ? "posix_fallocate" : grow_choices[how]);
    }
}

/* The bytes stored. */
static size_t write_segment(int fd, off_t offset, size_t segment, size_t step, int fill)
{
    char *p = mmap(NULL, segment, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
    if (p == MAP_FAILED)
        mml_die("mmap");
    for (size_t done = 0; done < segment; done += step) {
        size_t len = segment - done < step ? segment - done : step;
        memset(p + done, fill, len);
    }
    if (munmap(p, segment))
        mml_die("munmap");
    return segment;
}

int main(int argc, char **argv)
{
    struct mml_cli cli = mml_parse(argc, argv, params, NPARAM);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t files = params[FILES].value, segment = params[SEGMENT].value / page * page;
    size_t step = params[STEP].value;
    unsigned long long segments = params[SEGMENTS].value;
    if (files == 0 || files > 256 || segments == 0 || segment == 0 || step == 0) {
        fprintf(stderr, "--files must be 1-256; --segments, --step at least 1, --segment at least a page\n");
        return 2;
    }
    if (cli.plan) {
        mml_print_plan(params, NPARAM, files * segments * segment);
        return 0;
    }

    int fds[256];
    for (size_t k = 0; k < files; k++) {
        char path[64];
        snprintf(path, sizeof path, "sparse_extend_map.%zu.dat", k);
        fds[k] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fds[k] < 0)
            mml_die(path);
    }
    struct mml_flusher flusher;

    struct mml_meter meter;
    unsigned long long useful = 0;
    mml_start(&meter);
    mml_flusher_start(&flusher, fds, files, params[INTERVAL_MS].value);
    for (unsigned long long s = 0; s < segments; s++) {
        off_t offset = (off_t)(s * segment);
        for (size_t k = 0; k < files; k++) {
            double t0 = mml_now();
            grow(fds[k], offset, segment, cli.variant, params[GROW].value);
            useful += write_segment(fds[k], offset, segment, step, (int)((s + k) & 0xff) | 1);
            mml_latency(&meter, mml_now() - t0);
        }
    }
    mml_flusher_stop(&flusher);
    mml_finish(&meter, cli.variant, params, NPARAM, useful, files * segments);
    for (size_t k = 0; k < files; k++)
        close(fds[k]);
    return 0;
}
