/*
 * MML001: msync(MS_SYNC) of each page as soon as the loop has moved past it, against one msync of
 * the whole range per pass.  Both variants store the same ints into the same MAP_SHARED file and
 * make every pass durable; only the granularity of the sync differs.
 */
#include "../common/mml.h"

#include <stdint.h>
#include <sys/mman.h>

enum { SIZE, PASSES, FILL, NPARAM };

static struct mml_param params[NPARAM] = {
    [SIZE] = {"size", 256 << 10, "bytes in the mapped file", NULL},
    [PASSES] = {"passes", 4, "times every int of the mapping is stored", NULL},
    [FILL] = {"fill", MML_FILL_WRITE, "how the file enters the page cache", mml_fill_choices},
};

int main(int argc, char **argv)
{
    struct mml_cli cli = mml_parse(argc, argv, params, NPARAM);
    long page = sysconf(_SC_PAGESIZE);
    size_t size = params[SIZE].value / (size_t)page * (size_t)page;
    if (size == 0) {
        fprintf(stderr, "--size must be at least one page (%ld bytes)\n", page);
        return 2;
    }
    if (cli.plan) {
        mml_print_plan(params, NPARAM, size);
        return 0;
    }

    int fd = mml_create_file("msync_per_page.dat", 0, size, (enum mml_fill)params[FILL].value);
    char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);  // mmaplint: ignore[MML006] --fill fault leaves the file sparse on purpose
    if (map == MAP_FAILED)
        mml_die("mmap");

    /* Page by page in both variants, so that the bad one does no index arithmetic the fixed one
     * skips: the only difference inside the measured loop is the msync. */
    size_t pages = size / (size_t)page, ints_per_page = (size_t)page / sizeof(uint32_t);
    unsigned long long useful = 0;
    struct mml_meter meter;
    mml_start(&meter);
    for (unsigned long long pass = 0; pass < params[PASSES].value; pass++) {
        for (size_t pg = 0; pg < pages; pg++) {
            uint32_t *words = (uint32_t *)(map + pg * (size_t)page);
            for (size_t i = 0; i < ints_per_page; i++)
                words[i] = (uint32_t)(pass + pg + i);
            useful += (size_t)page;
            if (cli.variant == MML_BAD && pg > 0 && msync(map + (pg - 1) * (size_t)page, (size_t)page, MS_SYNC))
                mml_die("msync");
        }
        char *sync_from = cli.variant == MML_BAD ? map + size - (size_t)page : map;
        if (msync(sync_from, (size_t)(map + size - sync_from), MS_SYNC))
            mml_die("msync");
    }
    mml_finish(&meter, cli.variant, params, NPARAM, useful, pages * params[PASSES].value);
    munmap(map, size);
    close(fd);
    return 0;
}
