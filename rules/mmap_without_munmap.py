"""MML008 mmap-without-munmap: a mapping made on every iteration and never unmapped.

## What it does
Reports an `mmap()` executed once per iteration of a loop (in the loop, or in a
function or method the loop calls, the constructor of an object it makes included,
across the analyzed files and however many
calls away: a leak grows with every repetition, however coarse; the finding
points at the call in the loop body that leads to it) when no `munmap()`
in the analyzed code can receive the mapping: none is handed the variable the
mapping went to, nor a variable, field or array it was copied into
(`segs[n] = p` then `munmap(segs[i], len)` counts as released; so does a destructor's
`munmap(base_, len_)` after `base_ = p == MAP_FAILED ? nullptr : p`). An `munmap()`
of the local the loop assigns each new mapping to (mmap's result, or that of a
helper returning its mapping), made after that loop and outside it, releases
only the last mapping and does not count (nor does another
loop's own `p` of the same name). A `munmap()` of
something the rule cannot trace (a function parameter, a range-for element) is
taken to release every mapping that escapes what the rule follows (returned,
either branch of `return p == MAP_FAILED ? NULL : p` included, and an item of a
returned struct, `return Region{fd, p, n}`; stored through a
pointer parameter, `*out = mmap(...)`; kept in a field or global; pushed into a
container, itself or in a struct, `segs_.push_back(Seg{p, len})`) and those of the function it runs in or is called from: an unmap
helper or a destructor that walks a vector of segments keeps the rule silent,
and so does a `map_segment()` helper whose callers hand each segment to an
`unmap_segment(void *p)`. Points at the mmap in the loop body, or at the call there that
leads to it.
Not reported: `MAP_FIXED` mappings, which replace part of a region reserved
earlier instead of adding to the address space. Nor, as for every rule, a loop
that runs a handful of times (up to a constant of 16 or less, over a table in
the source, over the command line's arguments or a pattern's matches, over a
list the command line's options fill: the README's frequency model): varnish
maps one storage silo per `-s` option, a list its option loop fills, and keeps
each for the process's life, so the mappings do not grow with the workload; a
list a loop over requests or records fills is still the pattern. Nor a loop once
per processor or NUMA node (`for (i = numa_max_node(); i >= 0; --i)`, `cpu < sysconf(_SC_NPROCESSORS_ONLN)`:
one buffer per node, a number the hardware fixes), or the work a forked child
does before it ends its process (`if (pid == 0) { child_main(); _exit(0); }`).

## Why is this bad?
Each mapping is a VMA in the process and, for a file, a reference on the file
and its page cache. Mappings that pile up without end grow the address space
until `mmap` fails with ENOMEM at `vm.max_map_count` (65530 by default), keep
every page they touched charged to the process, and make every later fault,
`mmap` and `munmap` walk a larger VMA tree. For shared file mappings the kernel
must also keep tracking and writing back the dirty pages of all of them: in
the report this rule comes from, a program mapped 4 MiB segments of 50 growing
files and never unmapped them (an `madvise(MADV_DONTNEED)` of old segments was
disabled); memsets into the newest segment went from milliseconds on RHEL 5 to
1.4-2.2 seconds on RHEL 6 as writeback of everything still mapped ran under
them. `mmaplint confirm MML008` measures a loop of this shape on your kernel.

## Example
```c
for (off_t off = 0; off < total; off += SEG) {
    char *p = mmap(NULL, SEG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);  /* MML008 */
    fill(p, SEG);
}
```

## Use instead
Unmap each segment when you are done with it (after an `msync` if it must be
durable), or keep a bounded window of segments and unmap the oldest; or map the
whole file once and `mremap` it when it grows:
```c
for (off_t off = 0; off < total; off += SEG) {
    char *p = mmap(NULL, SEG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
    fill(p, SEG);
    munmap(p, SEG);
}
```
"""
from collections import defaultdict

from mmaplint.analyzer.expressions import alternatives, handed_back
from mmaplint.analyzer.facts import CALL, EVERY_CALL, IDENTIFIER, UNARY, Call, strip
from mmaplint.analyzer.iteration import reachable
from mmaplint.analyzer.program import MMAP_CALLS, Key, Mapping, Program
from mmaplint.analyzer.registry import Hit

ID = "MML008"
NAME = "mmap-without-munmap"
SEVERITY = "warning"
SUMMARY = "mmap executed per loop iteration whose mapping is never unmapped"
HELP = "munmap each mapping when done with it, or keep a bounded window of mappings"
UNMAPS = {"munmap"}
# Calls that put a pointer into a container the rule cannot name (the receiver is not a fact).
INSERTS = {"push_back", "emplace_back", "push_front", "emplace_front", "push", "emplace", "insert",
           "append", "add", "list_add", "list_add_tail", "g_ptr_array_add"}
# every call: what fills the list a loop walks may be a macro (VTAILQ_INSERT_TAIL(&head, x, f))
CALLEES = MMAP_CALLS | UNMAPS | INSERTS | {EVERY_CALL}
REPRODUCER = "corpus/mmap_no_munmap"


def check(program: Program):
    flows = _flows(program)
    # however deep the call that maps: a leak grows with every repetition, however coarse
    mappings = [program.mapping(call) for call in program.calls(*MMAP_CALLS, deep=True)]
    # a mapping a function of the program makes is held where its call puts it, and where the
    # function itself keeps it (`segs[n].p = p` of a map_seg() whose result the caller drops)
    # (by identity: an instance's hash walks its whole chain of calls)
    holders = {id(m.call): set().union(*(reachable(key, flows) for c in (m.call, m.call.operation)
                                         if (key := program.holder(c.result, c.span.path, c.function)) is not None))
               for m in mappings}
    traced = set().union(*holders.values()) if holders else set()
    unmaps = [(u, program.holder(u.arg(0), u.span.path, u.function)) for u in program.calls(*UNMAPS)]
    untraced = [u for u, key in unmaps if key is None or key not in traced]
    # a container's element, or an item of the struct pushed (`regions_.push_back(region{p, len})`)
    inserted = {program.holder(item, c.span.path, c.function)
                for c in program.written_calls(*INSERTS) for arg in c.args or () for item in handed_back(arg)}
    escaped = inserted | _returned(program)
    for mapping in mappings:
        held = holders[id(mapping.call)]
        if "MAP_FIXED" in mapping.flags or any(_releases(program, mapping, u, key) for u, key in unmaps
                                               if key in held):
            continue
        if untraced and _reaches_untraced(program, mapping, held, escaped, untraced):
            continue
        hot = program.call_per_iteration(mapping.call, every_iteration=False)   # a leak every N still grows
        if hot is None:
            continue
        kept = _kept_in(mapping)
        size = program.constant(mapping.length)
        yield Hit(
            mapping.call.span,
            f"mmap() runs {hot.describe()} and no munmap() receives the mapping{kept}: mappings "
            "pile up until mmap fails at vm.max_map_count, and writeback keeps tracking all of them",
            related=hot.related(),
            params={"size": size} if size else {},
            operation=hot.operation_span,
        )


def _releases(program: Program, mapping: Mapping, unmap: Call, key: Key) -> bool:
    """Whether an munmap of a variable that holds the mapping releases each mapping the call
    makes: not when the variable is the local the mmap's loop assigns anew on every iteration
    and the munmap runs after that loop, outside it (it releases the last mapping only: `for
    (...) { p = mmap(...); ... }` then `munmap(p, len)`, or another loop's own `p`), whether the
    loop calls mmap itself or a function that returns its mapping (`p = map_segment(...)`)."""
    call = mapping.call
    if key != program.key(call.result, call.span.path, call.function) or key[0] != "local":
        return True
    # the munmap where it runs in the mapping's function: as written, or the call leading to it
    # (an instance seen at a caller of that function is still the one after the loop)
    here = next((step for step in (unmap, *unmap.via)
                 if (step.span.path, step.function) == (call.span.path, call.function)), None)
    return here is None or set(call.loops) <= set(here.loops)


def _reaches_untraced(program: Program, mapping: Mapping, held: set[Key], escaped: set[Key],
                      untraced: list[Call]) -> bool:
    """Whether an munmap of something untraced (a parameter, a container element) may be handed
    this mapping: the mapping escapes what the rule follows (returned, stored through a pointer
    parameter, kept in a field or global, put in a container), or the munmap runs in, or is called
    from, a function holding it."""
    if not held or held & escaped or _through_parameter(program, mapping) \
            or any(key[0] != "local" for key in held):
        return True
    homes = {(key[1], key[2]) for key in held}
    called = {c.callee for path, function in homes for c in program.files[path].calls
              if c.function == function}
    return any((u.span.path, u.function) in homes or _unqualified(u.function) in called
               for u in untraced)


def _returned(program: Program) -> set[Key]:
    """The variables functions hand their callers: `return p;`, either branch of
    `return p == MAP_FAILED ? NULL : p;`, an item of `return Region{fd, p, n};`."""
    returned = set()
    for facts in program.files.values():
        for r in facts.returns:
            for value in handed_back(r.value):
                key = program.holder(value, r.span.path, r.function)
                if key is not None:
                    returned.add(key)
    return returned


def _through_parameter(program: Program, mapping: Mapping) -> bool:
    """`*out = mmap(...)` with `out` a parameter: the mapping lands in the caller's variable."""
    result = strip(mapping.call.result)
    if result is None or result.kind != UNARY or result.op != "*" or not result.children:
        return False
    pointer = strip(result.children[0])
    fn = program.function_at(mapping.call.span.path, mapping.call.function)
    return pointer is not None and pointer.kind == IDENTIFIER and fn is not None and pointer.op in fn.params


def _unqualified(function: str | None) -> str | None:
    return function.rsplit("::", 1)[-1] if function else None


def _kept_in(mapping: Mapping) -> str:
    return f" ({mapping.call.result.text})" if mapping.call.result is not None else ""


def _flows(program: Program) -> dict[Key, set[Key]]:
    """Where each variable's value is copied: `q = p` and `segs[n] = p` make edges p -> q and
    p -> segs (and range-for `for (p : segs)` an edge segs -> p)."""
    edges: dict[Key, set[Key]] = defaultdict(set)
    for facts in program.files.values():
        for a in facts.assignments:
            if a.op not in ("=", ":") or a.value is None:
                continue
            # `p_ = p == MAP_FAILED ? NULL : p`: either value is copied
            sources = {source for value in alternatives(a.value) if value is not None and value.kind != CALL
                       and (source := program.holder(value, a.span.path, a.function)) is not None}
            target = program.holder(a.target, a.span.path, a.function) if sources else None
            for source in sources - {target} if target is not None else ():
                edges[source].add(target)
    return edges


