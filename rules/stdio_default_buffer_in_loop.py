"""MML004 stdio-default-buffer-in-loop: a stdio stream opened per iteration with its default buffer.

## What it does
Reports `fopen()`, `fdopen()` or `freopen()` executed once per iteration of a
loop when the stream keeps its default buffer (no `setvbuf()`/`setbuf()`/
`setbuffer()` is handed the stream before its first I/O) and the open is a
repeated cost rather than the work itself:
- the same file every iteration: a string literal path, or one the loop does
  not change (a `std::string` or `std::filesystem::path` too: `log.c_str()`
  names the file `log` holds; also through a function the loop calls, which is
  handed the loop's path or names a literal one); the message says the file is reopened
  every iteration; a function that hands the stream back (an `xfopen` that dies
  on error) is the open itself for the loop that calls it;
- or, in the loop itself, a stream that is opened and closed within one
  iteration;
- or, in a function the loop calls, a stream of a file whose name the function
  builds itself from a key it is handed (`snprintf(path, n, "kv-%s", key)`, or
  a function of the program handed the key and the buffer; in a buffer of its
  own or one the program shares, not one it is handed), read once and
  closed there: one small file per item, as a path built in the loop is. A
  name made from what the function learns of a file it is handed (the sysfs
  attribute of a device it `stat`s) is one open per input file.
A helper that opens the file it is handed, called once per input file, and
streams kept open past their iteration (one per input of a merge) are not
reported: opening each file once is the job; a path buffer with a pointer into
it (`tail = path + n`, `&path[n]`) is a template filled in, not the same file,
and so is one the loop formats at a place in it from each item, with a
function of the program that hands the buffer it is given to `vsnprintf`
(`fmt_into(path + dlen, n, "%s", ent->d_name)`).
Nor is a stream of a file that differs per iteration and is handed one write
(`fwrite`, `fputs`, `fprintf`, ...) between its open and its `fclose`: one
output file per item, where the default buffer adds one `fstat` and a malloc
(and a second `write` when the data is not a multiple of the block size) to the
open, write and close the output needs anyway: 1.01-1.11x CPU against a reused
`setvbuf` buffer for 10,000 files of 100 B to 8 KiB rewritten on tmpfs, and
within noise on ext4, where creating the file dominates.  Read once, the same
streams measured 1.19-1.43x: they stay reported.  Nor is a stream of a file that
differs per iteration and is read through in a loop of its own (`while (fgets(line,
n, f))`, in the loop's body, in a function of the program handed the stream, also
through a reader of its own that it hands the stream on to (`while ((line =
next_line(f)))`), or, for a global stream, in any function the call runs, however deep: a
global `log_in` a helper opens and another reads a record at a time): one input parsed
per item, whose many reads the default buffer serves.
10,000 files read through with fgets or 256-byte freads on tmpfs took 0.95-1.04x
against a reused buffer of the same 4 KiB for files of 4 and 23 KiB, 1.06-1.16x
for 1 KiB files (five runs each, alternated).

## Why is this bad?
Each open pays `openat`, `fstat` (to size the buffer), the buffer's allocation,
and on `fclose` the `close` and the free: system calls and allocator traffic
per iteration for work that one long-lived stream would do once. In 2010 it was
much worse: glibc allocated every default stdio buffer with its own `mmap()`,
so 10,000 fopen/fread/fclose cycles cost tens of thousands of minor page faults
and an munmap (with a TLB shootdown) per close; a `setvbuf()` with a user buffer
removed them. Current glibc (2.36 here) takes the buffer from malloc and that
fault storm is gone, but the reopening itself remains: on this project's
machines fopen+fread(256 B)+fclose of a 23 KiB file took 0.213 s per 20,000
iterations against 0.122 s with one stream rewound per iteration (1.75x); about
10 us per iteration of which the buffer is a small part. `mmaplint confirm
MML004` measures it on your libc.

## Example
```c
for (int i = 0; i < n; i++) {
    FILE *f = fopen("/proc/self/stat", "r");    /* MML004: same file every iteration */
    fread(buf, 1, sizeof buf, f);
    fclose(f);
}
```

## Use instead
Open once before the loop and `rewind()`/`fseek()` per iteration; or, when the
files differ, give each stream a reused buffer with `setvbuf(f, buf, _IOFBF,
sizeof buf)` right after the open, or use `open()`/`pread()` directly for small
fixed-size reads.
"""
from mmaplint.analyzer.constants import STREAM_READS
from mmaplint.analyzer.expressions import alternatives
from mmaplint.analyzer.findings import Related
from mmaplint.analyzer.variation import FILLS, INVARIANT
from mmaplint.analyzer.program import STREAM_OPENS, Program
from mmaplint.analyzer.iteration import MAX_CALL_DEPTH
from mmaplint.analyzer.facts import EVERY_CALL, BINARY, STRING, SUBSCRIPT, UNARY, Scoped, strip
from mmaplint.analyzer.registry import Hit

ID = "MML004"
NAME = "stdio-default-buffer-in-loop"
SEVERITY = "warning"
SUMMARY = "stdio stream opened per loop iteration with its default buffer"
HELP = "open the stream once before the loop (rewind per iteration), or setvbuf a reused buffer"
BUFFERING = {"setvbuf", "setbuf", "setbuffer", "setlinebuf"}
STDIO = {"fread", "fwrite", "fgets", "fgetc", "getc", "getline", "getdelim", "fscanf",
         "fprintf", "vfprintf", "fputs", "fputc", "putc", "fseek", "fseeko", "ftell", "rewind",
         "fflush", "fclose", "fileno", "feof", "ferror", "ungetc", "fread_unlocked"}
READS = {*STREAM_READS, "fread_unlocked"}
WRITES = {"fwrite", "fputs", "fprintf", "vfprintf", "fputc", "putc"}
# every call's arguments: a helper may fill its path buffer through a function of the program
CALLEES = set(STREAM_OPENS) | BUFFERING | STDIO | FILLS | {EVERY_CALL}
REPRODUCER = "corpus/stdio_reopen"


def check(program: Program):
    for call in program.calls(*STREAM_OPENS):
        hot = program.call_per_iteration(call)
        if hot is None:
            continue
        # A function that hands the stream back is the open itself for the loop that calls it
        # (a fopen that dies on error); one that keeps it is judged where it uses it.
        kept = bool(call.via) and not program.held_by_caller(call)
        at = call.operation if kept else call
        stream = program.stream_opened_by(at)
        first = program.first_use(stream, at) if stream is not None else None
        if first is not None and first.callee in BUFFERING:
            continue
        same = _same_path(program, call)
        if not same and not _reopened_per_item(program, at, stream, kept):
            # A helper opening the file it is handed, streams kept open past the iteration
            # (one per input), or one output file per item written at once: opening each
            # file is the work itself, not a repeated cost.
            continue
        message = f"{call.callee}() runs {hot.describe()} and leaves the stream at its default buffer"
        if same:
            message += f"; the same file ({call.arg(0).text}) is reopened every iteration"
        related = hot.related()
        if first is not None:
            related += (Related(first.span, f"first I/O on the stream: {first.callee}()"),)
        yield Hit(call.span, message, related=related, operation=hot.operation_span)


def _reopened_per_item(program: Program, call, stream, kept: bool) -> bool:
    """Whether a stream of a file that differs per iteration is still a repeated cost: opened
    and closed within one iteration and not written once; in a function the loop calls that
    keeps the stream to itself (`kept`), only when it names the file from a key it is handed
    and reads it once."""
    if not _closed_in_iteration(program, call, stream) or _written_once(program, call, stream) \
            or _read_through(program, call, stream):
        return False
    return not kept or (_names_its_file(program, call) and _read_once(program, call, stream))


def _closed_in_iteration(program: Program, call, stream) -> bool:
    """Whether the stream is closed in the same loop iteration it was opened in."""
    return stream is not None and any(
        c.function == call.function and c.span.path == call.span.path and c.loops[-1:] == call.loops[-1:]
        and program.key(c.arg(0), c.span.path, c.function) == stream
        for c in program.calls("fclose"))


def _uses(program: Program, call, stream) -> list[str]:
    """The calls handed the stream in its function, from its open to its fclose, in order."""
    uses = []
    for c in program.uses_after(stream, call):
        if c.loops != call.loops:
            continue
        if c.callee == "fclose":
            break
        uses.append(c.callee)
    return uses


def _written_once(program: Program, call, stream) -> bool:
    """Whether the stream, from its open to its fclose, is handed to one write call (and
    nothing else of stdio but fflush/ferror), run once per open: its only use of the buffer."""
    uses = [u for u in _uses(program, call, stream) if u in WRITES | STDIO]
    writes = [u for u in uses if u in WRITES]
    return len(writes) == 1 and all(u in WRITES or u in ("fflush", "ferror") for u in uses)


def _read_through(program: Program, call, stream) -> bool:
    """Whether the stream is read in a loop of its own within the iteration (`while (fgets(line,
    n, f))`, or in a function of the program handed the stream: `count_headers(msg)`): a
    whole file parsed, its many reads served by the buffer the open pays for."""
    depth = len(call.loops)
    return any(c.loops[:depth] == call.loops and (c.callee in READS and len(c.loops) > depth
                                                  or _reads_in_a_loop(program, c, stream))
               for c in program.uses_after(stream, call)) or _reads_below(program, call, stream)


def _reads_below(program: Program, call, stream) -> bool:
    """Whether a function of the program the call runs, however deep, reads a global stream
    the open left it in, in a loop of its own: ausearch's `process_file(name)` opens the
    global `log_fd`, and `get_next_event()`, two calls down, reads it a line at a time."""
    if stream is None or stream[0] != "global":
        return False
    def reads_it(read) -> bool:
        return bool(read.loops) and program.key(read.arg(STREAM_READS[read.callee]), read.span.path,
                                                read.function) == stream
    # as written, or as a model makes them (fgets_unlocked is an fgets)
    readers = {(read.span.path, read.function) for read in program.calls(*STREAM_READS, where=reads_it)
               if len(read.via) <= 1}
    if not readers:
        return False
    seen, todo = set(), [call.via[0] if call.via else call]     # an instance: from the call in the loop
    while todo:
        for where, fn in program.resolve(todo.pop()):
            if (where, fn.qualified) in readers:
                return True
            if (where, fn.qualified) not in seen:
                seen.add((where, fn.qualified))
                todo.extend(program.calls_in(where, fn.qualified))
    return False


def _reads_in_a_loop(program: Program, call, stream) -> bool:
    """Whether a function of the program the call hands the stream to reads it in a loop: a
    read there, or a call there that hands it on to a function that reads it (mdadm's
    `while ((line = conf_line(f)))`, conf_line taking each word from getc)."""
    return any(inner.loops and _reads(program, inner, param, MAX_CALL_DEPTH)
               for inner, param in _calls_handed(program, call, stream))


def _reads(program: Program, call, stream, depth: int) -> bool:
    """Whether a call reads the stream this variable holds: a read of it, or, `depth` calls
    down at most, a function of the program handed it that reads it."""
    where = (call.span.path, call.function)
    if call.callee in READS and any(program.key(arg, *where) == stream for arg in call.args or ()):
        return True
    return depth > 0 and any(_reads(program, inner, param, depth - 1)
                             for inner, param in _calls_handed(program, call, stream))


def _calls_handed(program: Program, call, stream):
    """The calls made in the functions of the program that a call hands the stream to, each
    with the parameter that takes the stream there."""
    where = (call.span.path, call.function)
    for index, arg in enumerate(call.args or ()):
        if program.key(arg, *where) != stream:
            continue
        for path, fn in program.resolve(call):
            if index < len(fn.params):
                param = ("local", path, fn.qualified, fn.params[index])
                for inner in program.calls_in(path, fn.qualified):
                    yield inner, param


def _read_once(program: Program, call, stream) -> bool:
    """Whether the stream, from its open to its fclose, is handed one read and nothing else
    but feof/ferror: one small read that a plain open() and read() would do."""
    uses = [u for u in _uses(program, call, stream) if u not in ("feof", "ferror")]
    return len(uses) == 1 and uses[0] in READS


def _names_its_file(program: Program, call) -> bool:
    """Whether a helper builds the path it opens from the key it is handed, in a buffer it
    fills before the open, its own or a shared one (`snprintf(path, n, "kv-%s", key)`,
    dnsmasq's `sprintf(daemon->namebuff, ".../%s/mtu", name ? name : iface)`, or a function of
    the program handed the buffer and the parameter), not one it is handed: the file is one per
    item of the caller's loop, as a path built in the loop is."""
    fn = program.function_at(call.span.path, call.function)
    buffer = program.key(call.arg(0), call.span.path, call.function)
    if fn is None or buffer is None or buffer[0] == "local" and buffer[3] in fn.params:
        return False

    calls = program.calls_in(call.span.path, call.function)

    def parameter(expr) -> bool:
        keys = [program.key(value, call.span.path, call.function) for value in alternatives(expr)]
        return any(key is not None and key[0] == "local" and key[3] in fn.params for key in keys)

    def fills(c) -> bool:
        keys = [program.key(a, c.span.path, c.function) for a in c.args or ()]
        # handed a parameter, or a method's value on one (`key.c_str()`)
        handed = any(parameter(a) for a in c.args or ()) or any(
            m.receiver is not None and c.span.contains(m.span) and m.span != c.span and parameter(m.receiver)
            for m in calls)
        return handed and (keys[0] == buffer if c.callee in FILLS
                           else buffer in keys and bool(program.resolve(c)))
    return any(fills(c) for c in calls if c.span < call.span)


def _same_path(program: Program, call) -> bool:
    """Whether fopen's path is the same on every iteration of its loop: a string literal, or,
    in the loop's function, a name the loop does not change (a path a function of the program
    is handed is the caller's value, seen at its call); a path a called function builds in a
    variable of its own names a new file each time, unless it is a global set once."""
    if call.callee.startswith("fdopen"):
        return False
    path = strip(call.arg(0))
    if path is None:
        return False
    if path.kind == STRING:
        return True
    if any(isinstance(node, Scoped) for node in path.walk()):
        key = program.key(path, call.span.path, call.function)
        return key is not None and key[0] == "global" and not program.assignments_to(key)[1:]
    where = (call.span.path, call.function, call.loops)
    if program.variation(path, *where) != INVARIANT:
        return False        # a buffer the loop rebuilds from each item's name, too
    variable = program.key(path, call.span.path, call.function)
    # one with a pointer into it (`tail = path + n`, `&path[n]`) is a template filled in
    return not any(a.function == call.function and _points_into(program, a.value, variable, call)
                   for a in program.file_of(call.span).assignments)


def _points_into(program: Program, value, variable, call) -> bool:
    """Whether an assigned value is a pointer into the variable's buffer: `path + n` (the
    buffer leftmost in a sum) or `&path[n]`."""
    value = strip(value)
    if value is not None and value.kind == UNARY and value.op == "&":
        value = strip(value.children[0])
        if value is None or value.kind != SUBSCRIPT:
            return False
        value = value.children[0]
    elif value is None or value.kind != BINARY or value.op not in ("+", "-"):
        return False
    while (value := strip(value)) is not None and value.kind == BINARY and value.op in ("+", "-"):
        value = value.children[0]
    return value is not None and program.key(value, call.span.path, call.function) == variable
