"""MML003 scattered-shared-writes: small stores at scattered offsets into a shared file mapping.

## What it does
Reports a store (`=`, `op=`, `++`/`--`, or the destination of
`memset`/`memcpy`/`memmove`) through a pointer into a writable `MAP_SHARED`
file-backed mapping, when the store runs per iteration of a loop and its offset
is scattered: hashed, random, taken modulo, or loaded from data (`p[idx[i]]`),
or a recurrence such as a linear congruential step. Pointers derived from the
mapping (`uint64_t *slots = (uint64_t *)base;`, `q = base + off`) count.
Not reported: `MAP_ANONYMOUS` or `MAP_PRIVATE` mappings, and stores whose offset
moves sequentially with the loop (appends, fills, `p[i * 8 + 3]`).

## Why is this bad?
Every page of a shared file mapping that a store dirties must be written back,
and each writeback cycle write-protects the page again (`page_mkclean`) so that
the next store faults into `page_mkwrite`. Sequential stores pay that once per
page; stores scattered over a large mapping dirty a different page almost every
time, so the flusher keeps rescanning the whole file, writes a full page (a
whole folio on modern kernels) per few bytes stored, and the program keeps
faulting and waiting on pages under writeback. In the report behind this rule,
2.5 billion random 8-byte stores over a 256 MB shared mapping took 374 s on
2.6.18 and 805 s on 2.6.32; an XFS user writing 1.5 MB/s into a shared mapping
saw one-second stalls each time the flusher ran. On this project's machines,
200 M random 8-byte stores took 5.1 s against 1.9 s in anonymous memory, with
310k minor faults against 11 and 7.5 GiB written for 1.6 GB of stores; the worst
gap per 1024 stores was 45.8 ms against 0.2 ms.

## Example
```c
uint64_t *slots = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
for (long i = 0; i < n; i++)
    slots[hash(keys[i]) % nslots] += 1;         /* MML003 */
```

## Use instead
Keep the scattered, frequently updated structure in anonymous memory (or a
`MAP_PRIVATE` mapping) and write it out in sequential chunks (`pwrite`, or a
sequential copy into the shared mapping followed by one `msync`) at checkpoints.
If it must live in the file, batch the updates and apply them sorted by offset,
so each dirtied page takes many stores.
"""
from mmaplint.analyzer.findings import Related
from mmaplint.analyzer.variation import SCATTERED
from mmaplint.analyzer.program import Program
from mmaplint.analyzer.registry import Hit

ID = "MML003"
NAME = "scattered-shared-writes"
SEVERITY = "warning"
SUMMARY = "stores at scattered offsets into a writable MAP_SHARED file mapping in a loop"
HELP = ("keep hot scattered data in anonymous memory and write it back sequentially, "
        "or sort the updates by offset")
CALLEES = {"mmap", "mmap64", "memset", "memcpy", "memmove", "strcpy", "strncpy", "bcopy"}
REPRODUCER = "corpus/scattered_shared_writes"


def check(program: Program):
    for store in program.stores:
        mapping = program.mapping_written_by(store)
        if mapping is None or not (mapping.shared and mapping.writable and mapping.file_backed):
            continue
        hot = program.per_iteration(store.span.path, store.function, store.loops)
        if hot is None:
            continue
        where = (store.span.path, store.function, store.loops)
        anchors = frozenset({mapping.pointer} - {None})   # offsets count from the mapping's base
        if program.variation(store.target, *where, address=True, anchors=anchors) != SCATTERED:
            continue
        size = program.constant(mapping.length)
        yield Hit(
            store.span,
            f"store to {store.target.text} lands at a scattered offset of the MAP_SHARED file "
            f"mapping from line {mapping.call.span.line}, {hot.describe()}: each store can dirty "
            "another page, which writeback must write in full and write-protect again",
            related=hot.related() + (Related(mapping.call.span, "the shared file mapping"),),
            params={"size": size} if size else {},
        )
