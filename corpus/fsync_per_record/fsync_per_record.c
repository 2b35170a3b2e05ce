/*
 * MML009: a device flush after every record, against one flush per batch of records (group
 * commit).  Both append the same --records records of --record bytes to a new file with pwrite
 * and end with the whole file durable; they differ only in how often they wait for the device.
 *   --sync fdatasync: bad fdatasync()s after every record; fixed once per --batch records.
 *   --sync fsync    : the same with fsync().
 *   --sync o_dsync  : bad opens the file O_DSYNC, so every pwrite() is a flush; fixed opens it
 *                     without and fdatasync()s once per --batch records.
 * One latency sample per record: its write and, when the record ends a batch (or is one, in
 * bad), the flush that makes it durable.
 */
#include "../common/mml.h"

enum { RECORDS, RECORD, BATCH, SYNC, NPARAM };

static const char *const sync_choices[] = {"fdatasync", "fsync", "o_dsync", NULL};
enum { SYNC_FDATASYNC, SYNC_FSYNC, SYNC_O_DSYNC };

static struct mml_param params[NPARAM] = {
    [RECORDS] = {"records", 200, "records appended", NULL},
    [RECORD] = {"record", 4096, "bytes per record", NULL},
    [BATCH] = {"batch", 256, "records per flush in the fixed variant", NULL},
    [SYNC] = {"sync", SYNC_FDATASYNC, "how a record is made durable", sync_choices},
};

static void flush(int fd, unsigned long long how)
{
    if ((how == SYNC_FSYNC ? fsync(fd) : fdatasync(fd)) != 0)
        mml_die(how == SYNC_FSYNC ? "fsync" : "fdatasync");
}

int main(int argc, char **argv)
{
    struct mml_cli cli = mml_parse(argc, argv, params, NPARAM);
    unsigned long long records = params[RECORDS].value, batch = params[BATCH].value;
    unsigned long long how = params[SYNC].value;
    size_t record = params[RECORD].value;
    if (records == 0 || record == 0 || batch == 0) {
        fprintf(stderr, "--records, --record and --batch must be at least 1\n");
        return 2;
    }
    if (cli.plan) {
        mml_print_plan(params, NPARAM, records * record);
        return 0;
    }

    char *buf = malloc(record);
    if (!buf)
        mml_die("malloc");
    int dsync = cli.variant == MML_BAD && how == SYNC_O_DSYNC;
    int fd = open("fsync_per_record.log", O_WRONLY | O_CREAT | O_TRUNC | (dsync ? O_DSYNC : 0), 0600);
    if (fd < 0)
        mml_die("fsync_per_record.log");
    /* The flush that ends each record (bad) or each batch (fixed); O_DSYNC writes flush themselves. */
    unsigned long long every = cli.variant == MML_BAD ? 1 : batch;

    struct mml_meter meter;
    unsigned long long useful = 0;
    mml_start(&meter);
    for (unsigned long long i = 0; i < records; i++) {
        memset(buf, (int)(i & 0xff), record);
        double t0 = mml_now();
        if (pwrite(fd, buf, record, (off_t)(i * record)) != (ssize_t)record)
            mml_die("pwrite");
        useful += record;
        if (!dsync && ((i + 1) % every == 0 || i + 1 == records))
            flush(fd, how);
        mml_latency(&meter, mml_now() - t0);
    }
    mml_finish(&meter, cli.variant, params, NPARAM, useful, records);
    close(fd);
    free(buf);
    return 0;
}
