/*
 * Shared plumbing for the mmaplint corpus: command line, counters and the one JSON line every
 * reproducer prints.  Kept in one header so each reproducer stays a single file that builds with
 * `cc -O2 -pthread prog.c` and so every program measures the same way.
 *
 * A reproducer is `prog bad|fixed [--NAME VALUE]...`; `--plan` prints the resolved parameters and
 * the disk space the run needs, without running (the harness checks free space with it).
 */
#ifndef MML_H
#define MML_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum mml_variant { MML_BAD, MML_FIXED };

/* A numeric parameter, or a word out of `choices` (then `value` is its index). */
struct mml_param {
    const char *name;
    unsigned long long value;
    const char *help;
    const char *const *choices;
};

static inline void mml_die(const char *what)
{
    fprintf(stderr, "%s: %s\n", what, strerror(errno));
    exit(1);
}

static inline void mml_usage(const char *prog, const struct mml_param *p, size_t n)
{
    fprintf(stderr, "usage: %s bad|fixed [--plan]", prog);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " [--%s %s]", p[i].name, p[i].choices ? "WORD" : "N");
    fputc('\n', stderr);
    for (size_t i = 0; i < n; i++) {
        fprintf(stderr, "  --%-12s %s", p[i].name, p[i].help);
        if (p[i].choices) {
            fputs(" (", stderr);
            for (size_t c = 0; p[i].choices[c]; c++)
                fprintf(stderr, "%s%s", c ? "|" : "", p[i].choices[c]);
            fprintf(stderr, "; default %s)\n", p[i].choices[p[i].value]);
        } else {
            fprintf(stderr, " (default %llu)\n", p[i].value);
        }
    }
    exit(2);
}

/* Numbers accept a K, M or G suffix (powers of 1024): sizes read better that way. */
static inline int mml_parse_number(const char *s, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return -1;
    switch (*end) {
    case 'K': v <<= 10; end++; break;
    case 'M': v <<= 20; end++; break;
    case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end)
        return -1;
    *out = v;
    return 0;
}

static inline int mml_parse_choice(const struct mml_param *p, const char *s, unsigned long long *out)
{
    for (size_t c = 0; p->choices[c]; c++) {
        if (strcmp(p->choices[c], s) == 0) {
            *out = c;
            return 0;
        }
    }
    return -1;
}

struct mml_cli {
    enum mml_variant variant;
    int plan;
};

static inline struct mml_cli mml_parse(int argc, char **argv, struct mml_param *p, size_t n)
{
    struct mml_cli cli = {0};
    if (argc < 2)
        mml_usage(argv[0], p, n);
    if (strcmp(argv[1], "bad") == 0)
        cli.variant = MML_BAD;
    else if (strcmp(argv[1], "fixed") == 0)
        cli.variant = MML_FIXED;
    else
        mml_usage(argv[0], p, n);
    for (int a = 2; a < argc; a++) {
        if (strcmp(argv[a], "--plan") == 0) {
            cli.plan = 1;
            continue;
        }
        size_t i = 0;
        while (i < n && !(strncmp(argv[a], "--", 2) == 0 && strcmp(argv[a] + 2, p[i].name) == 0))
            i++;
        if (i == n || a + 1 == argc)
            mml_usage(argv[0], p, n);
        const char *v = argv[++a];
        int bad = p[i].choices ? mml_parse_choice(&p[i], v, &p[i].value)
                               : mml_parse_number(v, &p[i].value);
        if (bad) {
            fprintf(stderr, "%s: bad value for --%s: %s\n", argv[0], p[i].name, v);
            exit(2);
        }
    }
    return cli;
}

static inline void mml_print_params(const struct mml_param *p, size_t n)
{
    fputs("{", stdout);
    for (size_t i = 0; i < n; i++) {
        if (p[i].choices)
            printf("%s\"%s\": \"%s\"", i ? ", " : "", p[i].name, p[i].choices[p[i].value]);
        else
            printf("%s\"%s\": %llu", i ? ", " : "", p[i].name, p[i].value);
    }
    fputs("}", stdout);
}

static inline void mml_print_plan(const struct mml_param *p, size_t n, unsigned long long disk_bytes)
{
    fputs("{\"params\": ", stdout);
    mml_print_params(p, n);
    printf(", \"disk_bytes\": %llu}\n", disk_bytes);
}

static inline double mml_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Fields of /proc/self/io; absent (all -1) on kernels built without task I/O accounting. */
struct mml_io {
    long long syscr, syscw, read_bytes, write_bytes;
};

static inline struct mml_io mml_read_io(void)
{
    struct mml_io io = {-1, -1, -1, -1};
    FILE *f = fopen("/proc/self/io", "r");
    if (!f)
        return io;
    char key[32];
    long long v;
    while (fscanf(f, "%31[^:]: %lld\n", key, &v) == 2) {
        if (strcmp(key, "syscr") == 0) io.syscr = v;
        else if (strcmp(key, "syscw") == 0) io.syscw = v;
        else if (strcmp(key, "read_bytes") == 0) io.read_bytes = v;
        else if (strcmp(key, "write_bytes") == 0) io.write_bytes = v;
    }
    fclose(f);
    return io;
}

/* Counters between mml_start and mml_finish, so setup (creating and filling files) is excluded. */
#define MML_MAX_EXTRA 8

struct mml_meter {
    double t0;
    struct rusage ru0;
    struct mml_io io0;
    double *lat_us;
    size_t nlat, cap;
    const char *extra_key[MML_MAX_EXTRA];
    long long extra_before[MML_MAX_EXTRA], extra_after[MML_MAX_EXTRA];
    size_t nextra;
};

static inline void mml_start(struct mml_meter *m)
{
    memset(m, 0, sizeof *m);
    m->io0 = mml_read_io();
    getrusage(RUSAGE_SELF, &m->ru0);
    m->t0 = mml_now();
}

static inline void mml_latency(struct mml_meter *m, double seconds)
{
    if (m->nlat == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 4096;
        m->lat_us = realloc(m->lat_us, m->cap * sizeof *m->lat_us);
        if (!m->lat_us)
            mml_die("realloc");
    }
    m->lat_us[m->nlat++] = seconds * 1e6;
}

/* The change in a counter of the reproducer's own over the measured phase (the growth of its
 * address space, say), printed by mml_finish beside the common ones: null when either reading is
 * negative, i.e. unavailable.  Call it after the measured phase, before mml_finish. */
static inline void mml_extra(struct mml_meter *m, const char *key, long long before, long long after)
{
    if (m->nextra == MML_MAX_EXTRA) {
        fprintf(stderr, "mml_extra: more than %d extra metrics\n", MML_MAX_EXTRA);
        exit(1);
    }
    m->extra_key[m->nextra] = key;
    m->extra_before[m->nextra] = before;
    m->extra_after[m->nextra++] = after;
}

static inline int mml_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double mml_percentile(const double *sorted, size_t n, double q)
{
    size_t i = (size_t)(q * (double)(n - 1) + 0.5);
    return sorted[i];
}

static inline double mml_tv(struct timeval tv)
{
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

static inline void mml_print_delta(const char *key, long long before, long long after)
{
    if (before < 0 || after < 0)
        printf(", \"%s\": null", key);
    else
        printf(", \"%s\": %lld", key, after - before);
}

/*
 * useful_bytes: the bytes the program stored, wrote or read, counted as it did so (write
 * amplification = write_bytes / useful_bytes; the harness checks both variants did the same);
 * ops: the logical operations done, the same for both variants.
 */
static inline void mml_finish(struct mml_meter *m, enum mml_variant v, const struct mml_param *p, size_t n,
                       unsigned long long useful_bytes, unsigned long long ops)
{
    double wall = mml_now() - m->t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    struct mml_io io = mml_read_io();

    printf("{\"variant\": \"%s\", \"params\": ", v == MML_BAD ? "bad" : "fixed");
    mml_print_params(p, n);
    printf(", \"wall_s\": %.6f, \"user_s\": %.6f, \"sys_s\": %.6f", wall,
           mml_tv(ru.ru_utime) - mml_tv(m->ru0.ru_utime), mml_tv(ru.ru_stime) - mml_tv(m->ru0.ru_stime));
    printf(", \"minflt\": %ld, \"majflt\": %ld, \"nvcsw\": %ld, \"nivcsw\": %ld",
           ru.ru_minflt - m->ru0.ru_minflt, ru.ru_majflt - m->ru0.ru_majflt,
           ru.ru_nvcsw - m->ru0.ru_nvcsw, ru.ru_nivcsw - m->ru0.ru_nivcsw);
    mml_print_delta("write_bytes", m->io0.write_bytes, io.write_bytes);
    mml_print_delta("read_bytes", m->io0.read_bytes, io.read_bytes);
    mml_print_delta("syscr", m->io0.syscr, io.syscr);
    mml_print_delta("syscw", m->io0.syscw, io.syscw);
    printf(", \"useful_bytes\": %llu, \"ops\": %llu", useful_bytes, ops);
    /* Everything this process dirtied since it started, setup included: what the harness caps. */
    if (io.write_bytes >= 0)
        printf(", \"total_write_bytes\": %lld", io.write_bytes);
    for (size_t i = 0; i < m->nextra; i++)
        mml_print_delta(m->extra_key[i], m->extra_before[i], m->extra_after[i]);
    if (m->nlat) {
        qsort(m->lat_us, m->nlat, sizeof *m->lat_us, mml_cmp_double);
        printf(", \"lat_samples\": %zu, \"lat_p50_us\": %.3f, \"lat_p99_us\": %.3f"
               ", \"lat_p999_us\": %.3f, \"lat_max_us\": %.3f",
               m->nlat, mml_percentile(m->lat_us, m->nlat, 0.50), mml_percentile(m->lat_us, m->nlat, 0.99),
               mml_percentile(m->lat_us, m->nlat, 0.999), m->lat_us[m->nlat - 1]);
    }
    puts("}");
    free(m->lat_us);
}

/*
 * How a reproducer's file gets into the page cache decides the folio size on kernels with large
 * folios (ext4 since 6.16): write() allocates large folios, faults on a sparse file small ones.
 */
static const char *const mml_fill_choices[] = {"fault", "write", NULL};
enum mml_fill { MML_FILL_FAULT, MML_FILL_WRITE };

/* A new file of `size` bytes, its pages clean: sparse (filled later by faults) or written and synced. */
static inline int mml_create_file(const char *path, int extra_flags, unsigned long long size, enum mml_fill fill)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | extra_flags, 0600);
    if (fd < 0)
        mml_die(path);
    if (fill == MML_FILL_FAULT) {
        if (ftruncate(fd, (off_t)size))
            mml_die("ftruncate");
        return fd;
    }
    static char zeros[1 << 20];
    for (unsigned long long done = 0; done < size;) {
        size_t len = size - done < sizeof zeros ? size - done : sizeof zeros;
        ssize_t w = write(fd, zeros, len);
        if (w < 0)
            mml_die("write");
        done += (unsigned long long)w;
    }
    if (fsync(fd))
        mml_die("fsync");
    return fd;
}

#endif
