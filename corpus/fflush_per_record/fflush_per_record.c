/*
 * MML005: fflush after every record written through stdio, against letting the stream buffer
 * and flushing once when it is closed.  Both write the same records to the same file; each
 * fflush of a non-empty buffer is one write(2).
 */
#include "../common/mml.h"

enum { RECORDS, RECORD, NPARAM };

static struct mml_param params[NPARAM] = {
    [RECORDS] = {"records", 200000, "records written", NULL},
    [RECORD] = {"record", 64, "bytes per record, newline included", NULL},
};

int main(int argc, char **argv)
{
    struct mml_cli cli = mml_parse(argc, argv, params, NPARAM);
    size_t record = params[RECORD].value;
    if (record < 2) {
        fprintf(stderr, "--record must be at least 2\n");
        return 2;
    }
    if (cli.plan) {
        mml_print_plan(params, NPARAM, params[RECORDS].value * record);
        return 0;
    }

    struct mml_meter meter;
    mml_start(&meter);
    FILE *f = fopen("fflush_per_record.log", "w");
    if (!f)
        mml_die("fopen");
    unsigned long long written = 0;
    for (unsigned long long i = 0; i < params[RECORDS].value; i++) {
        int n = fprintf(f, "%0*llu\n", (int)record - 1, i);
        if (n < 0)
            mml_die("fprintf");
        written += (unsigned long long)n;
        if (cli.variant == MML_BAD && fflush(f))
            mml_die("fflush");
    }
    if (fclose(f))
        mml_die("fclose");
    mml_finish(&meter, cli.variant, params, NPARAM, written, params[RECORDS].value);
    return 0;
}
