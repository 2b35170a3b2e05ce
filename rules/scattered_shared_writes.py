"""MML003 scattered-shared-writes: small stores at scattered offsets into a shared file mapping.

## What it does
Reports a store (`=`, `op=`, `++`/`--`, or the destination of
`memset`/`memcpy`/`memmove`) through a pointer into a writable `MAP_SHARED`
file-backed mapping, when the store runs per iteration of a loop and its offset
is scattered: hashed, random, taken modulo, or loaded from data (`p[idx[i]]`),
or a recurrence such as a linear congruential step. Pointers derived from the
mapping (`uint64_t *slots = (uint64_t *)base;`, `q = base + off`) count.
The loop may be in a caller: a write function that copies at a position kept in
a struct field (`memcpy(h->base + h->pos, buf, len)`), reached per record from a
loop that, through calls, first sets that position from a table or hash (a seek
function's parameter, given `h->slot_addr[hash(key) % n]`). Across such a loop,
what the loop and the functions it runs (followed as deep as "per iteration" is)
assign counts, and parameters take the arguments passed there; `lseek()`'s
result is the offset it was given.
Not reported: `MAP_ANONYMOUS` or `MAP_PRIVATE` mappings, stores whose offset
moves sequentially with the loop (appends, fills, `p[i * 8 + 3]`, a position
set once at open and then advanced by each write), and, across a caller's loop,
a mapping that the loop makes afresh each iteration (a loop over files or
commands that maps one each time), and a store that stamps a page the
iteration then writes whole: the store's function hands the page back through
an out-parameter (`*out = np`) and the caller passes it, with the size the
page was addressed by (`map + psize * pgno`), to `memcpy`/`memmove`/`memset`
or to a function of the program that copies into it (a copy-on-write tree's
new page: one whole page is written per page dirtied, which is what
writeback writes anyway).

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
from mmaplint.analyzer.expressions import address_base
from mmaplint.analyzer.facts import BINARY, EVERY_CALL, IDENTIFIER, MEMBER, SUBSCRIPT, UNARY, Expr, strip
from mmaplint.analyzer.findings import Related
from mmaplint.analyzer.variation import SCATTERED
from mmaplint.analyzer.iteration import HotPath
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
REPRODUCER = "corpus/scattered_shared_writes"
BLOCK_WRITES = {"memcpy", "memmove", "memset"}     # handed a page's size, they write it whole


def check(program: Program):
    for store in program.stores:
        mapping = program.mapping_written_by(store)
        if mapping is None or not (mapping.shared and mapping.writable and mapping.file_backed):
            continue
        hot = scattered_in(program, store, mapping)
        if hot is None or _page_written_whole(program, store, hot):
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


def scattered_in(program: Program, store: Store, mapping: Mapping) -> HotPath | None:
    """The loop across whose iterations the store's offset scatters: its own loop nest, or a
    loop that runs its function through calls (the position a seek function set from a table
    entry), unless that loop also maps the file afresh each iteration (a loop per command or
    per file, whose every iteration opens and maps)."""
    anchors = frozenset({mapping.pointer} - {None})   # offsets count from the mapping's base
    where = (store.span.path, store.function, store.loops)
    hot = program.per_iteration(*where)
    if hot is not None and program.variation(store.target, *where, address=True, anchors=anchors) == SCATTERED:
        return hot
    made = mapping.call
    for outer in program.loops_reaching(store.span.path, store.function):
        region = program.region(outer.loop)
        if region.runs(made.span.path, made.function, made.loops):
            continue
        if program.variation_across(region, store.target, store.span.path, store.function,
                                    address=True, anchors=anchors) == SCATTERED:
            return outer
    return None


def _page_written_whole(program: Program, store: Store, hot: HotPath) -> bool:
    """Whether the store stamps a page that the iteration then writes whole: its function
    hands the page back through an out-parameter (`*out = np`), and the caller passes it, with
    the size the page was addressed by (`map + psize * pgno`), to memcpy, memmove or memset,
    or to a function of the program that copies into that parameter (a copy-on-write tree's
    new page: one whole page written per page dirtied)."""
    if not hot.chain:
        return False
    path, function = store.span.path, store.function
    page = program.key(address_base(store.target), path, function)
    sizes = {_size_of(factor) for value in program.values_of(page) for node in value.walk()
             if node.kind == BINARY and node.op == "*" for factor in node.children} - {None}
    handed = hot.chain[-1]      # the call of the store's function
    defined = program.function_at(path, function)
    if not sizes or page is None or defined is None:
        return False
    for a in program.files[path].assignments:
        target = strip(a.target)
        if (a.function != function or a.op != "=" or target.kind != UNARY or target.op != "*"
                or program.key(a.value, path, function) != page):
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


def _fills(program: Program, call, page, sizes: set) -> bool:
    """Whether the call, handed the page and one of its sizes, writes a block into the page."""
    where = [i for i, arg in enumerate(call.args) if program.key(arg, call.span.path, call.function) == page]
    if not any(_size_of(arg) in sizes for arg in call.args):
        return False
    if call.callee in BLOCK_WRITES:
        return 0 in where
    return any(store.via in BLOCK_WRITES and _root(address_base(store.target)) in
               {fn.params[i] for i in where if i < len(fn.params)}
               for path, fn in program.resolve(call)
               for store in program.stores if store.span.path == path and store.function == fn.qualified)


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
