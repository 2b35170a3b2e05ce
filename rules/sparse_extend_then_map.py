"""MML006 sparse-extend-then-map: a file grown sparsely, then mapped MAP_SHARED and written.

## What it does
Reports an `mmap()` with `MAP_SHARED` and `PROT_WRITE` of a descriptor that the
same function grew just before without allocating the new range (and, in the
other order, an `ftruncate()` that grows a file mapped earlier, up to its
largest size, when the same function then writes the grown range through the
mapping: reported at the `ftruncate`): with
`ftruncate()`, or by seeking past the end and writing one byte (`lseek` +
`write(fd, "", 1)`, or `pwrite(fd, "", 1, size - 1)`), when the mapping is then
written through, or kept in a struct field or a global (a database's map, a
cache's silo; also through a local the function copies there, `base_ =
static_cast<uint8_t *>(p)`) or returned to the caller (a `map_file(path, size)` helper, or
one returning a struct that holds it: `return Region{fd, p, size};`),
where the stores happen in other functions. The finding points at
the mmap; the growth and the first store (or where the mapping is kept) are
related locations.
Not reported: a range preallocated with `posix_fallocate()`/`fallocate()`, or
filled by a `write()` loop before it is mapped; read-only or `MAP_PRIVATE`
mappings; mappings never stored to and not kept beyond the function; small fixed-size
regions (a mapped length or a grown size the code gives as a constant, a literal,
a macro or arithmetic on them, under 64 KiB: exactly 64 KiB, or a size known only
at run time, counts), where the cost is a handful of faults; and lock tables,
mappings the program initialises process-shared mutexes, condition variables
or semaphores in (`pthread_mutex_init(&table->lock, &attr)`, `sem_init`): a
lock file's region is sized by how many processes coordinate through it, not
by data, and stays small however its size is computed
(`(max_readers - 1) * sizeof(struct reader) + sizeof(struct header)`).

## Why is this bad?
Growing a file with `ftruncate` or a one-byte write at the new end allocates no
blocks: the range is a hole. The first store to each page of the mapping then
faults into the filesystem's `page_mkwrite`, which must allocate (or reserve,
with delayed allocation) blocks for that page under the inode's locks, on the
store's critical path, page by page, in fault order rather than in large
extents. Every page of the range pays a fault that also waits on the journal
and on writeback of neighbouring pages, and the file ends up fragmented. Worse,
the store has no way to report failure: when the filesystem is full (ENOSPC) or
over quota, the fault cannot allocate and the process gets SIGBUS instead of an
error from a system call. In the report this rule comes from, a program grew 50
files by 4 MiB at a time with `lseek` + a one-byte `write`, mapped each segment
`MAP_SHARED` and memset it: on RHEL 6 single memsets of 512 KiB took 1.4 to 2.2
seconds (milliseconds on RHEL 5). On this project's machines the same program
with and without `posix_fallocate` was inconclusive in two runs (p99 9.5/2.6 ms
against 7.5/6.7 ms): the latency shows under writeback pressure and needs
repetitions, which `mmaplint confirm MML006` does.

## Example
```c
lseek(fd, off + SEG - 1, SEEK_SET);
write(fd, "", 1);                       /* grows the file: a hole */
char *p = mmap(NULL, SEG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);  /* MML006 */
memset(p, 0, SEG);                      /* every page faults and allocates */
```

## Use instead
Allocate the range before mapping it, so the faults find blocks and a full disk
is an error code rather than a signal:
```c
if ((errno = posix_fallocate(fd, off, SEG)) != 0)
    return -1;
char *p = mmap(NULL, SEG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
```
Grow in large steps (tens of MiB) so allocation happens in few, large extents.
"""
from mmaplint.analyzer.expressions import address_base, handed_back
from mmaplint.analyzer.facts import UNARY, Call, strip
from mmaplint.analyzer.findings import Related
from mmaplint.analyzer.program import MMAP_CALLS, Key, Mapping, Program, Store
from mmaplint.analyzer.registry import Hit

ID = "MML006"
NAME = "sparse-extend-then-map"
SEVERITY = "warning"
SUMMARY = "file grown sparsely (ftruncate, or lseek + 1-byte write), then mapped MAP_SHARED and written"
HELP = "posix_fallocate the new range before mapping it (and grow in large steps)"
TRUNCATES = {"ftruncate"}
SEEKS = {"lseek"}
# write calls -> (index of the byte count, index of the offset or None)
WRITES = {"write": (2, None), "pwrite": (2, 3), "writev": (None, None),
          "pwritev": (None, 3), "pwritev2": (None, 3)}
PREALLOCATES = {"posix_fallocate", "fallocate"}
# synchronisation objects shared between processes live in a lock table, not in data
LOCK_INITS = {"pthread_mutex_init", "pthread_rwlock_init", "pthread_cond_init", "pthread_spin_init",
              "pthread_barrier_init", "sem_init"}
CALLEES = MMAP_CALLS | TRUNCATES | SEEKS | set(WRITES) | PREALLOCATES | LOCK_INITS | {
    "memset", "memcpy", "memmove", "strcpy", "strncpy", "bcopy"}
ANALYSES = {"provenance"}
REPRODUCER = "corpus/sparse_extend_map"

SMALL_REGION = 64 * 1024


def check(program: Program):
    first_stores = _first_stores(program)
    lock_tables = _lock_tables(program)
    for mapping in program.mappings:
        if not (mapping.shared and mapping.writable and mapping.file_backed):
            continue
        if not program.bound_at(mapping.call, mapping.descriptor):
            continue    # a descriptor of the function called: judged at its own mmap
        store = first_stores.get(mapping.call)
        kept = _kept_in(program, mapping)
        if store is None and kept is None and not _returned(program, mapping):
            continue    # neither written here nor kept (a field, a global, the caller's) for writes elsewhere
        growth = _sparse_growth(program, mapping)
        if growth is None:
            continue
        size = program.constant(mapping.length)
        grown_to = program.constant(growth.arg(1)) if growth.callee in TRUNCATES else None
        if any(n is not None and n < SMALL_REGION for n in (size, grown_to)):
            continue
        if mapping.pointer is not None and mapping.pointer in lock_tables:
            continue
        call = mapping.call
        how = (f"{growth.callee}()" if growth.callee in TRUNCATES
               else f"a one-byte {growth.callee}() past the end")
        yield Hit(
            call.span,
            f"{mapping.descriptor.text} is grown by {how} at line {growth.span.line} and the new "
            "range is mapped MAP_SHARED and written without posix_fallocate: each first store to "
            "a page faults and allocates blocks in page_mkwrite, and a full disk becomes SIGBUS",
            related=(Related(growth.span, "the file is grown here, leaving a hole"),
                     Related(store.span, "the mapping is written here") if store else
                     Related(call.span, f"the writable mapping is kept in {kept} for writes elsewhere")
                     if kept is not None else
                     Related(call.span, "the writable mapping is returned for the caller's writes")),
            params={"size": size} if size else {},
        )
    yield from _grown_under_mapping(program, lock_tables)


def _grown_under_mapping(program: Program, lock_tables: set[Key]):
    """The other order: a file mapped once (up to its largest size) and grown with ftruncate()
    when a write passes its end, then written through the mapping in the same function (a
    database's write path): the new range is a hole the stores fault into all the same."""
    reported: set = set()
    for growth in program.written_calls(*TRUNCATES):
        grown_to = program.constant(growth.arg(1))
        if grown_to is not None and grown_to < SMALL_REGION:
            continue    # truncated away (0), or a few pages
        descriptor = program.key(growth.arg(0), growth.span.path, growth.function)
        if descriptor is None or descriptor in reported or _preallocated(program, descriptor):
            continue
        for store in program.stores:
            if store.span.path != growth.span.path or store.function != growth.function or store.span < growth.span:
                continue
            mapping = program.mapping_written_by(store)
            if (mapping is None or not (mapping.shared and mapping.writable and mapping.file_backed)
                    or mapping.pointer in lock_tables
                    or program.key(mapping.descriptor, mapping.call.span.path, mapping.call.function) != descriptor):
                continue
            made = mapping.call
            if made.span.path == growth.span.path and made.function == growth.function and growth.span < made.span:
                continue    # mapped after the growth, here: the mmap is reported
            reported.add(descriptor)
            yield Hit(
                growth.span,
                f"{growth.arg(0).text} is grown by {growth.callee}() and the new range is written through "
                f"the MAP_SHARED mapping from line {made.span.line} without posix_fallocate: each first "
                "store to a page faults and allocates blocks in page_mkwrite, and a full disk becomes SIGBUS",
                related=(Related(made.span, "the file is mapped here"),
                         Related(store.span, "the new range is written here")),
            )
            break


def _kept_in(program: Program, mapping: Mapping) -> str | None:
    """Where the mapping is kept beyond its function, as written: the field or global the mmap's
    result goes to, or one its function copies the local it went to into (`void *p = mmap(...);
    ...; base_ = static_cast<uint8_t *>(p);`)."""
    pointer, call = mapping.pointer, mapping.call
    if pointer is None or call.result is None:
        return None
    if pointer[0] != "local":
        return call.result.text
    where = (call.span.path, call.function)
    return next((a.target.text for a in program.assignments_in(*where)
                 if a.op == "=" and program.holder(a.value, *where) == pointer
                 and (target := program.holder(a.target, *where)) is not None and target[0] != "local"), None)


def _returned(program: Program, mapping: Mapping) -> bool:
    """Whether the mmap's function hands the mapping back to its caller (`return p;`, `return
    p == MAP_FAILED ? NULL : p;`, `return Region{fd, p, n};` or `return mmap(...);` in a
    `map_file(path, size)` helper): kept beyond it, for the caller's stores."""
    call = mapping.call
    return any(r.span.contains(call.span) or (mapping.pointer is not None and any(
        program.key(value, call.span.path, call.function) == mapping.pointer for value in handed_back(r.value)))
        for r in program.summaries.returns_in(call.span.path, call.function))


def _preallocated(program: Program, descriptor: Key) -> bool:
    return any(program.key(c.arg(0), c.span.path, c.function) == descriptor
               for c in program.calls(*PREALLOCATES))


def _first_stores(program: Program) -> dict[Call, Store]:
    """The first store into each mapping, by the mmap call that made it."""
    found: dict[Call, Store] = {}
    for store in sorted(program.stores, key=lambda s: s.span):
        mapping = program.mapping_written_by(store)
        if mapping is not None:
            found.setdefault(mapping.call, store)
    return found


def _lock_tables(program: Program) -> set[Key]:
    """Where the program keeps mappings that it initialises locks in (`pthread_mutex_init(&t->lock,
    ...)`, or `(t->locks, ...)` for an array member, with t pointing into the mapping): the variable
    or field, so that an init function apart from the mmap counts too."""
    found = set()
    for call in program.calls(*LOCK_INITS):
        lock = strip(call.arg(0))
        if lock is None:
            continue
        inside = strip(lock.children[0]) if lock.kind == UNARY and lock.op == "&" else lock
        for pointer in (lock, address_base(inside)):
            mapping = program.mapping_of(pointer, call.span.path, call.function, call.span)
            if mapping is not None:
                found.add(mapping.pointer)
    return found


def _sparse_growth(program: Program, mapping: Mapping) -> Call | None:
    """The call that grew the mapped descriptor before the mmap, in its function, when nothing
    allocated or filled the range: the last ftruncate or one-byte write past the end."""
    call = mapping.call
    descriptor = program.key(mapping.descriptor, call.span.path, call.function)
    if descriptor is None:
        return None
    on_descriptor = [c for c in program.calls(*TRUNCATES, *SEEKS, *WRITES, *PREALLOCATES)
                     if program.key(c.arg(0), c.span.path, c.function) == descriptor]
    if any(c.callee in PREALLOCATES for c in on_descriptor):
        return None
    before = sorted((c for c in on_descriptor if c.span.path == call.span.path
                     and c.function == call.function and c.span < call.span),
                    key=lambda c: c.span)
    seeked = False
    growth = None
    for c in before:
        if c.callee in SEEKS:
            seeked = seeked or program.constant(c.arg(1)) != 0
        elif c.callee in TRUNCATES:
            growth = c if program.constant(c.arg(1)) != 0 else None
        elif _grows(program, c, seeked):
            growth = c
        elif c.callee in WRITES and set(c.loops) - set(call.loops):
            return None     # a write() loop that does not enclose the mmap fills the range
    return growth


def _grows(program: Program, call: Call, seeked: bool) -> bool:
    """A one-byte write at a far offset: after an lseek, or a pwrite at a non-zero offset."""
    if call.callee not in WRITES:
        return False
    count, offset = WRITES[call.callee]
    if count is None or program.constant(call.arg(count)) != 1:
        return False
    return seeked if offset is None else program.constant(call.arg(offset)) != 0
