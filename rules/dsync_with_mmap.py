"""MML002 dsync-with-mmap: a descriptor opened O_DSYNC/O_SYNC is mapped MAP_SHARED and writable.

## What it does
Reports an `mmap()` with `MAP_SHARED` and `PROT_WRITE` of a descriptor that was
opened with `O_DSYNC` or `O_SYNC`: spelled in the `open()` call, built in a
flags variable (`flags |= O_DSYNC`, also under a condition: `if (cfg->sync) flags |=
O_DSYNC;` is a configuration that maps a synchronous descriptor), or added later with
`fcntl(fd, F_SETFL, ...)`. The finding points at the mmap; the open (or fcntl) is a
related location.
A helper that maps a descriptor its caller opened (or flags its caller passed)
is reported at the call that hands them over; one that opens with the flag and
maps on its own is reported once, at its mmap, not again at each call of it.
Not reported: `MAP_PRIVATE` or read-only mappings, and a second descriptor of the
same file opened without the flag (databases map the file read-only or through
one descriptor and write the log through another, which is right).

## Why is this bad?
`O_DSYNC` acts on `write()`: each write returns only once its data is on stable
storage. Stores through a shared mapping never pass through `write()`, so
`O_DSYNC` does nothing for them: their durability comes only from `msync()`
(or the flusher, tens of seconds later). Code written this way usually believes
the mapping is synchronous and is not, while every `write()`/`pwrite()` on the
same descriptor (a header, an append, a resize) becomes a synchronous device
round trip. The report behind this rule (RHEL 5 to RHEL 6) opened its file with
`O_DSYNC`, mapped it `MAP_SHARED` and still needed a per-page msync. Measured on
this project's machines: O_DSYNC changed nothing for stores through the mapping
(0.344 s against 0.324 s), while each 4 KiB `write()` on the same descriptor cost
175 us instead of 16.6 us.

## Example
```c
int fd = open(path, O_RDWR | O_CREAT | O_DSYNC, 0644);
char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);  /* MML002 */
memcpy(p, rec, n);          /* not synchronous, whatever the open said */
```

## Use instead
Open without `O_DSYNC` and make the mapped range durable with
`msync(addr, len, MS_SYNC)` at commit points. If some writes through `write()`
must be synchronous, give them their own descriptor (or call `fdatasync()` after
them) so the flag does not tax every other write.
"""
from mmaplint.analyzer.facts import Span
from mmaplint.analyzer.findings import Related
from mmaplint.analyzer.program import Mapping, Open, Program
from mmaplint.analyzer.registry import Hit

ID = "MML002"
NAME = "dsync-with-mmap"
SEVERITY = "warning"
SUMMARY = "descriptor opened with O_DSYNC/O_SYNC is mapped MAP_SHARED writable"
HELP = "drop O_DSYNC and msync(MS_SYNC) the mapped range at commit points"
CALLEES = {"mmap", "open", "openat", "shm_open", "fcntl"}
REPRODUCER = "corpus/dsync_mmap"


def check(program: Program):
    found = [(mapping, syncing) for mapping in program.mappings if (syncing := _synchronous(program, mapping))]
    # one finding per mmap as written, where the fewest calls lead to it: the mmap itself
    # when it shows the flag on its own, else the call that hands it the descriptor
    nearest: dict[Span, int] = {}
    for mapping, _ in found:
        written = mapping.call.operation.span
        nearest[written] = min(nearest.get(written, len(mapping.call.via)), len(mapping.call.via))
    for mapping, syncing in found:
        call = mapping.call
        if len(call.via) > nearest[call.operation.span]:
            continue
        # a flag the helper's caller passed is reported at the call that hands it over: the
        # nearest caller that spells it (the callers of that caller pass it on unchanged)
        passed = [o for o in syncing if not call.via and _flag_passed_in(program, o)
                  and (o.call.via[0].span.path, o.call.via[0].function) != (call.span.path, call.function)]
        nearest_caller = min((len(o.call.via) for o in passed), default=0)
        sites: dict[Span, list[Open]] = {}
        for o in syncing:
            if o in passed and len(o.call.via) > nearest_caller:
                continue
            sites.setdefault(o.call.via[0].span if o in passed else call.span, []).append(o)
        for site, opens in sites.items():
            flag = opens[0].sync_flag
            yield Hit(
                site,
                f"{mapping.descriptor.text} is opened with {flag} and mapped MAP_SHARED|PROT_WRITE: "
                f"{flag} does nothing for stores through the mapping (their durability comes from "
                f"msync) and makes every write() on {mapping.descriptor.text} synchronous",
                related=tuple(Related(o.call.span, f"{o.call.callee}() sets {flag} here") for o in opens)
                + ((Related(call.span, "mapped here"),) if site != call.span else ()),
            )


def _flag_passed_in(program: Program, opened: Open) -> bool:
    """Whether an open made through calls has its flag from what the first of them passes
    (`region_map(path, n, O_DSYNC)` of a helper that opens with `O_RDWR | extra`), not from
    the helper's own code."""
    if not opened.call.via:
        return False
    own = next((o for o in program.opens if o.call is opened.call.operation), None)
    return own is not None and own.sync_flag is None


def _synchronous(program: Program, mapping: Mapping) -> list[Open]:
    """The opens that give a shared writable file mapping's descriptor O_DSYNC or O_SYNC
    (none for any other mapping)."""
    call = mapping.call
    if not (mapping.shared and mapping.writable and mapping.file_backed):
        return []
    if not program.bound_at(call, mapping.descriptor):
        return []       # a descriptor of the function called: judged at its own mmap
    return program.synchronous_opens(mapping.descriptor, call.span.path, call.function)
