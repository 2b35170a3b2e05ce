/*
 * MML004: a stdio stream opened and closed on every iteration of a loop, against one stream opened
 * once and rewound.  Both read the whole file with fread in --chunk pieces on every iteration.
 * In 2010 glibc mmap()ed a fresh buffer per fopen, so each iteration took page faults; a libc
 * that takes the buffer from malloc shows no fault storm, and what remains is the open, fstat and
 * close per iteration.  One latency sample per iteration.
 */
#include "../common/mml.h"

enum { ITERATIONS, FILE_SIZE, CHUNK, NPARAM };

static struct mml_param params[NPARAM] = {
    [ITERATIONS] = {"iterations", 20000, "times the file is read", NULL},
    [FILE_SIZE] = {"file-size", 20480, "bytes in the file", NULL},
    [CHUNK] = {"chunk", 256, "bytes per fread", NULL},
};

static const char path[] = "stdio_reopen.dat";

static FILE *open_or_die(void)
{
    FILE *f = fopen(path, "r");
    if (!f)
        mml_die(path);
    return f;
}

static unsigned long long read_all(FILE *f, char *buf, size_t chunk)
{
    unsigned long long total = 0;
    size_t n;
    while ((n = fread(buf, 1, chunk, f)) > 0)
        total += n;
    if (ferror(f))
        mml_die("fread");
    return total;
}

int main(int argc, char **argv)
{
    struct mml_cli cli = mml_parse(argc, argv, params, NPARAM);
    size_t chunk = params[CHUNK].value;
    if (chunk == 0) {
        fprintf(stderr, "--chunk must be at least 1\n");
        return 2;
    }
    if (cli.plan) {
        mml_print_plan(params, NPARAM, params[FILE_SIZE].value);
        return 0;
    }

    close(mml_create_file(path, 0, params[FILE_SIZE].value, MML_FILL_WRITE));
    char *buf = malloc(chunk);
    if (!buf)
        mml_die("malloc");
    struct mml_meter meter;
    mml_start(&meter);
    FILE *kept = cli.variant == MML_FIXED ? open_or_die() : NULL;
    unsigned long long total = 0;
    for (unsigned long long i = 0; i < params[ITERATIONS].value; i++) {
        double t0 = mml_now();
        FILE *f = kept ? kept : open_or_die();
        if (kept)
            rewind(kept);
        total += read_all(f, buf, chunk);
        if (!kept)
            fclose(f);
        mml_latency(&meter, mml_now() - t0);
    }
    if (kept)
        fclose(kept);
    mml_finish(&meter, cli.variant, params, NPARAM, total, params[ITERATIONS].value);
    free(buf);
    return 0;
}
