/* A stand-in for the kernel's flusher thread: sync_file_range(WRITE) over a set of files every
 * interval, so that a run of a few seconds meets writeback as a long-running program would
 * (dirty_expire_centisecs is 30 s on a default kernel). */
#ifndef MML_FLUSHER_H
#define MML_FLUSHER_H

#include <pthread.h>
#include <stdatomic.h>

#include "mml.h"

struct mml_flusher {
    const int *fds;
    size_t nfds;
    unsigned long long interval_ms;
    atomic_int stop;
    pthread_t thread;
};

static void *mml_flush_periodically(void *arg)
{
    struct mml_flusher *f = arg;
    struct timespec pause = {(time_t)(f->interval_ms / 1000), (long)(f->interval_ms % 1000) * 1000000L};
    while (!atomic_load(&f->stop)) {
        nanosleep(&pause, NULL);
        for (size_t i = 0; i < f->nfds; i++)
            if (sync_file_range(f->fds[i], 0, 0, SYNC_FILE_RANGE_WRITE))
                mml_die("sync_file_range");
    }
    return NULL;
}

static inline void mml_flusher_start(struct mml_flusher *f, const int *fds, size_t nfds,
                                     unsigned long long interval_ms)
{
    f->fds = fds;
    f->nfds = nfds;
    f->interval_ms = interval_ms;
    atomic_init(&f->stop, 0);
    if (pthread_create(&f->thread, NULL, mml_flush_periodically, f))
        mml_die("pthread_create");
}

static inline void mml_flusher_stop(struct mml_flusher *f)
{
    atomic_store(&f->stop, 1);
    pthread_join(f->thread, NULL);
}

#endif
