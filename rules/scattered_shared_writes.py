"""MML003 scattered-shared-writes: small stores at scattered offsets into a shared file mapping.

## What it does
Reports a store (`=`, `op=`, `++`/`--`, or the destination of
`memset`/`memcpy`/`memmove`) through a pointer into a writable `MAP_SHARED`
file-backed mapping, when the store runs per iteration of a loop and its offset
is scattered: hashed, random, taken modulo of something that is not a counter,
or loaded from data (`p[idx[i]]`), or a recurrence such as a linear congruential
step. A counter taken modulo or masked (`map[i % len]`, `slots[(head + i) &
(size - 1)]`) walks a ring buffer in order, as an append does: scattered only
when the counter is scaled by a page (4 KiB) or more before it wraps
(`map[(i * 7919) % len]`, a pseudo-random permutation; the factor is read as
written in the index, whatever the size of the elements it counts). A
range-for over `std::views::iota(a, b)` counts as a for loop does; the element
of any other range is data.
A store is into the mapping when every known source of its pointer's value is
that mapping: an mmap's result, a pointer computed from it
(`uint64_t *slots = (uint64_t *)base;`, `q = base + off`, `&t[h]`, an element of
an array the mapped struct holds, `&tbl->slots[id % n]` or a store to
`sf->slots[h % n]`, a field the program never gives a value), or what the
program stores in the field, parameter, return value or out-parameter it is
read from (a struct's field is that struct's: `t->slots` of a mapped table is
not `s->slots` of a heap one). A pointer that may also come from malloc,
calloc, strdup, `new`, a string or a local (a cursor or list node on the heap,
walked with `mc = mc->next`) is not, and one that nothing says anything of is
not reported.
One finding per loop and mapping, at its first scattered store; the other
stores of the same iteration into the mapping are its related locations. A
store reached through calls is reported at the call in the loop's body that
leads to it (a bucket helper called per key), with the calls down to the store
as related locations, and it is judged with what that call passes: a helper
handed the mapping by one caller and a heap buffer by another is reported only
at the first's loop, and a helper whose own loop scatters the stores is reported
at its store when some call of it hands it the mapping alone. A helper's own
loop that keeps the store in place (a retry, `do s->txnid = t->txnid; while
(s->txnid != t->txnid);`) is not the store's loop: the caller's loop that moves
it is, and the finding is at its call. A suppression at either end silences it.
Whether the offset scatters is asked across the loop's iterations: what the
loop and the functions it runs (followed as deep as "per iteration" is)
assign, the arguments it passes them (a seek function's parameter given
`h->slot_addr[hash(key) % n]`, a position kept in a struct field and copied at
by a write function), and what those functions return (an accessor of the
mapping's base does not move; a hash of the iteration's key does) decide it;
`lseek()`'s result is the offset it was given, and a C library call that
answers the same on every call of a thread (`getpid()`, `sysconf()`, the
thread's value for a key from `pthread_getspecific()`, a slot it claimed once)
does not move; any other library call's result is data. A field read through an object
that changes each iteration is data, unless the iteration gave it a value
before the call that reads it (an object made per iteration and stamped with the
loop's index). A partial-write loop on the way from the loop to the store (one
that hands a call the rest of one buffer, `while (size) { n = put(p, size);
size -= n; }`) is not the store's loop: the loop around it is.
Not reported: `MAP_ANONYMOUS` or `MAP_PRIVATE` mappings, stores whose offset
moves sequentially with the loop (appends, fills, `p[i * 8 + 3]`, `*cur++ = c` at a
cursor that only advances, `words[bit >>
6]`, a position set once at open and then advanced by each write (also through a
local given the sum, `end = tail + len; ...; tail = end`; a copy of it
stored in a field of the same name of another struct, `r->hdr->wpos = r->wpos`,
sets that struct's field, not the position, and a helper handed the struct that
records another field, `ix->synced = ix->tail`, leaves the position), and what the
position then steps past: `base[pos + len] = '\\n'; pos += len + 1;`, the parts
of a record stored at its start plus offsets the step covers, `dst[klen] = '='`
with `tail += klen + vlen + 2` (a size is one however spelled: `sizeof h` of a
`struct rec_hdr h` is `sizeof(struct rec_hdr)`; the position may be a copy the
function took, `off = lg->pos; base[off + len] = '\\n'; lg->pos += len + 1;`, and
a helper's store asked at a caller's loop is spelled with what the call passes);
a fill to a
fixed end, `memset(slot + n, 0, SLOT - n)`, lands where its slot does), a mapping that the loop
makes afresh each iteration (a loop over files or commands that maps one each
time), and a store that stamps a page the
iteration then writes whole: the store's function hands the page back through
an out-parameter (`*out = np`; the store may go through a header pointer copied
from it, `struct hdr *h = (struct hdr *)np;`) and the caller passes it, with the size the
page was addressed by (`map + psize * pgno`), to `memcpy`/`memmove`/`memset`
or to a function of the program that copies into it, nor that whole-page
write itself (a copy-on-write tree's new page: one whole page is written per
page dirtied, which is what writeback writes anyway).

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
from collections import defaultdict
from pathlib import Path

from mmaplint.analyzer.expressions import address_base, address_of
from mmaplint.analyzer.facts import BINARY, EVERY_CALL, IDENTIFIER, MEMBER, SUBSCRIPT, UNARY, Call, Expr, strip
from mmaplint.analyzer.findings import Related
from mmaplint.analyzer.variation import INVARIANT, SCATTERED
from mmaplint.analyzer.iteration import HotPath, nearest
from mmaplint.analyzer.program import Mapping, Program, Store
from mmaplint.analyzer.registry import Hit

ID = "MML003"
NAME = "scattered-shared-writes"
SEVERITY = "warning"
SUMMARY = "stores at scattered offsets into a writable MAP_SHARED file mapping in a loop"
HELP = ("keep hot scattered data in anonymous memory and write it back sequentially, "
        "or sort the updates by offset")
# every call's arguments: offsets are followed into the program's functions (a seek's parameter)
CALLEES = {"mmap", "memset", "memcpy", "memmove", "strcpy", "strncpy", "bcopy", EVERY_CALL}
ANALYSES = {"provenance"}
REPRODUCER = "corpus/scattered_shared_writes"
BLOCK_WRITES = {"memcpy", "memmove", "memset"}     # handed a page's size, they write it whole
STORE = "<store>"   # the callee of the Call a store is carried up its callers as (summaries.py)


def check(program: Program):
    loops: dict[tuple, list[tuple[Call, Store, HotPath, tuple[Mapping, ...]]]] = defaultdict(list)
    for effect, store, hot, mappings in _scattered_stores(program):
        made = frozenset(m.call.operation.span for m in mappings)
        loops[(hot.loop.span.path, hot.loop.id, made)].append((effect, store, hot, mappings))
    for found in loops.values():
        found.sort(key=lambda item: (item[0].span, item[1].span))
        effect, store, hot, mappings = found[0]
        # the one made nearest the store: a tree may hold several programs (two copies of one)
        mapping = nearest([(m.call.span.path, m) for m in mappings], store.span.path)[0][1]
        size = program.constant(mapping.length)
        others = tuple(Related(other.span, f"and here: another scattered store into the mapping on the same "
                                           f"iteration ({other.target.text})")
                       for _, other, _, _ in found[1:] if other.span != store.span)
        yield Hit(
            effect.span,
            f"{_what(store, hot)} lands at a scattered offset of the MAP_SHARED file mapping from line "
            f"{mapping.call.span.line}, {_where(hot)}: each store can dirty another page, which "
            "writeback must write in full and write-protect again",
            related=_chain(hot, store) + others + (Related(mapping.call.span, "the shared file mapping"),),
            params={"size": size} if size else {},
            operation=store.span if hot.chain else None,
        )


def _scattered_stores(program: Program):
    """Each store that runs per iteration of a loop at a scattered offset of a writable shared
    file mapping, as written in the loop's body or reached through calls from it (the
    instance at the loop's call: summaries.py), with the loop and the mappings it writes.  A
    store in a loop of its own function belongs to that loop (a helper copying a record in
    chunks), whichever loop's iterations scatter it (the callers' loops that seek it to the
    record's place): its finding is at the store."""
    stores: dict[int, Store] = {}
    effects = []
    for store in program.stores:
        # a store that may write a mapping; whether it does is asked where each loop's call passes its values
        mappings, _ = program.provenance.pointees(store.target, store.span.path, store.function, store.span,
                                                  place=True)
        if any(_writes_back(m) for m in mappings):
            effect = Call(STORE, store.span, store.function, store.loops, args=(store.target,))
            stores[id(effect)] = store
            effects.append(effect)
    own: dict[int, HotPath | None] = {}      # each store's own loop, asked when an instance maps
    reported: set[int] = set()
    for effect in (*effects, *program.summaries.spread(effects, carry=False)):
        operation = effect.operation
        store = stores[id(operation)]
        # where the loop's call writes: the store's pointer with the values that call passes
        # (asked first: most instances hand it no shared file mapping, and a loop costs more to find)
        site = effect.via[0] if effect.via else effect
        mappings = program.mappings_into(effect.args[0], site.span.path, site.function, site.span, place=True)
        if not mappings or not all(_writes_back(m) for m in mappings):
            continue
        if id(operation) not in own:
            own[id(operation)] = program.call_per_iteration(operation)
        mine = own[id(operation)]
        if mine is not None and id(operation) in reported:
            continue
        # a store in its own loop is also asked across the loops of the calls that reach it;
        # a partial-write loop on the way runs its call once, on the rest of one buffer
        hot = program.call_per_iteration(effect, skip=lambda call, loop_id: bool(
            call is operation and effect.via and mine is not None) or _rest_of_one(program, call, loop_id))
        # an instance of a store in its own loop: that loop runs at this call too
        in_own_loop = mine is not None and bool(effect.via)
        if hot is None and not in_own_loop:
            continue
        if hot is not None and _scatters_in(program, effect, store, hot, mappings):
            # the store's own loop takes it when the store moves there (a record copied in
            # chunks); a loop that keeps it in place (a retry of one store) leaves it to the caller's
            if mine is not None and _variation(program, operation, mine) != INVARIANT:
                reported.add(id(operation))
                yield operation, store, mine, mappings
            else:
                yield effect, store, hot, mappings
        elif in_own_loop and _scatters_in(program, operation, store, mine, mappings):
            # a call that hands the helper the mapping, where another may hand it heap memory
            reported.add(id(operation))
            yield operation, store, mine, mappings


def _scatters_in(program: Program, effect: Call, store: Store, hot: HotPath, mappings: tuple[Mapping, ...]) -> bool:
    """Whether the store scatters across the loop's iterations into the mapping, and is no
    stamp of a page written whole."""
    return _scatters(program, effect, hot, mappings) and not _page_written_whole(program, store, hot) \
        and not _fills_handed_page(program, store)


def _rest_of_one(program: Program, call: Call, loop_id: int) -> bool:
    """Whether a loop hands the call the rest of one buffer, by a count its condition tests
    (`while (size) { n = put(dbf, p, size); p += n; size -= n; }`): a partial-write loop, once
    per call of its function unless a write falls short."""
    loop = program.loop(call.span.path, loop_id)
    where = (call.span.path, call.function)
    tested = {program.key(node, *where) for node in loop.condition.walk()} - {None} if loop.condition else set()
    return any(program.key(arg, *where) in tested and program.rest_of_one(call, loop_id, arg)
               for arg in call.args or ())


def _writes_back(mapping: Mapping) -> bool:
    return mapping.shared and mapping.writable and mapping.file_backed


def _scatters(program: Program, effect: Call, hot: HotPath, mappings: tuple[Mapping, ...]) -> bool:
    """Whether the store's offset scatters across the loop's iterations, with the values the
    loop's call passes down to it (the effect's target, in the terms of the loop's function):
    what the loop and the functions it runs assign per iteration, and the arguments it
    passes them, decide it (the position a seek function set from a table entry), unless
    the loop also maps the file afresh each iteration (a loop per command or per file, whose
    every iteration opens and maps: one store per mapping)."""
    region = program.region(hot.loop)
    if any(region.runs(m.call.span.path, m.call.function, m.call.loops) for m in mappings):
        return False
    return _variation(program, effect, hot) == SCATTERED


def _variation(program: Program, effect: Call, hot: HotPath) -> int:
    """How the store's address moves across the loop's iterations, in the terms of the loop's
    call (variation.py: INVARIANT, AFFINE or SCATTERED)."""
    site = effect.via[0] if effect.via else effect
    return program.variation_across(program.region(hot.loop), effect.args[0], site.span.path, site.function,
                                    address=True, anchored=program.provenance.at_start)


def _what(store: Store, hot: HotPath) -> str:
    if not hot.chain:
        return f"store to {store.target.text}"
    return (f"{hot.chain[0].callee}() stores to {store.target.text} in {store.function}() "
            f"({Path(store.span.path).name}:{store.span.line}), which")


def _where(hot: HotPath) -> str:
    where = f"the {hot.loop.kind} loop at line {hot.loop.span.line}"
    if hot.chain:
        where += f" of {hot.loop.function or 'file scope'}() (through " + \
            " -> ".join(f"{c.callee}()" for c in hot.chain) + ")"
    return f"on every iteration of {where}"


def _chain(hot: HotPath, store: Store) -> tuple[Related, ...]:
    """The loop, each call on the way from it after the loop's own, then the store."""
    items = [Related(hot.loop.span, f"this {hot.loop.kind} loop repeats it")]
    items += [Related(call.span, f"{call.callee}() calls on toward the store here") for call in hot.chain[1:]]
    if hot.chain:
        items.append(Related(store.span, f"the store to {store.target.text} is made here"))
    return tuple(items)


def _page_written_whole(program: Program, store: Store, hot: HotPath) -> bool:
    """Whether the store stamps a page that the iteration then writes whole: its function
    hands the page back through an out-parameter (`*out = np`), and the caller passes it, with
    the size the page was addressed by (`map + psize * pgno`), to memcpy, memmove or memset,
    or to a function of the program that copies into that parameter (a copy-on-write tree's
    new page: one whole page written per page dirtied)."""
    if not hot.chain:
        return False
    path, function = store.span.path, store.function
    pages = _copies(program, program.key(address_base(store.target), path, function))
    sizes = set().union(*(_page_sizes(program, page) for page in pages))
    handed = hot.chain[-1]      # the call of the store's function
    defined = program.function_at(path, function)
    if not sizes or defined is None:
        return False
    for a in program.files[path].assignments:
        target = strip(a.target)
        if (a.function != function or a.op != "=" or target.kind != UNARY or target.op != "*"
                or program.key(a.value, path, function) not in pages):
            continue
        out = strip(target.children[0])
        if out.kind != IDENTIFIER or out.op not in defined.params:
            continue
        given = strip(handed.arg(defined.params.index(out.op)))
        if given is None or given.kind != UNARY or given.op != "&":
            continue
        back = program.key(given.children[0], handed.span.path, handed.function)
        if any(_fills(program, call, back, sizes) for call in program.uses_after(back, handed)):
            return True
    return False


def _fills_handed_page(program: Program, store: Store) -> bool:
    """Whether a block write fills whole the page a function of the program handed back
    through an out-parameter, with a size that function addressed the page by
    (`page_alloc(t, pgno, &np); memcpy(np, src, t->psize)` of an `np = map + psize * pgno`):
    the copy-on-write tree's one page written per page dirtied, of _page_written_whole."""
    path, function = store.span.path, store.function
    page = program.key(address_base(store.target), path, function)
    written = next((c for c in program.calls_in(path, function)
                    if c.span == store.span and c.callee == store.via), None) if store.via in BLOCK_WRITES else None
    if written is None or page is None:
        return False
    given = {_size_of(arg) for arg in written.args or ()} - {None}
    for call in program.calls_in(path, function):
        for index, arg in enumerate(call.args or () if call.span < store.span else ()):
            if program.key(address_of(arg), path, function) != page:
                continue
            if any(index < len(fn.params) and given & _sizes_handed_back(program, there, fn, fn.params[index])
                   for there, fn in program.resolve(call)):
                return True
    return False


def _sizes_handed_back(program: Program, path: str, fn, out: str) -> set:
    """The sizes the pages a function hands back through its out-parameter `out` are
    addressed by (`*out = np` with `np = map + psize * pgno`: psize)."""
    sizes = set()
    for a in program.assignments_in(path, fn.qualified):
        target = strip(a.target)
        pointer = strip(target.children[0]) if target.kind == UNARY and target.op == "*" and target.children else None
        if a.op == "=" and pointer is not None and pointer.kind == IDENTIFIER and pointer.op == out:
            sizes |= _page_sizes(program, program.key(a.value, path, fn.qualified))
    return sizes


def _copies(program: Program, pointer) -> list:
    """A local pointer and the locals it is a copy of, as its only value says (`struct hdr *h
    = (struct hdr *)np;`: h is np, the page a store through h stamps)."""
    found = []
    while pointer is not None and pointer[0] == "local" and pointer not in found:
        found.append(pointer)
        values = program.values_of(pointer)
        pointer = program.key(values[0], pointer[1], pointer[2]) if len(values) == 1 else None
    return found


def _page_sizes(program: Program, page) -> set:
    """The sizes a page pointer's values scale an index by (`map + psize * pgno`: psize)."""
    return {_size_of(factor) for value in program.values_of(page) for node in value.walk()
            if node.kind == BINARY and node.op == "*" for factor in node.children} - {None}


def _fills(program: Program, call, page, sizes: set) -> bool:
    """Whether the call, handed the page and one of its sizes, writes a block into the page."""
    where = [i for i, arg in enumerate(call.args) if program.key(arg, call.span.path, call.function) == page]
    if not any(_size_of(arg) in sizes for arg in call.args):
        return False
    if call.callee in BLOCK_WRITES:
        return 0 in where
    return any(store.via in BLOCK_WRITES and _root(address_base(store.target)) in
               {fn.params[i] for i in where if i < len(fn.params)}
               for path, fn in program.resolve(call) for store in program.stores_in(path, fn.qualified))


def _size_of(expr: Expr | None) -> str | None:
    """The name a size is kept under (`psize`, the field `me_psize`), or its literal text."""
    expr = strip(expr)
    if expr is None:
        return None
    return expr.op if expr.kind in (IDENTIFIER, MEMBER) else expr.text if expr.value is not None else None


def _root(expr: Expr | None) -> str | None:
    """The variable a pointer expression starts from: dst in `dst->data`, `(char *)dst + n`."""
    expr = strip(expr)
    while expr is not None and expr.kind != IDENTIFIER:
        if expr.kind not in (MEMBER, SUBSCRIPT, UNARY, BINARY) or not expr.children:
            return None
        expr = strip(expr.children[0])
    return expr.op if expr is not None else None
