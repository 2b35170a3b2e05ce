"""MML005 stdio-flush-per-iteration: fflush every iteration, or writes to an unbuffered stream in a loop.

## What it does
Reports `fflush()` executed once per iteration of a loop (in the loop, or in a
function the loop calls), its C++ forms (`out << std::endl`, `out <<
std::flush`, `out.flush()` on an output stream), and stdio writes (`fprintf`,
`fputs`, `fputc`, `putc`, `fwrite`, `printf`, `puts`, `putchar`, ...) executed
per iteration on a stream that the code made unbuffered with `setvbuf(stream,
NULL, _IONBF, 0)` or `setbuf(stream, NULL)` (each such write is a finding of its
own). Points at the flush or the write in the loop body, or at the call in the loop body that leads to it. Not reported: a flush right before
the stream's `fclose` (the close flushes anyway), a C++ stream's `close()`, or the end of
the iteration that made it (`std::ofstream out(path)` in the loop's body, `out << rec <<
std::endl;` last: its destructor closes it); `stderr`, unbuffered by the
C standard (its writes and its flushes alike), unless the code gives it a buffer; writes to a stream unbuffered
only when it is a terminal (`if (isatty(fileno(fp))) setvbuf(fp, NULL, _IONBF,
0);`: a person watches it, and piped or redirected it keeps its buffer); flushes that run only while a
debug, verbosity or trace setting is on, or a log level lets them through
(`if (verbose)`, `#ifdef SQLITE_DEBUG`, `if (level <= log_level)`, a category
the caller on the way names, `if (flags & cat)` of `trace(DEBUG_SYNC, ...)`:
diagnostics flushed so they survive a crash); a flush in a function named for
reporting errors (`errorMessage`, `log_error`, `fatal`, a name ending in one:
`syserr`; once per error, not per record); a prompt, flushed before the same iteration reads the standard
input or the terminal (a stream or descriptor opened on `/dev/tty`, held by a variable or handed
back by a function of the program that opens it: `fgets(ans, n, opentty())`); a flush followed in the same iteration of its function by a call that
starts a process (`fork`, `vfork`, `posix_spawn`, `system`, `popen`, an `exec`
function): flushed first, the child does not write the parent's buffered output
a second time, nor exec drop it, and the new process costs far more than the
write() the flush makes (a test runner's `fflush(NULL)` before forking each
test); a loop that reads the standard input after its function switched the
terminal to raw mode (`tcsetattr`, `cfmakeraw`, before the loop or in a
function it calls there): each iteration waits for a key a person types; a
helper that writes its batch in a loop, then flushes once (not a loop the helper
runs only every N calls, a banner it draws every N lines), and likewise an
iteration that works through a batch in an inner loop of its own, before or
after the flush, calling the program's functions (a progress line per file
whose records an inner loop then loads; an inner loop of a handful of passes
is no batch, nor one that only writes the stream: a row flushed after the loop
over its columns is a flush per record), or that calls, whenever it flushes, a
function of the program whose own loop reads a stream and hands each record to
the program's functions (a line per trace file, then a function that reads and
checks the file's records; not a loop that only fills one message from partial
reads, nor a call made every N records); a flush in an iteration that also syncs a file (`fsync`,
`fdatasync`, ... in the loop, or outside any loop in a function of the
program the loop calls; not a sync made every N iterations): the sync is the
cost, and MML009's to report (on this project's machines, 1,000 iterations
that each write 4 KiB to a file and fsync it took 0.270 s with a flushed
progress line per iteration against 0.280 s without, medians of 11
interleaved runs: 0.96x, noise); a flush in a loop that steps its counter only by a constant of
1 MiB or more (`for (i = 0; i < length; i += UNIT)`, UNIT 10 MiB, a macro or a
local given that one value: a progress dot per 10 MiB chunk memset): one write() per chunk is noise beside the chunk's
work; and whatever mmaplint does not count as per
iteration (README: loops that wait, run a handful of times, or reach the
call once per batch). A filter that reads the standard input in its loop's
condition and flushes each line is reported: fed by a pipe, it is a record
loop, and so is a command loop that flushes each reply, unless each line runs
as a command line: an iteration that calls a function `main` also hands its
own argc and argv (a batch mode like `rrdtool -`, which splits each line into
arguments and runs them) runs a whole command, and its flush is the reply the
peer waits for. A test harness that flushes a progress line per
test case is reported like a record loop unless each case runs in an inner
loop (its statements, its repetitions): mmaplint cannot tell a test case from
a record; ignore such files with `per-file-ignores`.

## Why is this bad?
A stdio buffer exists to turn many small records into few large `write()`
system calls. Flushing after every record, or removing the buffer, turns each
record back into its own system call, and on a file each of those walks the
filesystem's write path (locking, block mapping, dirtying a page) for a few
bytes. It is the small-scale twin of the kernel bug behind this rule's seed, a
flush woken on every buffer allocation that cost a mail server 60 %. On this
project's machines 200,000 `fprintf` each followed by `fflush` took 0.266 s
against 0.017 s with default buffering and one flush at the end (15x); an
`_IONBF` stream took 0.217 s.

## Example
```c
for (size_t i = 0; i < n; i++) {
    fprintf(log, "%zu %f\\n", i, v[i]);
    fflush(log);                                 /* MML005 */
}
```

## Use instead
Let the stream buffer (the default, or `setvbuf(f, NULL, _IOFBF, 1 << 16)`),
and flush once after the loop, or once per batch or per time interval when a
reader must see progress. If each record must reach stable storage, buffer a
batch and `fflush()` + `fdatasync(fileno(f))` per batch.
"""
from mmaplint.analyzer.constants import STDIO_MODES, STREAM_READS
from mmaplint.analyzer.facts import CALL, EVERY_CALL, INT, IDENTIFIER, STRING, Expr, strip
from mmaplint.analyzer.frequency import STREAM_CLASSES, name_words, terminal_only
from mmaplint.analyzer.findings import Related
from mmaplint.analyzer.program import SYNC_CALLS, Program
from mmaplint.analyzer.registry import Hit

ID = "MML005"
NAME = "stdio-flush-per-iteration"
SEVERITY = "warning"
SUMMARY = "fflush every loop iteration, or per-iteration writes to an unbuffered stream"
HELP = "let the stream buffer and flush once after the loop (or once per batch)"
# stdio write calls -> index of their stream argument
WRITES = {"fprintf": 0, "vfprintf": 0, "fwprintf": 0, "fputs": 1, "fputc": 1, "putc": 1,
          "fwrite": 3, "fputws": 1, "fputwc": 1, "putwc": 1}
# stdio write calls that write the standard output
STDOUT_WRITES = {"printf", "vprintf", "puts", "putchar", "putchar_unlocked"}
STDOUT = Expr(IDENTIFIER, "stdout", "stdout")
# reads -> index of their stream or descriptor argument (None: they read stdin)
READS = {**STREAM_READS, "read": 0, "getchar": None, "scanf": None, "gets": None}
CIN = {"std::cin", "cin"}     # C++'s standard input: std::getline(std::cin, s), std::cin.get(...)
CIN_READS = {"get", "getline", "read", "ignore"}    # its methods that read
# every call's arguments: a function of the program handed the stream between the flush and
# the fclose writes it again (first_use must see it whichever rules run)
CALLEES = {"fflush", "fclose", "setvbuf", "setbuf", EVERY_CALL} | set(WRITES) | set(READS)
# Calls that start a process: a fork duplicates the stdio buffers, an exec discards them.
PROCESS_STARTS = ("fork", "vfork", "posix_spawn", "posix_spawnp", "system", "popen",
                  "execl", "execlp", "execle", "execv", "execvp", "execvpe", "execve", "fexecve")
# Opens of a stream or descriptor, and the terminal's path: what is opened there a person types.
OPENS = frozenset({"open", "open64", "fopen", "fopen64", "freopen", "fdopen", "fdopen64"})
TERMINAL = "/dev/tty"
RAW_MODE = ("tcsetattr", "cfmakeraw")     # a terminal's mode set: the program reads a terminal
ERROR_WORDS = {"error", "err", "fatal", "warn", "warning"}
STANDARD_STREAMS = {"stdout", "stderr", "stdin"}
UNBUFFERED = {"stderr", "std::cerr", "cerr"}    # unbuffered by the C and C++ standards
REPRODUCER = "corpus/fflush_per_record"


def check(program: Program):
    syncing = _syncing_loops(program)
    for call in _flushes(program):
        op = call.operation
        hot = program.call_per_iteration(call)
        if hot is None or _closes_next(program, op):
            continue
        stream = _flushed(call)
        if program.batch_on_the_way(call, None):
            continue    # a function on the way works through a batch in a loop, then flushes once
        if stream in UNBUFFERED and not _buffered(program, call):
            continue    # unbuffered already: the flush is a no-op
        if program.traced(call, hot):
            continue    # a trace switched on for debugging: flushed so it survives a crash
        if any(_prompts(program, step) for step in call.via or (call,)):
            continue    # a prompt shown before waiting for a person to type
        if any(_before_new_process(program, step) for step in call.via or (call,)):
            continue    # the flush a fork or exec needs, beside which the new process is the cost
        if _reads_raw_terminal(program, hot.loop):
            continue    # a key-by-key loop: each iteration waits for a key a person types
        if any(_reports_errors(step.function) for step in call.via[1:] or (call,)):
            continue    # an error reporter: once per error, not per record
        if _batch_per_iteration(program, call, hot):
            continue    # each iteration works through a batch in an inner loop: once per batch
        if program.steps_by_chunks(hot.loop):
            continue    # each iteration works through a chunk of 1 MiB or more: once per chunk
        if (hot.loop.span.path, hot.loop.id) in syncing:
            continue    # each iteration syncs a file: the flush's write() is noise beside it
        if _runs_commands(program, hot.loop):
            continue    # each iteration runs a command line: the flush is its reply
        spelled = {"std::endl": f"std::endl on {stream}", "std::flush": f"a flush of {stream}"}.get(
            call.callee, f"{call.callee}({stream})")
        yield Hit(call.span,
                  f"{spelled} runs {hot.describe()}: every record becomes its own "
                  "write() system call", related=hot.related(), operation=hot.operation_span)
    unbuffered = _unbuffered_streams(program)
    for call in program.calls(*WRITES, *STDOUT_WRITES, where=_may_write(program, unbuffered)) if unbuffered else ():
        stream = _stream(program, _written(call), call)
        if stream not in unbuffered:
            continue
        hot = program.call_per_iteration(call)
        if hot is not None:
            made = unbuffered[stream]
            yield Hit(call.span,
                      f"{call.callee}() to a stream made unbuffered at line {made.span.line} runs "
                      f"{hot.describe()}: every write is its own write() system call",
                      related=(Related(made.span, "the stream is made unbuffered here"),) + hot.related(),
                      operation=hot.operation_span)


def _written(call):
    """The stream a stdio write writes."""
    return call.arg(WRITES[call.callee]) if call.callee in WRITES else STDOUT


def _may_write(program: Program, unbuffered: dict):
    """Whether a write as written may write one of these streams, itself or at an instance
    of it: its stream is one, or a standard stream one of them is in some file (each file's
    is its own: an instance in another file writes that file's), or one its function's
    calls hand it (summaries.varies)."""
    standard = {key[1] for key in unbuffered if key[0] == "global" and key[1] in STANDARD_STREAMS}

    def may(call) -> bool:
        stream = _written(call)
        key = _stream(program, stream, call)
        return (key in unbuffered or key is not None and key[0] == "global" and key[1] in standard
                or program.summaries.varies(stream, call.span.path, call.function))
    return may


def _flushes(program: Program):
    """The calls that flush a stream: fflush, and a C++ stream's flush (the frontends record
    `<< std::endl`, `<< std::flush` and an output stream's flush() with the stream)."""
    return program.calls("fflush", "std::endl", "std::flush")


def _flushed(call) -> str:
    """The text of the stream a flush flushes."""
    return call.arg(0).text if call.arg(0) is not None else "the stream"


def _prompts(program: Program, flush) -> bool:
    """Whether the standard input, or the terminal, is read after the flush in the same
    iteration (a prompt, then the wait for an answer; a do-while's condition comes after its
    body).  A filter reading stdin in a while loop's condition reads before its flush, and
    stays reported."""
    return any(_reads_stdin(program, read) or _reads_terminal(program, read)
               for read in _later_in_iteration(program, flush, *READS, *CIN_READS))


def _before_new_process(program: Program, flush) -> bool:
    """Whether the same iteration of the flush's function starts a process after it (fork,
    posix_spawn, system, popen, an exec): flushed first, the child does not write the
    parent's buffered output a second time, nor exec drop it."""
    return any(_later_in_iteration(program, flush, *PROCESS_STARTS))


def _later_in_iteration(program: Program, flush, *callees: str):
    """The calls of these names, as written, that the flush's function makes after it in the
    same iteration of the loops around it (a do-while's condition comes after its body)."""
    return (call for call in program.written_calls(*callees)
            if call.function == flush.function and call.span.path == flush.span.path
            and flush.span < call.span and call.loops[:len(flush.loops)] == flush.loops)


def _reads_stdin(program: Program, read) -> bool:
    """Whether a read call reads the standard input (stdin, STDIN_FILENO or descriptor 0; in
    C++ std::cin: `std::getline(std::cin, line)`, `std::cin.get()`)."""
    cpp = program.files[read.span.path].language == "c++"     # in C, `cin` may be any FILE *
    if read.via_field:
        return cpp and read.callee in CIN_READS and read.receiver is not None and read.receiver.text in CIN
    if read.callee not in READS:
        return False
    if cpp and read.arg(0) is not None and read.arg(0).text in CIN:
        return True
    where = READS[read.callee]
    source = read.arg(where) if where is not None else None
    return where is None or (source is not None and (source.text in ("stdin", "STDIN_FILENO")
                                                     or program.constant(source) == 0))


def _reads_terminal(program: Program, read) -> bool:
    """Whether a read call reads the terminal: its stream or descriptor is opened on
    /dev/tty, or held by a variable given such a one, or returned by a function of the
    program that opens it (mtools' `fgets(ans, 9, opentty(0))`).  Whoever runs the program,
    what it reads there a person types."""
    where = READS.get(read.callee)
    source = read.arg(where) if where is not None and not read.via_field else None
    return source is not None and _terminal(program, source, read.span.path, read.function, 4)


def _terminal(program: Program, source: Expr, path: str, function: str | None, depth: int) -> bool:
    """Whether a stream or descriptor expression is the terminal (see _reads_terminal),
    following `depth` variables or functions back."""
    source = strip(source)
    if source is None:
        return False
    if source.kind == CALL and source.op in OPENS:
        if any(a.kind == STRING and a.text.strip('"') == TERMINAL for a in source.children):
            return True
        return source.op in ("fdopen", "fdopen64") and bool(source.children) and depth > 0 \
            and _terminal(program, source.children[0], path, function, depth - 1)
    if depth == 0:
        return False
    if source.kind == CALL:
        return any(_terminal(program, r.value, where, fn.qualified, depth - 1)
                   for where, fn in program.defined_names.get(source.op, ())
                   for r in program.summaries.returns_in(where, fn.qualified))
    return any(_terminal(program, a.value, a.span.path, a.function, depth - 1)
               for a in program.assignments_to(program.key(source, path, function)) if a.op == "=")


def _reads_raw_terminal(program: Program, loop) -> bool:
    """Whether the loop reads the standard input after its function set a terminal's mode
    (tcsetattr or cfmakeraw before the loop, directly or in a function of the program it
    calls there): the code reads a terminal, which in raw mode hands over each key as it is
    typed (tcsetattr fails on anything but a terminal)."""
    path, function = loop.span.path, loop.function
    if not any(read.callee in READS and _reads_stdin(program, read) for read in program.calls_inside(loop)):
        return False
    setters = {(c.span.path, c.function) for c in program.written_calls(*RAW_MODE)}
    return any(c.callee in RAW_MODE or any((where, fn.qualified) in setters for where, fn in program.resolve(c))
               for c in program.calls_in(path, function) if c.span < loop.span and not c.loops)


def _batch_per_iteration(program: Program, call, hot) -> bool:
    """Whether the hot loop's iteration runs an inner loop of its own, before or after the
    flush (or the call leading to it), that repeats work through a function of the program:
    a progress line per file whose records an inner loop then loads; or calls a function of
    the program that loads a stream's records in a loop of its own (_loads_a_stream).  An
    inner loop that only writes the stream (a row's columns) formats one record, and its
    flush is per record."""
    place = hot.chain[0].span if hot.chain else call.span
    return (any(program.resolve(c) for _, calls in program.inner_loops(hot.loop, place) for c in calls)
            or _loads_a_stream(program, hot.loop, place))


def _loads_a_stream(program: Program, loop, place) -> bool:
    """Whether the iteration, whenever it reaches the place (the flush, or the call leading to
    it), also calls a function of the program that loads a stream's records: a loop of its
    own that repeats work, reads (fread, fgets, read, ...) and hands what it read to the
    program's functions (blkrawverify flushes a line per trace file, then process() reads and
    checks each of the file's records).  A loop that only reads (filling one buffer from
    partial reads) loads one record, and a loop that calls the program without reading (a
    slot moved to each node of a cluster) loads none."""
    path, function = loop.span.path, loop.function
    mine = program.guards_of(place, function)
    for c in program.calls_in(path, function):
        if not (c.loops and c.loops[-1] == loop.id and c.span != place
                and all(guard in mine for guard in program.guards_of(c.span, function))):
            continue    # not made whenever the place is reached
        for where, fn in program.resolve(c):
            calls = program.calls_in(where, fn.qualified)
            if any(program.repeats_work(where, inner) and any(r.callee in READS for r in calls if inner in r.loops)
                   and any(program.resolve(r) for r in calls if inner in r.loops)
                   for inner in {i for r in calls for i in r.loops}):
                return True
    return False


def _syncing_loops(program: Program) -> set[tuple[str, int]]:
    """The loops whose every iteration syncs a file (fsync, fdatasync, ...: in the loop's body,
    or in a function of the program the body calls, as "per iteration" follows calls; not a
    sync made only every N iterations): redis-cli's getRDB saves a node's snapshot, then
    fsyncs it."""
    return {(hot.loop.span.path, hot.loop.id) for call in program.calls(*SYNC_CALLS)
            if (hot := program.call_per_iteration(call)) is not None}


def _runs_commands(program: Program, loop) -> bool:
    """Whether the loop's iteration runs a whole command: it calls a function that `main`
    also hands its own argc and argv (rrdtool's `-` mode splits each line of its standard
    input into arguments and runs them as the command line is run)."""
    return any((where, fn.qualified) in program.command_handlers
               for c in program.calls_inside(loop) for where, fn in program.resolve(c))


def _reports_errors(function: str | None) -> bool:
    """Whether a function is named for reporting errors (errorMessage, log_error, fatal; a word
    that ends in one, as rsync's rsyserr and a syserr do)."""
    return function is not None and any(word in ERROR_WORDS or word.endswith(("err", "error"))
                                        for word in name_words(function.rsplit("::", 1)[-1]))


def _closes_next(program: Program, call) -> bool:
    """A flush right before the stream is closed in the same iteration (the close would flush
    anyway): fflush(f) then fclose(f); a C++ stream's flush after which the iteration's next
    call on the stream is `out.close()`, or, for a stream the iteration itself made
    (`std::ofstream out(path)` in the loop's body), there is none: its destructor closes it
    at the end of the iteration.  (Insertions, `out << x`, are no calls in the facts.)"""
    where = (call.span.path, call.function)
    stream = program.key(call.arg(0), *where)
    if stream is None:
        return False
    after = program.first_use(stream, call)
    if after is not None and after.callee == "fclose" and after.loops == call.loops:
        return True
    if call.callee == "fflush":
        return False
    on_stream = [c for c in program.calls_in(*where) if stream in (
        program.key(c.receiver, *where), *(program.key(arg, *where) for arg in c.args or ()))]
    later = sorted((c for c in on_stream if call.span < c.span and c.loops[:len(call.loops)] == call.loops),
                   key=lambda c: c.span)
    if later:
        return later[0].callee == "close" and program.key(later[0].receiver, *where) == stream
    return any(c.callee in STREAM_CLASSES and c.loops == call.loops and c.span < call.span
               and program.key(c.result, *where) == stream for c in program.calls_in(*where))


def _buffered(program: Program, flush) -> bool:
    """Whether the code gives the flushed stream a buffer (setvbuf with _IOFBF or _IOLBF)."""
    stream = _stream(program, flush.arg(0), flush)
    return any(_stream(program, call.arg(0), call) == stream
               and program.call_flags(call, 2, STDIO_MODES) & {"_IOFBF", "_IOLBF"}
               for call in program.calls("setvbuf"))


def _unbuffered_streams(program: Program) -> dict:
    """Streams the code unbuffers, by variable, with the call that did it: not when it
    unbuffers only a terminal (`if (isatty(fileno(fp))) setvbuf(fp, NULL, _IONBF, 0);`), for
    a person watching; piped or redirected to a file, the stream keeps a buffer."""
    found = {}
    for call in program.calls("setvbuf", "setbuf"):
        made = call.operation
        if any(terminal_only(guard.condition) for guard in program.guards_over(made)):
            continue
        if call.callee == "setvbuf":
            unbuffers = "_IONBF" in program.call_flags(call, 2, STDIO_MODES)
        else:
            unbuffers = _is_null(call.arg(1))
        key = _stream(program, call.arg(0), call)
        if unbuffers and key is not None and call.arg(0).text != "stderr":   # unbuffered already
            found.setdefault(key, call)
    return found


def _stream(program: Program, expr, call):
    """A stream's identity.  The standard streams are each program's own: one tool's
    setvbuf(stdout, NULL, _IONBF, 0) says nothing of another tool's stdout in the same tree,
    so they are known per file."""
    key = program.key(expr, call.span.path, call.function)
    if key is not None and key[0] == "global" and key[-1] in STANDARD_STREAMS:
        return key + (call.span.path,)
    return key


def _is_null(expr) -> bool:
    expr = strip(expr)
    return expr is not None and (expr.kind == INT and expr.value == 0
                                 or expr.kind == IDENTIFIER and expr.op in ("NULL", "nullptr"))
