"""MML009 sync-per-iteration: a device flush on every iteration of a loop.

## What it does
Reports `fsync()`, `fdatasync()`, `syncfs()`, `sync()`, and `sync_file_range()`
with a `SYNC_FILE_RANGE_WAIT_*` flag, when the call runs once per iteration of a
loop (in the loop, or in a function or method the loop calls, across the
analyzed files); and `write()`/`pwrite()`/`writev()` run per iteration on a
descriptor opened with `O_SYNC` or `O_DSYNC` (in the `open()` flags, a flags
variable, even one given the flag under a condition, or `fcntl(F_SETFL)`; an element of an array of
descriptors the flag opened, `fds[i] = open(path, flags | O_DSYNC)`; also in another function: a helper that opens
with the flags it is handed, or writes the descriptor it is handed, or a caller
that hands the descriptor to the function whose loop writes it), where every
write is a flush. Points at the call in the loop body: the sync itself,
or the call of the function that leads to it, one finding per loop.
Not reported: a loop that syncs a different file each iteration (the
descriptor is opened in the loop on a path the iteration changes: built from a
name it reads, `fgets` or `fscanf`, or walks; by the constructor of an object the loop
makes (`OutputFile f(path); f.commit();`, `auto f = std::make_unique<OutputFile>(path);
f->commit();`), or taken from an array the loop
walks: one flush per file is the minimum; an outer loop moving to the next
directory does not count, an inner loop syncing that directory per file is
reported, and so is a handle picked by an index loaded from data or hashed,
`dirs[dir_of[i]]` or `fd = shards[hash(key) % n]`: many records share a few
handles), an EINTR retry loop around the call alone
(its caller's loop still counts), the partial-write loop of a `write()` that
writes the rest of one buffer (`left -= n`), or of a function of the program
that writes it (gnulib's `full_write()` handing `safe_write()` the rest: the
size the write is given only shrinks), `sync_file_range()` that only
starts writeback (`SYNC_FILE_RANGE_WRITE`), writes to a second descriptor
of the same file opened without the flag, a sync in a helper the loop
calls when that helper first works through a loop of its own and then syncs
once, itself or through a function it calls after the loop (a retry wrapper):
it syncs a batch, the shape this rule recommends, likewise a function the
loop calls that first calls the program's methods on an object in a loop of its
own, then the method on that same object that syncs (`for (...) file.put(r);
file.close();`: a phase's records, then one sync), and the other batch
and exit-path shapes the README lists (`if (n % 64 == 0)`, a reset counter, a
branch that returns).

## Why is this bad?
A flush waits for the device: the data, the metadata it needs and, on most
filesystems, a journal commit and a cache flush command. One flush per record
makes the loop run at the device's flush latency (tens of microseconds on a
write-back cache, milliseconds on a disk) whatever the record size, and it
forces small, unmerged writes and a journal commit per record. It is the
pattern of this rule's seed, a kernel that woke the flusher on every buffer
allocation of a hot path and cost a mail server 60 % of its throughput. On this
project's machines `fdatasync` after each 4 KiB record cost 211 us per record
against 16.6 us for buffered writes (12.7x), and a `write()` of 4 KiB on an
`O_DSYNC` descriptor 175 us against 16.6 us. `mmaplint confirm MML009` measures
it where your data lives.

## Example
```c
for (size_t i = 0; i < n; i++) {
    write(fd, &rec[i], sizeof rec[i]);
    fdatasync(fd);                          /* MML009 */
}
```

## Use instead
Batch: write a group of records, then sync once per group (per transaction,
per N records or per few milliseconds, group commit), and acknowledge the
records of a group only after its sync:
```c
for (size_t i = 0; i < n; i++)
    write(fd, &rec[i], sizeof rec[i]);
fdatasync(fd);
```
Open without `O_DSYNC` and `fdatasync()` per batch instead of paying a flush on
every `write()`.
"""
from mmaplint.analyzer.constants import SYNC_FILE_RANGE_FLAGS
from mmaplint.analyzer.facts import BINARY, CALL, SUBSCRIPT, Call, Expr, Loop, strip
from mmaplint.analyzer.findings import Related
from mmaplint.analyzer.frequency import FACTORIES
from mmaplint.analyzer.variation import INVARIANT, SCATTERED
from mmaplint.analyzer.iteration import HotPath
from mmaplint.analyzer.program import OPEN_CALLS, SYNC_CALLS, Program
from mmaplint.analyzer.registry import Hit

ID = "MML009"
NAME = "sync-per-iteration"
SEVERITY = "warning"
SUMMARY = "fsync/fdatasync/sync (or a write to an O_SYNC/O_DSYNC descriptor) on every loop iteration"
HELP = "batch the records and sync once per batch (group commit)"
# writes -> index of their byte count (None: an iovec count)
WRITES = {"write": 2, "pwrite": 2, "writev": None, "pwritev": None, "pwritev2": None}
WAITS = {"SYNC_FILE_RANGE_WAIT_BEFORE", "SYNC_FILE_RANGE_WAIT_AFTER"}
# Calls that may share a retry loop with the call retried (errno is one in clang's view).
RETRY_COMPANIONS = {"__errno_location", "__errno", "__error", "fileno"}
CALLEES = SYNC_CALLS | set(WRITES) | {"fileno", "open", "openat", "fcntl"}
REPRODUCER = "corpus/fsync_per_record"


def check(program: Program):
    for call in program.calls(*SYNC_CALLS):
        if call.callee == "sync_file_range":
            flags = program.call_flags(call, 3, SYNC_FILE_RANGE_FLAGS)
            if not (flags and flags & WAITS):
                continue
        hot = _per_record(program, call)
        if hot is not None:
            yield Hit(call.span,
                      f"{call.callee}() runs {hot.describe()}: every iteration waits for the device "
                      "to flush, so the loop runs at the flush latency", related=hot.related(),
                      operation=hot.operation_span)
    # a write is a flush only on a synchronous descriptor: none opened, none to follow
    for call in program.calls(*WRITES) if any(o.sync_flag for o in program.opens) else ():
        syncing = program.synchronous_opens(call.arg(0), call.span.path, call.function, handed=True)
        if not syncing:
            continue
        hot = _per_record(program, call)
        if hot is not None:
            flag = syncing[0].sync_flag
            yield Hit(call.span,
                      f"{call.callee}() to a descriptor opened with {flag} runs {hot.describe()}: "
                      "each write waits for the device to flush",
                      related=(Related(syncing[0].call.span, f"{flag} is set here"),) + hot.related(),
                      operation=hot.operation_span)


def _per_record(program: Program, call: Call) -> HotPath | None:
    """Whether the call flushes once per iteration of a loop over records: loops that only
    retry the call do not count, nor loops that move to another file each iteration."""
    op = call.operation
    hot = program.call_per_iteration(call, skip=lambda c, loop_id: _only_completes(program, call, c, loop_id))
    if hot is None or not _revisits(program, call, hot.loop):
        return None
    if hot.chain and (program.batch_on_the_way(
            call, _descriptor(op), frozenset(WRITES), lambda c, loop_id: _retries(program, c, loop_id), handed=True)
            or program.after_batch_on_object(hot)):
        return None     # a helper works through a batch, then syncs it once: the recommended shape
    return hot


def _revisits(program: Program, call: Call, loop: Loop) -> bool:
    """Whether the loop that repeats the call syncs the same descriptor again: the same one
    every iteration (an outer loop moving to the next directory does not make each inner
    iteration sync another file), or one picked from a table by an index loaded from data
    or hashed (`dirs[dir_of[i]]`, `shards[h % n]`: many records map onto a few handles;
    `fds[i]` syncs each once)."""
    where = (call.span.path, call.function, (loop.id,))
    fd = strip(_descriptor(call))
    if _opened_by_object_made(program, call, fd, loop):
        return False
    picked = _picked(program, call, fd, loop)
    if picked is not None and picked.kind == SUBSCRIPT and program.variation(picked.children[0], *where) == INVARIANT:
        return program.variation(picked.children[1], *where) in (INVARIANT, SCATTERED)
    return program.variation(fd, *where) == INVARIANT or _reopens_same_file(program, call, fd, loop)


def _opened_by_object_made(program: Program, call: Call, fd: Expr | None, loop: Loop) -> bool:
    """Whether the descriptor is a member that the constructor of an object the iteration
    makes opens (`OutputFile f(path); f.commit();` with `fd_(::open(path, ...))`, or the
    object a factory makes, `auto f = std::make_unique<OutputFile>(path);`): opened in the
    loop, a file per object."""
    site = call.via[0] if call.via else None
    member = program.key(fd, call.span.path, call.function)
    if site is None or site.receiver is None or member is None or member[0] != "field":
        return False
    where = (site.span.path, site.function)
    made = program.key(site.receiver, *where)
    calls = program.calls_in(*where)

    def holders(construction: Call) -> set:
        """The variables holding what a construction makes: its own, or its factory's."""
        return {program.key(c.result, *where) for c in calls
                if c is construction or c.callee in FACTORIES and c.span == construction.span}
    return made is not None and any(
        loop.id in construction.loops and made in holders(construction)
        and any(program.key(a.target, path, ctor.qualified) == member and (value := strip(a.value)) is not None
                and value.kind == CALL and value.op in OPEN_CALLS
                for path, ctor in program.resolve(construction) for a in program.assignments_in(path, ctor.qualified))
        for construction in calls)


def _picked(program: Program, call: Call, fd: Expr | None, loop: Loop) -> Expr | None:
    """What picks the descriptor: itself, or the value of a local given it once per iteration:
    by the loop (`fd = shard_fd[h % n]; ...; fsync(fd)`), or, in a function the loop runs, once
    per call, outside the function's own loops (`const int fd = fds_[hash(key) % n];` in put())."""
    key = program.key(fd, call.span.path, call.function)
    if key is None or key[0] != "local":
        return fd
    in_loop = key[1:3] == (loop.span.path, loop.function)
    given = [a for a in program.assignments_to(key) if (loop.id in a.loops if in_loop else not a.loops)]
    return strip(given[0].value) if len(given) == 1 and given[0].op == "=" else fd


def _reopens_same_file(program: Program, call: Call, fd, loop: Loop) -> bool:
    """Whether the descriptor, though opened anew each iteration, names the same file each
    time: the open made on the way to this call (here, or in the function it calls) has a path
    the loop does not change (a config file rewritten and synced per event), asked where the
    open is written, across what the loop runs (a helper's path built from the name it is
    handed is the caller's item's)."""
    site = call.via[0] if call.via else None
    for opened in program.opens_of(fd, call.span.path, call.function):
        made = opened.call
        if made.callee not in OPEN_CALLS:
            continue    # fcntl(F_SETFL) sets flags, it opens nothing
        if (made.via[0] if made.via else None) is not site and not (
                site is None and made.span.path == call.span.path and made.function == call.function):
            continue
        if program.opens_same_file(made, program.region(loop)):
            return True
    return False


def _only_completes(program: Program, call: Call, step: Call, loop_id: int) -> bool:
    """Whether a loop around the operation, or around a call on the way to it, only completes
    one write: a retry of the write itself, or a loop handing a function of the program that
    writes (gnulib's full_write calling safe_write) the rest of one buffer, by the size that
    reaches the write (`while (count > 0) { n = safe_write(fd, p, count); ...; count -= n; }`)."""
    op = call.operation
    if step is op:
        return _retries(program, op, loop_id)
    level = next((i for i, c in enumerate(call.via) if c is step), None)
    count = WRITES.get(op.callee)
    if level is None or count is None:
        return False
    size = program.summaries.lift(op.arg(count), call.via[level:], len(call.via) - 1 - level)
    return program.rest_of_one(step, loop_id, size)


def _retries(program: Program, call: Call, loop_id: int) -> bool:
    """An EINTR retry loop around the call alone, or the loop that writes the rest of one buffer."""
    loop = program.loop(call.span.path, loop_id)
    if loop.kind in ("while", "do") and all(c.callee == call.callee or c.callee in RETRY_COMPANIONS
                                            for c in program.calls_inside(loop)):
        return True
    count = WRITES.get(call.callee)
    return bool(count) and program.rest_of_one(call, loop_id, call.arg(count))


def _descriptor(call: Call) -> Expr | None:
    """The descriptor a call syncs or writes; a stream's for fsync(fileno(f))."""
    fd = strip(call.arg(0))
    if fd is not None and fd.kind == CALL and fd.op == "fileno" and fd.children:
        return fd.children[0]
    return fd
