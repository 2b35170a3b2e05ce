"""MML001 msync-in-loop: msync(MS_SYNC) executed on every iteration of a loop.

## What it does
Reports a call to `msync()` whose flags include `MS_SYNC`, or cannot be shown to
lack it, when the call runs once per iteration of a loop: written in the loop
body, expanded there from a macro, or inside a function or C++ method that the
loop calls, directly or through further calls, across the analyzed files (its
flags, and the mapping it syncs, as the calls pass them: a shim handed
`MS_SYNC` by its caller counts). A call made through a function points at the
call in the loop body, with the chain down to the `msync` as related
locations.
`MS_ASYNC` and `MS_INVALIDATE` without `MS_SYNC` are not reported: Linux has
made `MS_ASYNC` a no-op since 2.6.19 (dirty pages are tracked and the flusher
writes them anyway). Nor is an msync of a mapping known to be `MAP_PRIVATE` or
anonymous, or of shared memory with no file behind it (a descriptor from
`shm_open` or `memfd_create`): Linux writes back only shared mappings of files,
so such a call waits for nothing (16 MiB stored a page at a time on ext4 here,
msync per page: 0.009 s private against 0.008 s with no msync at all, 0.63 s shared).
Nor is a loop that maps another file each iteration (in its body, or through a
helper it hands the path: a descriptor opened per iteration on a path the loop
changes, a tool stamping each file it is given) and syncs it once: one msync per
file is the minimum, as one fsync per file is for MML009; mapping the same file
again each iteration is still an msync per record.
An `msync` after the loop is the fix, not a finding, and so is one a helper makes
after copying its batch into the mapping in a loop of its own (`memcpy` of each
record, then one `msync`: a group commit per call; also into slots a pointer or
a field given one value points to, `ring_ = base_ + sizeof(Header)`), and one every N iterations
over the batch (`if (++n % 1000 == 0) msync(map, size, MS_SYNC)`). An msync
under a guard that counts in the length it syncs is still reported: `if ((off +
len) % PAGE == 0) msync(map + off + len - PAGE, PAGE, MS_SYNC)` syncs each page
as the loop fills it.

## Why is this bad?
`msync(MS_SYNC)` writes back every dirty page of its range and waits for the
device. One call per page turns a stream of stores into a stream of
synchronous device round trips: the loop runs at the device's write latency,
not its bandwidth. It gets worse where the kernel enforces stable pages during
writeback (RHEL 6 and later, devices with checksums or integrity data): a store
to a page that is still being written back sleeps in `page_mkwrite` until the
I/O completes. In the report this rule comes from, a program that mapped a file
`MAP_SHARED` and msynced the previous page each time it crossed a page boundary
took 5 s on RHEL 5 and 110 s on RHEL 6; iozone's mmap+msync rewrite fell from
tens of MB/s to hundreds of KB/s. On this project's machines (ext4 on a virtio
disk) 16 MiB written with a per-page msync took 2.90 s against 0.28 s with one
msync per pass (10x); on tmpfs the difference is 1.15x. With large folios (ext4
since Linux 6.16) each per-page msync may write a whole folio: 1 GiB reached the
device for 8 MiB of data.

## Example
```c
for (size_t off = 0; off < len; off += 4096) {
    memcpy(map + off, src + off, 4096);
    msync(map + off, 4096, MS_SYNC);        /* MML001 */
}
```

## Use instead
Store the whole batch, then make it durable once, over the range that changed:
```c
memcpy(map, src, len);
msync(map, len, MS_SYNC);
```
When each record must be durable before the next, group records into
transactions and msync once per commit, or write the records with `write()` to
a descriptor and `fdatasync()` per group.
"""
from mmaplint.analyzer import frequency
from mmaplint.analyzer.constants import MSYNC_FLAGS
from mmaplint.analyzer.iteration import HotPath
from mmaplint.analyzer.program import OPEN_CALLS, UNKNOWN, Mapping, Program
from mmaplint.analyzer.registry import Hit

ID = "MML001"
NAME = "msync-in-loop"
SEVERITY = "warning"
SUMMARY = "msync(MS_SYNC) executed on every iteration of a loop"
HELP = "msync once over the whole changed range after the loop (or once per batch/commit)"
# calls that write a mapping a helper then syncs (its batch, copied in a loop before the msync)
COPIES = frozenset({"memcpy", "memmove", "memset", "strcpy", "strncpy"})
CALLEES = {"msync", "mmap"} | COPIES
ANALYSES = {"provenance"}
REPRODUCER = "corpus/msync_per_page"


def check(program: Program):
    for call in program.calls("msync"):
        flags = program.call_flags(call, 2, MSYNC_FLAGS)
        if not flags & {"MS_SYNC", UNKNOWN}:
            continue
        mapping = program.mapping_of(call.arg(0), call.span.path, call.function, call.span)
        if _writes_nothing_back(mapping):
            continue
        hot = program.call_per_iteration(call)
        if hot is None and _page_by_page(program, call):
            hot = program.call_per_iteration(call, batches=False)
        if hot is None or _maps_another_file(program, call, mapping, hot):
            continue
        if hot.chain and _helper_commits_batch(program, call):
            continue    # a helper copies its batch into the mapping in a loop, then syncs it once
        spelled = "msync(MS_SYNC)" if "MS_SYNC" in flags else "msync() (flags not known to lack MS_SYNC)"
        if call.macro:
            spelled += f" from macro {call.macro}"
        yield Hit(
            call.span,
            f"{spelled} runs {hot.describe()}: each call writes the range back and waits for the "
            "device, so the loop runs at the device's latency",
            related=hot.related(),
            params=_params(program, call, mapping),
            operation=hot.operation_span,
        )


def _page_by_page(program: Program, call) -> bool:
    """Whether the guard that spaces the msyncs out counts in the length each one syncs
    (`if ((off + len) % PAGE == 0) msync(map + off + len - PAGE, PAGE, MS_SYNC)`, the same
    constant or the same variable: `pagesize` from sysconf): each page is synced as the loop
    fills it, page by page.  A batch guard spares the device only when each msync covers the
    batch (`if (++n % 1000 == 0) msync(map, size, MS_SYNC)`)."""
    written = call.operation
    where = (written.span.path, written.function)
    length, variable = program.constant_in(written.arg(1), *where), program.key(written.arg(1), *where)
    if length is None and variable is None:
        return False
    for c in call.via or (written,):     # the msync as written and the calls on the way to it
        for guard in program.guards_over(c):
            for period in () if guard.preprocessor else frequency.periods(guard.condition):
                if length is not None and program.constant_in(period, c.span.path, c.function) == length \
                        or variable is not None and program.key(period, c.span.path, c.function) == variable:
                    return True
    return False


def _helper_commits_batch(program: Program, call) -> bool:
    """Whether a function on the way copies its batch into the mapping in a loop of its own
    before the call that leads to the msync (or makes it): `commit(log, recs, n)` copying each
    record, then syncing the range through a helper of its own.  The synced range, in that
    function's terms, is what the loop must copy into."""
    return program.batch_on_the_way(call, call.operation.arg(0), COPIES)


def _maps_another_file(program: Program, call, mapping: Mapping | None, hot: HotPath) -> bool:
    """Whether each iteration maps another file: the mapping is made in the loop's body (the
    mmap, or the call of the helper that hands it back) or by a function on the way to the
    msync (a helper that maps, stamps and syncs the path it is handed), of a descriptor opened
    in the iteration on a path the loop changes (a loop over files that stamps each and syncs
    it once: one msync per file is the minimum, as one fsync is for MML009)."""
    if mapping is None:
        return False
    made, loop = mapping.call, hot.loop
    written = made.operation        # the mmap as written (in a helper, maybe)
    on_the_way = {(c.span.path, c.function) for c in hot.chain} | {(call.operation.span.path, call.operation.function)}
    in_body = (made.span.path, made.function) == (loop.span.path, loop.function) and loop.id in made.loops
    if not in_body and (written.span.path, written.function) not in on_the_way:
        return False
    region = program.region(loop)
    opens = [o.call for o in program.opens_of(written.arg(4), written.span.path, written.function)
             if o.call.callee in OPEN_CALLS and region.runs(o.call.span.path, o.call.function, o.call.loops)]
    return bool(opens) and not any(program.opens_same_file(o, region) for o in opens)


def _writes_nothing_back(mapping: Mapping | None) -> bool:
    """Whether the synced pointer comes from a mapping known to be private or anonymous, or of a
    descriptor that is no file (shm_open, memfd_create): the kernel's msync writes back only a
    file's shared mappings."""
    return mapping is not None and (mapping.no_file or UNKNOWN not in mapping.flags
                                    and (not mapping.shared or mapping.anonymous))


def _params(program: Program, call, mapping: Mapping | None) -> dict[str, int]:
    """The mapping size and synced length, when the code has them as constants."""
    params = {"sync_bytes": program.constant(call.arg(1))}
    if mapping is not None:
        params["size"] = program.constant(mapping.length)
    return {name: value for name, value in params.items() if value}
