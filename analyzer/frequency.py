"""How often code in a loop really runs, read from conditions and calls: loops that run a
handful of times or wait, code a loop runs only every N iterations, once (a flag), or only
while a trace is on, and which guards the frontends keep as facts for these questions.

"Once per iteration" is only worth a finding when the loop repeats with the workload.  A
loop over the command-line arguments, or up to a small constant, runs a handful of times;
`if (n % 100 == 0) fsync(fd);` is the batching every rule recommends, not the pattern.
program.py asks these questions of the whole program; the README lists the answers.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Callable

from .expressions import constant as constant_value
from .facts import (BINARY, CALL, IDENTIFIER, INT, MEMBER, OTHER, STRING, UNARY, Assignment, Call, Expr, Function,
                    Guard, Loop, strip)

# A loop bounded by a constant up to this runs "a handful of times" (retries, phases, a
# few passes); workload loops are bounded by a size or a count read at run time.
SMALL_TRIP_COUNT = 16
# A loop that steps its counter by a constant this large (`off += UNIT`, UNIT 10 MiB) works
# through a chunk of memory or a file that size per iteration (Iteration.steps_by_chunks).
CHUNK_STEP = 1 << 20
# The match counts of glob() and wordexp(): a loop over them runs once per file a pattern (a
# configuration's include, a user's argument) names, like a loop over the command line.
PATTERN_MATCH_COUNTS = {"gl_pathc", "we_wordc"}
# Library calls that count the machine's processors or NUMA nodes (and sysconf's names for
# them): a loop up to one runs once per CPU or node, a number the hardware fixes, not the workload.
MACHINE_COUNTS = frozenset({"get_nprocs", "get_nprocs_conf", "hardware_concurrency", "numa_max_node",
                            "numa_num_configured_nodes", "numa_num_configured_cpus", "numa_num_task_nodes",
                            "numa_num_task_cpus"})
SYSCONF_MACHINE_COUNTS = frozenset({"_SC_NPROCESSORS_ONLN", "_SC_NPROCESSORS_CONF"})
# The kernel's directory of each CPU and each NUMA node in sysfs: a loop that formats its
# counter into one of these names (`"/sys/devices/system/node/node%d/distance"`) visits the
# machine's CPUs or nodes, however it decides to stop (at the first missing directory).
MACHINE_DIRECTORIES = ("/sys/devices/system/cpu/cpu%", "/sys/devices/system/node/node%")
# Formatting calls and the position of their format: a loop's file names are built with them.
FORMATS = {"sprintf": 1, "snprintf": 2, "asprintf": 1}
# Searches that return a pointer into the string they are given (or NULL).
STRING_SEARCHES = frozenset({"strchr", "strrchr", "strchrnul", "strpbrk", "strstr", "strcasestr", "memchr"})
# Words of a name that switches on diagnostic output (SQLITE_DEBUG, eVerbosity, g.bTrace).
_TRACE_WORDS = {"debug", "debugging", "dbg", "verbose", "verbosity", "trace", "tracing"}
TERMINAL_TESTS = frozenset({"isatty"})
_NOT_TRACE_WORDS = {"ndebug"}   # NDEBUG is set in release builds
_TEST_WORDS = {"test", "testing"}
# A log level (opt_log_level, logLevel) filters diagnostic messages like a verbosity does.
_LOG_LEVEL_WORDS = ("log", "level")
# What failed calls return besides negative numbers.
FAILURE_NAMES = frozenset({"NULL", "nullptr", "MAP_FAILED", "SIG_ERR"})
# C library calls that transfer a count of bytes (or items), by the index of that count: a result
# unequal to it is a failure or a short transfer (`if (write(fd, p, n) != n)`).
TRANSFER_COUNTS = {"write": 2, "pwrite": 2, "pwrite64": 2, "read": 2, "pread": 2, "pread64": 2, "send": 2,
                   "recv": 2, "fwrite": 2, "fread": 2}
# C library calls that return 0 on success (and -1, or an error number, on failure): a result
# compared unequal to 0, or taken as true, is their failure (`while (fdatasync(fd) != 0)`).
ZERO_ON_SUCCESS = frozenset({"fsync", "fdatasync", "msync", "fflush", "fclose", "close", "ftruncate", "ftruncate64",
                             "fallocate", "posix_fallocate", "sync_file_range", "munmap", "madvise", "rename"})
# Library calls that read a clock (`now` is C++'s std::chrono clocks'): a guard comparing a
# reading with one its code stamped before holds once per tick or interval, not per record.
CLOCKS = frozenset({"time", "clock", "clock_gettime", "gettimeofday", "times", "ftime", "timespec_get", "now"})
# Calls that do not return: a function that makes one whatever its arguments ends the process
# (or unwinds far past its caller, to an error handler: longjmp; or ends its thread).
PROCESS_ENDS = frozenset({"exit", "_exit", "_Exit", "quick_exit", "abort", "err", "errx", "verr", "verrx",
                          "longjmp", "_longjmp", "siglongjmp", "pthread_exit"})
# Calls that wait for time to pass (a tick: a sleep, a timed wait), for another thread or
# process to finish, or for a signal: a loop that makes one is paced by the wait, and a
# per-iteration cost beside it is noise.  Not the waits of a request or event loop (poll,
# select, epoll_wait, accept, a condition variable or semaphore a producer signals, a read of
# a socket): under load they return at once, and the per-request cost is the whole cost.
WAITS = frozenset({
    "sleep", "usleep", "nanosleep", "clock_nanosleep", "pthread_cond_timedwait", "sem_timedwait",
    "pthread_join", "thrd_join", "wait", "waitpid", "waitid", "wait3", "wait4",
    "sigwait", "sigwaitinfo", "sigtimedwait", "sigsuspend", "pause",
    "sleep_for", "sleep_until",         # std::this_thread's
})
# Waits for a child that return at once when given WNOHANG.
POLLED_WAITS = frozenset({"waitpid", "waitid", "wait3", "wait4"})
# C++'s timed waits of a condition variable (or a future), methods of the object waited on:
# `cv.wait_for(lock, 1s)` waits for its tick as pthread_cond_timedwait does.
TIMED_WAIT_METHODS = frozenset({"wait_for", "wait_until"})
# Algorithms of the C++ standard library that call the function they are handed once per
# element of a range: the function's body (a lambda written there) is a loop's body, and a
# named function is called once per iteration of a loop over the range (Loop.kind
# "std::for_each").  The callable is their last argument.
ALGORITHMS = frozenset({
    "for_each", "for_each_n", "transform", "generate", "generate_n", "count_if", "find_if",
    "find_if_not", "all_of", "any_of", "none_of", "copy_if", "remove_if", "remove_copy_if",
    "replace_if", "partition", "stable_partition", "accumulate", "reduce", "transform_reduce",
})
# The C library's walks, which call the function they are handed (by its argument's index)
# once per element of what they walk: a file or directory of a tree (nftw), an entry of a
# directory (scandir's filter), a node of a search tree (twalk).  The function is a loop's
# body, as an algorithm's is (Loop.kind: the walk's name).
WALKS = {"nftw": 1, "nftw64": 1, "ftw": 1, "ftw64": 1, "scandir": 2, "scandir64": 2, "scandirat": 3,
         "twalk": 1, "twalk_r": 1}
# C++ stream manipulators that flush the stream they are inserted into (`out << std::endl`);
# a frontend records each insertion as a call of "std::endl" or "std::flush" with the stream,
# and a flush() method of an output stream of these classes as a call of "std::flush".
FLUSHING_MANIPULATORS = frozenset({"endl", "flush"})
# The C++ standard library's factories: `std::make_unique<T>(...)` makes a T, as `new T` does.
FACTORIES = frozenset({"make_unique", "make_shared", "allocate_shared"})
# Its smart pointers: their template argument is the class of what they point to (`->` reaches
# it), made elsewhere, not an object they hold.
SMART_POINTERS = frozenset({"unique_ptr", "shared_ptr", "weak_ptr"})
STREAM_CLASSES = frozenset({"ostream", "ofstream", "fstream", "iostream", "basic_ostream", "basic_ofstream",
                            "basic_fstream", "basic_iostream"})


# Waits for descriptors that sleep when given none (frequency.waits).
SLEEPING_POLLS = frozenset({"select", "pselect", "poll", "ppoll"})
# Line editors that print a prompt and wait for a person to type a line: a loop that makes one
# (a REPL) is paced by the person.  Only with one argument, the prompt, and only the library's
# (Iteration._waits): a program's own function of the same name is read as its body is.
PROMPTS = frozenset({"readline", "linenoise", "getpass"})
# curses' reads of a key or a line typed at the terminal: a loop that makes one (a menu) waits
# for the person at the keyboard.
KEY_READS = frozenset({"getch", "wgetch", "mvgetch", "mvwgetch", "getstr", "wgetstr", "getnstr", "wgetnstr",
                       "mvgetstr", "mvwgetstr"})


def waits(call: Call) -> bool:
    """Whether a call waits for time to pass, another thread or process, or a person: a
    select() or poll() given no descriptor to watch only sleeps for its timeout (`select(0,
    NULL, NULL, NULL, &tv)`, `poll(NULL, 0, ms)`); a timed wait is a method of what it waits on."""
    if call.callee in ("select", "pselect"):
        return call.args is not None and len(call.args) >= 4 and all(_none(a) for a in call.args[1:4])
    if call.callee in ("poll", "ppoll"):
        return call.args is not None and len(call.args) >= 2 and (_none(call.args[0]) or _none(call.args[1]))
    if call.callee in POLLED_WAITS and any(node.kind == IDENTIFIER and node.op == "WNOHANG"
                                           for arg in call.args or () for node in arg.walk()):
        return False        # asks whether a child has ended, and returns at once
    return call.callee in WAITS or call.callee in KEY_READS \
        or (call.callee in PROMPTS and call.args is not None and len(call.args) == 1) \
        or (call.callee in TIMED_WAIT_METHODS and call.receiver is not None)


def _none(expr: Expr) -> bool:
    """A null pointer or a zero count."""
    expr = strip(expr)
    return expr is not None and (expr.value == 0 or expr.kind == IDENTIFIER and expr.op in FAILURE_NAMES - {"MAP_FAILED", "SIG_ERR"})


def may_matter(condition_text: str) -> bool:
    """Whether a condition, judged by its source text, could batch, switch on a trace, test
    a once flag or a terminal, or test a call for failure (`!put(k)`, `rc < 0`): the frontends
    build expressions only for those (a big file has thousands of `if (rc < 0)`; the guards
    kept are fewer: frequency.relevant_guards)."""
    text = condition_text.replace("->", ".").lower()
    bare = text.strip("()! \t\n").replace(".", "_")
    return ("%" in text or "==" in text or "!=" in text or ">" in text or bare.isidentifier()
            or text.lstrip("( \t\n").startswith("!") or "<0" in "".join(text.split())
            or any(word in text for word in _TRACE_WORDS) or "level" in text
            or any(test in text for test in TERMINAL_TESTS))


def relevant_guards(guards: list[Guard], calls: list[Call], assignments: list[Assignment] = (),
                    functions: list[Function] = ()) -> tuple[Guard, ...]:
    """Of the guards with a call inside (the frontends make no others: building conditions
    nobody asks about costs), those worth keeping as facts: the ones that leave the loop or
    the function, whose condition can batch or switch on a trace, the groups of a test build
    (Iteration._in_test_build), or that may run once (a
    flag the file assigns: the guarded code may turn it off, or the loop set it as a latch),
    those that set a flag (the loop's condition may end on it: `err = true;`, or `err = TRUE;`
    and `rc = SQLITE_NOMEM;` with a name no variable of the function has, a macro or an
    enumerator whose value the whole program may know), those that set what their own
    condition reads (a time stamp: `if (now != last) { ...; last = now; }`), and those around
    a call that ends the process or waits.  A
    big file has thousands of `if (rc) goto fail;`; sending them all between processes costs
    a quarter of a tree-sitter run."""
    locals_of = {fn.qualified: fn.locals for fn in functions}

    def may_be_constant(value: Expr | None, function: str | None) -> bool:
        value = strip(value)
        return constant_value(value) is not None or (
            value is not None and value.kind == IDENTIFIER and value.op not in locals_of.get(function, ()))
    # every plain assignment to a variable or a field, by where it is: (position, the name it
    # sets, whether the value may be a constant)
    settings = sorted(((a.span.path, a.span.line, a.span.column), a.target.op, may_be_constant(a.value, a.function))
                      for a in assignments if a.op == "=" and a.target.kind in (IDENTIFIER, MEMBER))
    flags_set = {name for _, name, _ in settings}
    flag_settings = [at for at, _, constant in settings if constant]
    stops = sorted((c.span.path, c.span.line, c.span.column) for c in calls
                  if c.callee in PROCESS_ENDS or waits(c))

    def may_run_once(guard: Guard) -> bool:
        flag = once_flag(guard.condition)
        return flag is not None and flag[0].op in flags_set

    def encloses(span, positions) -> bool:
        first = bisect_left(positions, (span.path, span.line, span.column))
        return first < len(positions) and positions[first] <= (span.path, span.end_line, span.end_column)

    def sets_what_it_reads(guard: Guard) -> bool:
        span, read = guard.span, guard.condition.names() | {n.op for n in guard.condition.walk() if n.kind == MEMBER}
        first = bisect_left(settings, ((span.path, span.line, span.column),))
        return any(name in read for _, name, _ in settings[first:bisect_right(
            settings, ((span.path, span.end_line, span.end_column), "\U0010ffff"))])

    return tuple(guard for guard in guards
                 if encloses(guard.span, stops) or encloses(guard.span, flag_settings)
                 or guard.leaves or may_batch(guard.condition) or trace_switch(guard.condition)
                 or guard.preprocessor and test_build(guard.condition) or terminal_only(guard.condition)
                 or may_run_once(guard) or sets_what_it_reads(guard))


def parameter_guards(guards: list[Guard], kept: tuple[Guard, ...], functions: list[Function]) -> tuple[Guard, ...]:
    """Of the guards with a call inside that relevant_guards does not keep, those whose
    condition reads a parameter of their function: what a caller passes may decide them
    (`fprintlog(f, from, 0, msg)` of a function that fsyncs only `if ((flags & SYNC_FILE) &&
    ...)`: Iteration._ruled_out)."""
    params = {fn.qualified: set(fn.params) - {""} for fn in functions}
    kept_ids = {id(guard) for guard in kept}
    return tuple(guard for guard in guards if id(guard) not in kept_ids and not guard.preprocessor
                 and guard.condition.kind != OTHER and guard.condition.names() & params.get(guard.function, set()))


def once_flag(condition: Expr) -> tuple[Expr, bool] | None:
    """`!done` or `done == 0` (the flag, and False: the code runs while it is unset), or
    `first` or `first != 0` (the flag, and True): a guard that runs once if the guarded code
    flips the flag."""
    condition = strip(condition)
    if condition is None:
        return None
    if condition.kind in (IDENTIFIER, MEMBER):
        return condition, True
    if condition.kind == BINARY and condition.op == "!=" and _zero(condition.children[1]):
        flag = strip(condition.children[0])
        return (flag, True) if flag is not None and flag.kind in (IDENTIFIER, MEMBER) else None
    unset = None
    if condition.kind == UNARY and condition.op == "!":
        unset = strip(condition.children[0])
    elif condition.kind == BINARY and condition.op == "==" and _zero(condition.children[1]):
        unset = strip(condition.children[0])
    return (unset, False) if unset is not None and unset.kind in (IDENTIFIER, MEMBER) else None


def _zero(expr: Expr) -> bool:
    """0, or the null pointer by name (`f == NULL`)."""
    expr = strip(expr)
    return expr is not None and (expr.value == 0 or expr.kind == IDENTIFIER and expr.op in ("NULL", "nullptr"))


def handful(loop: Loop, constant: Callable[[Expr], int | None],
            table: Callable[[Expr], bool] = lambda node: False,
            counts_arguments: Callable[[Expr], bool] = lambda name: False,
            counts_machine: Callable[[Expr], bool] = lambda condition: False) -> str | None:
    """Why a loop runs only a handful of times, or None: bounded by the command-line
    arguments (argc, or a count kept while reading them) or a pattern's matches (glob()'s
    gl_pathc), by a small constant, or by a table
    written in the source (its size, or a walk over it: `for (c = checks; c->fn; c++)`,
    `checks[i].fn`; `table` tells whether a node of the condition walks one), or by the
    machine's processors or NUMA nodes (`counts_machine` tells whether the condition's
    values all come from such a count and constants)."""
    condition = strip(loop.condition)
    if condition is None:
        return None
    if counts_machine(condition):
        return "once per processor or NUMA node"
    if over_arguments(loop) or any(node.kind == IDENTIFIER and counts_arguments(node)
                                   for node in condition.walk()):
        return "once per command-line argument"
    if any(node.kind == MEMBER and node.op in PATTERN_MATCH_COUNTS for node in condition.walk()):
        return "once per file a pattern names"
    if any(table(node) for node in condition.walk()):
        return "once per entry of a table in the source"
    for comparison in _comparisons(condition, ("<", "<=", ">", ">=")):
        bound = comparison.children[1 if comparison.op in ("<", "<=") else 0]   # i < N, N > i
        value = constant(bound)
        if value is not None and 1 <= value <= SMALL_TRIP_COUNT:
            return f"at most {value} times"
        if _table_size(bound):
            return "once per entry of a table in the source"
    return None


def machine_count(expr: Expr) -> bool:
    """Whether an expression is a call that counts the machine's processors or NUMA nodes:
    `numa_max_node()`, `get_nprocs()`, `sysconf(_SC_NPROCESSORS_ONLN)`."""
    expr = strip(expr)
    if expr is None or expr.kind != CALL:
        return False
    if expr.op == "sysconf":
        return len(expr.children) == 1 and (name := strip(expr.children[0])) is not None \
            and name.kind == IDENTIFIER and name.op in SYSCONF_MACHINE_COUNTS
    return expr.op in MACHINE_COUNTS


def machine_directory_values(call: Call) -> tuple[Expr, ...]:
    """The values a formatting call writes into the sysfs name of a CPU's or NUMA node's
    directory (`sprintf(fn, "/sys/devices/system/node/node%d/meminfo", node)`: node); none
    for any other call."""
    position = FORMATS.get(call.callee)
    fmt = strip(call.arg(position)) if position is not None else None
    if fmt is None or fmt.kind != STRING or not fmt.text.strip('"').startswith(MACHINE_DIRECTORIES):
        return ()
    return call.args[position + 1:]


def bounded_by(condition: Expr, is_table: Callable[[Expr], bool]) -> bool:
    """Whether a condition compares a value with a table's size (`i >= ArraySize(aLib)`,
    `i < sizeof(t) / sizeof(t[0])`); is_table tells whether a name is a table in the source."""
    return any(counts_table(side, is_table)
               for comparison in _comparisons(condition, ("<", "<=", ">", ">="))
               for side in map(strip, comparison.children) if side is not None)


def counts_table(expr: Expr, is_table: Callable[[Expr], bool]) -> bool:
    """Whether a value is a table's entry count: `sizeof(t) / sizeof(t[0])`, or a size macro
    given the table (`ArraySize(t)`); is_table tells whether a name is a table in the source."""
    return _table_size(expr) or expr.kind == CALL and len(expr.children) == 1 and is_table(expr.children[0])


def may_bound(condition_text: str) -> bool:
    """A cheap first test for bounds_check(), on the condition's source text."""
    return ("<" in condition_text or ">" in condition_text) and "(" in condition_text


def may_time(condition_text: str) -> bool:
    """A cheap first test for orderings(), on the condition's source text."""
    return "<" in condition_text or ">" in condition_text


def disjuncts(condition: Expr | None) -> list[Expr]:
    """The operands of a condition's top-level ||s (the condition itself when it has none):
    each is false whenever the condition is."""
    condition = strip(condition)
    if condition is not None and condition.kind == BINARY and condition.op == "||":
        return [part for side in condition.children for part in disjuncts(side)]
    return [condition] if condition is not None else []


def orderings(condition: Expr | None) -> list[Expr]:
    """The ordering comparisons (`now - last < PERIOD`) among a condition's disjuncts: what an
    early return compares a clock reading with the stamp it keeps (Iteration.batched); the
    frontends keep such a guard without a call inside, in a function that reads a clock."""
    return [part for part in disjuncts(condition) if part.kind == BINARY and part.op in ("<", "<=", ">", ">=")]


def bounds_check(condition: Expr) -> bool:
    """Whether a condition may compare an index with a table's size (`i >= ArraySize(t)`,
    `i >= sizeof(t) / sizeof(t[0])`): the frontends keep such a guard when it leaves, without
    a call inside, for the accessor of a table (Iteration._table_accessor)."""
    return bounded_by(condition, lambda name: strip(name) is not None and strip(name).kind == IDENTIFIER)


def kept_without_call(condition: Expr, params: set[str] | frozenset[str], timed: bool,
                      set_after: Callable[[str], bool]) -> bool:
    """Whether the frontends keep an if that leaves and holds no call as a guard: a table
    accessor's bound (bounds_check), an early return unless tracing (trace_off), one on a
    parameter's value (a caller may pass the value that takes it: summaries.lift), one until
    a clock has moved past a stamp (`if (now - last < PERIOD) return;`, `timed`: its function
    reads a clock), or one on a flag its function sets after it (`set_after` of the flag's
    name: `if (inited) return; inited = 1;`, what follows runs once: Iteration.runs_once)."""
    flag = once_flag(condition)
    return bounds_check(condition) or trace_off(condition) or bool(condition.names() & params) \
        or (timed and bool(orderings(condition))) or (flag is not None and set_after(flag[0].op))


def over_arguments(loop: Loop) -> bool:
    """A loop over the command-line arguments: its condition names argc, or the argument
    vector it walks (`argv[i] != NULL`, `*++argv`; a command's own argv in an interpreter)."""
    return loop.condition is not None and not {"argc", "argv"}.isdisjoint(loop.condition.names())


def endless(loop: Loop, constant: Callable[[Expr], int | None]) -> bool:
    """`for (;;)` or `while (1)`: a loop left only by a break or a return."""
    if loop.kind == "range-for":
        return False
    return loop.condition is None or bool(constant(loop.condition))


def batch(condition: Expr, counts: Callable[[Expr], bool], may_be_one: Callable[[Expr], bool]) -> bool:
    """Whether a guard's condition holds only every N iterations: `i % N == 0` (N not
    possibly 1: `every = bad ? 1 : batch` makes both) or its power-of-two form `(i & 1023) == 0`,
    or a counter compared with a bound, counted up by the loop and set back to 0 inside the
    guard (`if (++n == 100) { ...; n = 0; }`).  A remainder tested the other way round
    (`i % N != 0`, `if (i % N)`, `!(i % N == 0)`) holds on all iterations but one in N."""
    if not _all_but_one(condition) and any(node.kind == BINARY and node.op == "%" and not may_be_one(node.children[1])
                                           for node in _tested(condition)):
        return True
    if any(_low_bits(comparison) for comparison in _comparisons(condition, ("==",))):
        return True
    return any(counts(counter) for counter in counters(condition))


# Branch-prediction hints: what they hand back is their first argument, the condition.
BRANCH_HINTS = frozenset({"__builtin_expect", "likely", "unlikely"})


def _tested(condition: Expr | None) -> list[Expr]:
    """What a condition tests: itself, the operands of its &&, || and !, and the sides of its
    comparisons; not what those are computed from (FD_ISSET's `fd % 64`, a shift count in a
    bit test, is no remainder the condition compares)."""
    condition = strip(condition)
    if condition is None:
        return []
    if condition.kind == CALL and condition.op in BRANCH_HINTS and condition.children:
        return [condition] + _tested(condition.children[0])     # `unlikely(p % 128 == 0)`
    if condition.kind == UNARY and condition.op == "!" or condition.kind == BINARY and condition.op in ("&&", "||"):
        return [condition] + [node for child in condition.children for node in _tested(child)]
    if condition.kind == BINARY and condition.op in ("==", "!=", "<", "<=", ">", ">="):
        return [condition] + [side for side in map(strip, condition.children) if side is not None]
    return [condition]


def _all_but_one(condition: Expr, negated: bool = False) -> bool:
    """Whether a condition is a remainder that holds unless it is one value: `i % N != K`,
    `i % N` as a truth value, or the negation of `i % N == K` (under any number of `!`)."""
    condition = strip(condition)
    if condition is None or condition.kind not in (UNARY, BINARY):
        return False
    if condition.kind == UNARY:
        return condition.op == "!" and bool(condition.children) and _all_but_one(condition.children[0], not negated)
    if condition.op == "%":
        return not negated
    remainder = any(side is not None and side.kind == BINARY and side.op == "%" for side in map(strip, condition.children))
    return remainder and condition.op in ("==", "!=") and (condition.op == "!=") != negated


def periods(condition: Expr) -> list[Expr]:
    """The periods a batch guard's condition counts in: N of `x % N`, M + 1 of `(x & M) ==
    K` (as a number)."""
    found = [node.children[1] for node in condition.walk()
             if node.kind == BINARY and node.op == "%" and len(node.children) == 2]
    for comparison in _comparisons(condition, ("==",)):
        found += [Expr(INT, str(mask + 1), value=mask + 1) for mask in _masks(comparison)]
    return found


def _low_bits(comparison: Expr) -> bool:
    """`(x & M) == K` with M one less than a power of two and K a constant up to M (`(i &
    1023) == 0`, `(i & 255) == 255`, `(i & (256 - 1)) == 0`): x % (M + 1) == K, once every
    M + 1 iterations."""
    return bool(_masks(comparison))


def _masks(comparison: Expr) -> list[int]:
    """The masks M of a low-bits comparison (_low_bits), as numbers."""
    sides = [strip(side) for side in comparison.children]
    if len(sides) != 2 or None in sides:
        return []
    found = []
    for masked, other in (sides, sides[::-1]):
        compared = constant_value(other)
        if masked.kind != BINARY or masked.op != "&" or compared is None:
            continue
        for k in masked.children:
            mask = constant_value(k)
            if mask is not None and mask > 0 and mask & (mask + 1) == 0 and 0 <= compared <= mask:
                found.append(mask)
    return found


def counters(condition: Expr) -> list[Expr]:
    """The variables a condition compares for equality or as a lower bound: batch counters
    if the guarded code resets them."""
    return [counter for comparison in _comparisons(condition, ("==", ">=", ">"))
            for counter in map(_counter, comparison.children) if counter is not None]


def may_batch(condition: Expr) -> bool:
    """A cheap first test for batch(): a `%`, a low-bits mask compared with 0, or a counter compared."""
    return (any(node.kind == BINARY and node.op == "%" for node in condition.walk()) or bool(counters(condition))
            or any(_low_bits(comparison) for comparison in _comparisons(condition, ("==",))))


def trace_switch(condition: Expr) -> bool:
    """Whether a condition switches on diagnostic output: it names a debug, verbosity or trace
    setting, other than under a `!`."""
    return any(_is_trace_name(name) for name in _positive_names(condition))


def test_build(condition: Expr) -> bool:
    """Whether a preprocessor condition selects a test build (`#ifdef TEST`, `#if
    defined(SQLITE_TEST)`): what it defines is not the ordinary build's."""
    return any(word in _TEST_WORDS for name in _positive_names(condition) for word in name_words(name))


def trace_off(condition: Expr) -> bool:
    """Whether a condition holds while a trace is off (`!verbose`, `!(detached && dbg_output)`,
    `debug == 0`): code after `if (...) return;` on it runs only while tracing."""
    condition = strip(condition)
    if condition is None:
        return False
    if condition.kind == UNARY and condition.op == "!" and condition.children:
        return trace_switch(condition.children[0])
    if condition.kind == BINARY and condition.op == "==" and len(condition.children) == 2 \
            and condition.children[1].value == 0:
        return trace_switch(condition.children[0])
    return False


def failure_tests(condition: Expr | None, constant: Callable[[Expr], int | None],
                  negations: bool = False) -> list[Expr]:
    """The values a condition requires to hold a failed call's result: `f == NULL`, `fd < 0`,
    `fd == -1`, `p == MAP_FAILED`, a call that returns 0 on success taken as true or compared
    `!= 0` (`while (fdatasync(fd) != 0)`), as an operand of its top-level `&&`s (under an `||` the
    loop may go round for another reason).  Not `!x` nor `x == 0`: for a count or a done flag
    those mean "not finished yet"; with `negations` (a branch's condition, whose caller
    decides which negated values are a call's success: `!put(k)`, `!ok`), `!x` too."""
    condition = strip(condition)
    if condition is None:
        return []
    if condition.kind == BINARY and condition.op == "&&":
        return [v for part in condition.children for v in failure_tests(part, constant, negations)]
    if negations and condition.kind == UNARY and condition.op == "!" and condition.children:
        return [condition.children[0]]
    if _zero_on_success(condition):
        return [condition]
    if condition.kind == BINARY and condition.op == "!=" and len(condition.children) == 2:
        tested, bound = map(strip, condition.children)
        if constant(bound) == 0 and _zero_on_success(tested) or _short_transfer(tested, bound):
            return [tested]
    if condition.kind == BINARY and condition.op in ("==", "<") and len(condition.children) == 2:
        tested, bound = map(strip, condition.children)
        named = bound is not None and bound.kind == IDENTIFIER and bound.op in FAILURE_NAMES
        value = constant(bound) if bound is not None and not named else None
        failed = named or (value is not None and (value < 0 if condition.op == "==" else value == 0))
        if failed and tested is not None:
            return [tested]
    return []


def _zero_on_success(expr: Expr | None) -> bool:
    return expr is not None and expr.kind == CALL and expr.op in ZERO_ON_SUCCESS


def _short_transfer(call: Expr | None, bound: Expr | None) -> bool:
    """`write(fd, p, n) != n`: a transfer call compared unequal to the count it was asked for
    failed (or fell short, which its caller treats as failing)."""
    if call is None or bound is None or call.kind != CALL or call.op not in TRANSFER_COUNTS:
        return False
    count = call.children[TRANSFER_COUNTS[call.op]] if len(call.children) > TRANSFER_COUNTS[call.op] else None
    return count is not None and "".join(strip(count).text.split()) == "".join(bound.text.split())


# A call that asks for the error state (`db->error()`, `ferror(f)`, `GetLastError()`), or errno.
ERROR_STATE_WORDS = frozenset({"error", "errno", "ferror"})


def reads_error_state(condition: Expr | None) -> bool:
    """Whether a condition asks, as an operand of its top-level `&&`s, whether something
    failed: the error state a library keeps, compared or tested (`db_->error() != NOREC`,
    `ferror(f)`, `errno != ENOENT`): a branch taken after a failure, as one that tests the
    failed call's result."""
    condition = strip(condition)
    if condition is None:
        return False
    if condition.kind == BINARY and condition.op == "&&":
        return any(reads_error_state(part) for part in condition.children)
    if condition.kind == BINARY and condition.op in ("==", "!=", "<", ">") and len(condition.children) == 2:
        return any(reads_error_state(part) for part in condition.children)
    if condition.kind == CALL:
        return bool(ERROR_STATE_WORDS & set(name_words(condition.op)))
    return condition.kind == IDENTIFIER and condition.op == "errno"


TRANSIENT_ERRORS = frozenset({"EINTR", "EAGAIN", "EWOULDBLOCK", "EBUSY"})


def retries_transient(condition: Expr | None) -> bool:
    """Whether a condition requires, as an operand of its top-level `&&`s, errno to name an
    error that goes away by itself (`while (rc < 0 && errno == EINTR)`, or one of several:
    `errno == EINTR || errno == EAGAIN`): a loop that goes round again only when a call was
    interrupted or told to try again."""
    condition = strip(condition)
    if condition is None or condition.kind != BINARY:
        return False
    if condition.op == "&&":
        return any(retries_transient(part) for part in condition.children)
    if condition.op == "||":
        return all(retries_transient(part) for part in condition.children)
    if condition.op != "==" or len(condition.children) != 2:
        return False
    names = {strip(part).op for part in condition.children if strip(part) is not None}
    return "errno" in names and bool(names & TRANSIENT_ERRORS)


ZERO = Expr(INT, "0", value=0)


def countdowns(condition: Expr | None) -> list[tuple[Expr, Expr]]:
    """The (counter, floor) pairs a condition needs to go on: `n > 0`, `tries-- > 0`, `n != 0`,
    or the counter alone, which is `!= 0` (`for (; redirects-- && !f;)`); operands of a
    top-level && too.  The loop runs while the counter stays above its floor."""
    condition = strip(condition)
    if condition is None:
        return []
    if condition.kind == BINARY and condition.op == "&&":
        return [pair for part in condition.children for pair in countdowns(part)]
    if condition.kind == BINARY and condition.op in (">", ">=", "!=") and len(condition.children) == 2:
        counter, floor = (strip(side) for side in condition.children)
    else:
        counter, floor = condition, ZERO
    if counter is not None and counter.kind == UNARY and counter.op in ("--", "++") and counter.children:
        counter = strip(counter.children[0])        # `tries-- > 0`
    return [(counter, floor)] if counter is not None and counter.kind == IDENTIFIER and floor is not None else []


def upper_bounds(condition: Expr) -> list[tuple[Expr, Expr]]:
    """(counter, bound) of each comparison a condition's truth rests on that keeps a variable
    under a bound: `i < N`, `i <= N`, `N > i`."""
    pairs = []
    for comparison in _comparisons(condition, ("<", "<=", ">", ">=")):
        counter, bound = (strip(side) for side in comparison.children)
        if comparison.op in (">", ">="):
            counter, bound = bound, counter
        if counter is not None and counter.kind == IDENTIFIER and bound is not None:
            pairs.append((counter, bound))
    return pairs


def _comparisons(condition: Expr, ops: tuple[str, ...]):
    """The comparisons a condition's truth rests on (through && and ||)."""
    condition = strip(condition)
    if condition is None or condition.kind != BINARY:
        return
    if condition.op in ("&&", "||"):
        for part in condition.children:
            yield from _comparisons(part, ops)
    elif condition.op in ops:
        yield condition


def _table_size(expr: Expr) -> bool:
    """`sizeof(table) / sizeof(table[0])`, the idiom for a table's entry count."""
    expr = strip(expr)
    return (expr is not None and expr.kind == BINARY and expr.op == "/"
            and all(part.kind == OTHER and part.op == "sizeof" for part in expr.children))


def _counter(expr: Expr) -> Expr | None:
    """The variable of `n`, `++n` or `n++`."""
    expr = strip(expr)
    if expr is not None and expr.kind == UNARY and expr.op in ("++", "--"):
        expr = strip(expr.children[0])
    return expr if expr is not None and expr.kind in (IDENTIFIER, MEMBER) else None


def terminal_only(condition: Expr) -> bool:
    """Whether a condition holds only when a stream is a terminal (`isatty(fileno(fp))`, not
    under a `!`): what it guards serves a person watching, not the workload (piped or written
    to a file, the other branch runs)."""
    return any(node.kind == CALL and node.op in TERMINAL_TESTS for node in _positive_nodes(strip(condition)))


def _positive_nodes(expr: Expr | None):
    """The nodes of a condition outside any `!`: what must hold for it to hold."""
    if expr is None or (expr.kind == UNARY and expr.op == "!"):
        return
    yield expr
    for child in expr.children:
        yield from _positive_nodes(child)


def _positive_names(expr: Expr):
    """The names a condition's truth rests on: its variables and fields, and the predicates it
    calls (`DEBUG_GTE(DELTASUM, 3)`, `debug_enabled()`), whose names say what they test."""
    return (node.op for node in _positive_nodes(expr) if node.kind in (IDENTIFIER, MEMBER, CALL))


def name_words(name: str) -> list[str]:
    """The lowercase words of an identifier: snake_case and camelCase (eVerbosity -> e, verbosity)."""
    words = []
    for part in name.split("_"):
        word = ""
        for char in part:
            if char.isupper() and word and not word[-1].isupper():
                words.append(word)
                word = ""
            word += char
        words.append(word)
    return [word.lower() for word in words if word]


def _is_trace_name(name: str) -> bool:
    words = name_words(name)
    return any(pair == _LOG_LEVEL_WORDS for pair in zip(words, words[1:])) or any(
        (word in _TRACE_WORDS or word.endswith("debug")) and word not in _NOT_TRACE_WORDS for word in words)
