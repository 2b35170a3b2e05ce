from pathlib import Path

import pytest

from mmaplint.analyzer.expressions import address_base
from mmaplint.analyzer.facts import (BINARY, BRACES, CALL, CAST, COND, INT, MEMBER, IDENTIFIER, OTHER, RANGE_ELEMENT, FileFacts,
                                     FrontendError, FrontendOptions)
from mmaplint.analyzer.frontends import clang
from mmaplint.analyzer.frontends.clang_includes import builtin_include_dir

WANTED = frozenset({"msync", "open", "mmap", "SYNC_PAGE"})


def parse(tmp_path: Path, code: str | bytes, name: str = "t.c", **options: object) -> FileFacts:
    path = tmp_path / name
    source = code if isinstance(code, bytes) else code.encode()
    path.write_bytes(source)
    language = "c++" if name.endswith(".cpp") else "c"
    return clang.parse(str(path), source, FrontendOptions(argument_callees=WANTED, language=language, **options))


C_CODE = """\
#include <stddef.h>
#include <fcntl.h>
#include <sys/mman.h>
#define SYNC_PAGE(x) msync((x), 4096, MS_SYNC)
struct ops { int (*queue)(int); int (*flush)(int); };
static int q(int n) { return n; }
static struct ops by_name = { .queue = q };
static struct ops by_position = { q, q };
void run(const char *path, size_t n) {
    int flags = O_RDWR;
    flags |= O_CREAT;
    int fd = open(path, O_RDWR | O_DSYNC);
    char *p = (char *)mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    for (size_t i = 0; i < n; i++) {
        /* two-line comment: mmaplint:
           ignore[MML001] covers the next line */
        while (q(q((int)i)))
            SYNC_PAGE(p + i);
    }
    do { n--; } while (n > 0);
}
"""


@pytest.fixture
def c_facts(tmp_path: Path) -> FileFacts:
    return parse(tmp_path, C_CODE)


def test_functions_loops_and_reason(c_facts: FileFacts) -> None:
    assert c_facts.frontend == "clang" and "GNU defaults" in c_facts.reason
    assert [f.qualified for f in c_facts.functions] == ["q", "run"]
    assert {"path", "n", "flags", "fd", "p", "i"} <= c_facts.functions[1].locals
    assert [(loop.kind, loop.span.line, loop.function) for loop in c_facts.loops] == [
        ("for", 14, "run"), ("while", 17, "run"), ("do", 20, "run")]
    assert c_facts.lines == 21


def test_calls_nested_with_loops(c_facts: FileFacts) -> None:
    calls = [(call.callee, call.span.line, call.loops) for call in c_facts.calls]
    assert calls == [("open", 12, ()), ("mmap", 13, ()), ("q", 17, (0, 1)), ("q", 17, (0, 1)),
                     ("msync", 18, (0, 1))]
    assert c_facts.calls[2].target == "q" and c_facts.calls[2].args is None


def test_flag_spellings_values_and_result(c_facts: FileFacts) -> None:
    open_call = c_facts.calls[0]
    flags = open_call.args[1]
    assert (flags.kind, flags.op) == (BINARY, "|")
    assert [(c.kind, c.op, c.value) for c in flags.children] == [(IDENTIFIER, "O_RDWR", 2), (IDENTIFIER, "O_DSYNC", 0o10000)]
    assert flags.value == 0o10002
    assert (open_call.result.kind, open_call.result.op) == (IDENTIFIER, "fd")
    mmap_call = c_facts.calls[1]
    assert (mmap_call.result.kind, mmap_call.result.op) == (IDENTIFIER, "p")
    assert mmap_call.args[0].op == "NULL" and mmap_call.args[3].op == "MAP_SHARED"


def test_macro_expanded_msync(c_facts: FileFacts) -> None:
    msync = c_facts.calls[-1]
    assert msync.macro == "SYNC_PAGE"
    assert (msync.span.line, msync.span.column, msync.span.end_column) == (18, 13, 28)
    pointer, length, sync = msync.args
    assert (pointer.kind, pointer.op, [c.op for c in pointer.children]) == (BINARY, "+", ["p", "i"])
    assert (length.kind, length.value) == (INT, 4096)
    assert sync.value == 4   # MS_SYNC, spelled inside the macro's body


def test_assignments(c_facts: FileFacts) -> None:
    found = [(a.target.op, a.op, a.value.op if a.value else None, a.span.line, a.loops) for a in c_facts.assignments]
    assert ("by_name", "=", BRACES, 7, ()) in found     # a table: a brace list of its items
    assert ("flags", "=", "O_RDWR", 10, ()) in found
    assert ("flags", "|=", "O_CREAT", 11, ()) in found
    assert ("i", "=", "", 14, ()) in found          # the init clause is outside the loop
    assert ("i", "++", None, 14, (0,)) in found
    assert ("n", "--", None, 20, (2,)) in found
    cast = next(a.value for a in c_facts.assignments if a.target.op == "p")
    assert (cast.kind, cast.op) == (CAST, "char *")


def test_field_bindings_designated_and_positional(c_facts: FileFacts) -> None:
    assert [(b.field, b.function, b.span.line, b.table) for b in c_facts.field_bindings] == [
        ("queue", "q", 7, "by_name"), ("queue", "q", 8, "by_position"), ("flush", "q", 8, "by_position")]


def test_comments_one_entry_per_line_that_may_hold_a_directive(c_facts: FileFacts) -> None:
    assert c_facts.comments == ((15, "/* two-line comment: mmaplint:"),)


CPP_CODE = """\
#include <string>
#include <vector>
namespace store {
struct Mapping {
    std::vector<char *> pages;
    void flush(int n) { sync(n); this->sync(n); }
    void sync(int n);
};
void Mapping::sync(int n) {
    for (char *page : pages)
        n += page != nullptr;
    auto each = [&](int k) { flush(k); };
    each(n);
}
}
void use(store::Mapping *m) { m->flush(1); std::string name; name += "x"; }
"""


def test_cpp_methods_range_for_and_calls(tmp_path: Path) -> None:
    facts = parse(tmp_path, CPP_CODE, "t.cpp")
    # the lambda `each` holds is a function of its own, within the method it is written in
    assert [f.qualified for f in facts.functions] == [
        "store::Mapping::flush", "store::Mapping::sync.each", "store::Mapping::sync", "use"]
    assert facts.functions[1].params == ("k",)
    assert [(loop.kind, loop.span.line) for loop in facts.loops] == [("range-for", 10)]
    calls = [(c.callee, c.function, c.via_field, c.target) for c in facts.calls]
    assert calls == [
        ("sync", "store::Mapping::flush", False, "store::Mapping::sync"),
        ("sync", "store::Mapping::flush", True, "store::Mapping::sync"),
        ("flush", "store::Mapping::sync.each", False, "store::Mapping::flush"),   # inside the lambda
        ("each", "store::Mapping::sync", False, None),
        ("flush", "use", True, "store::Mapping::flush"),
    ]
    # the object of m->flush(1) and of this->sync(); none for a call on the implicit this
    assert [c.receiver and c.receiver.text for c in facts.calls] == [None, "this", None, None, "m"]
    element = next(a for a in facts.assignments if a.op == RANGE_ELEMENT)
    assert (element.target.op, element.value.kind, element.value.op, element.loops) == ("page", IDENTIFIER, "pages", (0,))
    plus = [(a.target.op, a.value.text, a.loops) for a in facts.assignments if a.op == "+="]
    assert plus == [("n", "page != nullptr", (0,)), ("name", '"x"', ())]   # the second is std::string's operator+=


def test_member_result(tmp_path: Path) -> None:
    facts = parse(tmp_path, "#include <sys/mman.h>\nstruct m { void *base; };\n"
                            "void f(struct m *m) { m->base = mmap(0, 1, 1, 1, 1, 0); }\n")
    result = facts.calls[0].result
    assert (result.kind, result.op, result.children[0].op) == (MEMBER, "base", "m")


def test_member_named_through_a_macro_is_spelled_out(tmp_path: Path) -> None:
    """lmdb's `#define mp_pgno mp_p.p_pgno`: the store still writes through np."""
    facts = parse(tmp_path, "struct pg { struct { long p_pgno; } mp_p; };\n#define mp_pgno mp_p.p_pgno\n"
                            "typedef struct pg *PG;\nvoid f(PG np, struct pg s) { np->mp_pgno = 1; s.mp_pgno = 2; }\n")
    assert [a.target.text for a in facts.assignments] == ["np->mp_p.p_pgno", "s.mp_p.p_pgno"]
    assert [address_base(a.target) and address_base(a.target).op for a in facts.assignments] == ["np", None]


def test_syntax_error_is_a_frontend_error(tmp_path: Path) -> None:
    with pytest.raises(FrontendError, match=r"^clang: \d+ errors?; first: 1:9: expected parameter declarator$"):
        parse(tmp_path, "void f( { }\n")


def test_missing_header_is_a_frontend_error(tmp_path: Path) -> None:
    with pytest.raises(FrontendError, match=r"'nowhere\.h' file not found"):
        parse(tmp_path, '#include "nowhere.h"\nint x;\n')


def test_warnings_are_fine(tmp_path: Path) -> None:
    facts = parse(tmp_path, "int f(void) { int unused; return 1 / 0; }\n")
    assert [f.name for f in facts.functions] == ["f"]


def test_builtin_headers_found_without_clang() -> None:
    directory = builtin_include_dir()
    assert directory is not None and (Path(directory) / "stddef.h").is_file()


def test_include_dirs_and_defines(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "cfg.h").write_text("#define FLAGS O_RDWR\n")
    facts = parse(tmp_path, '#include <fcntl.h>\n#include "cfg.h"\nint g(void) { return open(IDENTIFIER, FLAGS); }\n',
                  include_dirs=(str(tmp_path / "inc"),), defines=('IDENTIFIER="x"',))
    assert [(a.kind, a.op) for a in facts.calls[0].args] == [(IDENTIFIER, "IDENTIFIER"), (IDENTIFIER, "FLAGS")]


def test_compile_args_replace_the_defaults(tmp_path: Path) -> None:
    code = "#include <fcntl.h>\nint g(void) { return O_DSYNC; }\n"
    with pytest.raises(FrontendError, match="O_DSYNC"):   # ISO C hides O_DSYNC; GNU defaults show it
        parse(tmp_path, code, compile_args=("-x", "c", "-std=c11"))
    facts = parse(tmp_path, code)
    assert facts.functions[0].name == "g"


def test_non_utf8_source(tmp_path: Path) -> None:
    facts = parse(tmp_path, b"// caf\xe9 NOLINT\nint f(void) { return 0; }\n")
    assert facts.comments == ((1, "// caf\ufffd NOLINT"),)


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_line_endings_give_the_same_spans(tmp_path: Path, newline: str) -> None:
    def spans(facts: FileFacts) -> list[tuple[int, int, int, int]]:
        found = [*facts.functions, *facts.loops, *facts.calls, *facts.assignments]
        return [(s.line, s.column, s.end_line, s.end_column) for s in (fact.span for fact in found)]

    unix = parse(tmp_path, C_CODE)
    other = parse(tmp_path, C_CODE.replace("\n", newline), name="other.c")
    assert spans(other) == spans(unix)
    assert [call.macro for call in other.calls] == [call.macro for call in unix.calls]


def test_callee_name_split_by_a_line_splice(tmp_path: Path) -> None:
    facts = parse(tmp_path, "#include <sys/mman.h>\nvoid f(void *p) { ms\\\nync(p, 1, MS_SYNC); }\n")
    assert [(call.callee, call.macro, call.span.line) for call in facts.calls] == [("msync", None, 2)]


def test_loop_conditions_and_guards(tmp_path: Path) -> None:
    facts = parse(tmp_path, "void g(void); void k(void);\n"
                            "void f(int argc, int n) {\n  for (int i = 1; i < argc; i++) g();\n"
                            "  for (;; n++) { if (n % 8 == 0) { k(); } else g(); }\n"
                            "  while (n-- > 0) g();\n  do g(); while (n < 3);\n}\n")
    assert [loop.condition.text if loop.condition else None for loop in facts.loops] == [
        "i < argc", None, "n-- > 0", "n < 3"]
    assert [(g.condition.text, g.span.line, g.preprocessor) for g in facts.guards] == [("n % 8 == 0", 4, False)]


def test_parameters_in_order_and_wrappers(tmp_path: Path) -> None:
    facts = parse(tmp_path, "#include <unistd.h>\n"
                            "static inline ssize_t put(int fd, const void *buf, size_t n) { return write(fd, buf, n); }\n"
                            "static long twice(int a, int) { return (long) put(a, 0, 0); }\n"
                            "static void none(void) { twice(1, 2); }\n"
                            "static int counts(int a) { a++; return a; }\n"
                            "static int two_calls(int a) { none(); return twice(a, 0); }\n")
    assert [(f.name, f.params, f.forwards) for f in facts.functions] == [
        ("put", ("fd", "buf", "n"), True), ("twice", ("a", ""), True), ("none", (), True),
        ("counts", ("a",), False), ("two_calls", ("a",), False)]


def test_returns_keep_their_value_and_function(tmp_path: Path) -> None:
    from test_frontend_treesitter import RETURNS
    facts = parse(tmp_path, RETURNS)
    assert [(r.function, r.value.text, r.span.line, r.span.column) for r in facts.returns] == [
        ("map", "0", 4, 26), ("map", "p == MAP_FAILED ? 0 : (char *)p + 1", 5, 5)]
    assert facts.returns[1].value.kind == COND


def test_enumerators_are_known_by_their_value(tmp_path: Path) -> None:
    """memhog's `enum { UNIT = 10*1024*1024 };` steps its loop by 10 MiB: the value is known."""
    facts = parse(tmp_path, "#include <sys/mman.h>\nenum { FIRST, UNIT = 10 << 20, NEXT };\n"
                            "void f(void *p, int n) { int unit = 1; msync(p, UNIT, n); msync(p, NEXT, unit); "
                            "msync(p, FIRST, MS_SYNC); }\n")
    args = [c.args for c in facts.calls if c.callee == "msync"]
    assert [a[1].value for a in args] == [10 << 20, (10 << 20) + 1, 0]
    assert [(a[2].op, a[2].value) for a in args[:2]] == [("n", None), ("unit", None)]   # variables stay unknown


def test_objects_made_as_written_call_their_constructor(tmp_path):
    # made with arguments as written: a call of the constructor, named like the class; not the
    # conversion the compiler adds for an argument, nor a copy
    facts = parse(tmp_path, "#include <string>\n"
                            "struct Name { Name(const char *s); Name(const Name &other); };\n"
                            "void take(Name n);\n"
                            "void f() {\n"
                            "  Name a(\"x\"); Name b{\"y\"}; Name *c = new Name(\"z\");\n"
                            "  take(\"w\"); Name d = a; std::string s(\"v\"); take(Name(\"u\"));\n"
                            "}", name="t.cpp")
    made = [(c.callee, c.target, c.span.line, c.span.column, c.result and c.result.op) for c in facts.calls
            if c.callee != "take"]
    assert made == [("Name", "Name::Name", 5, 8, "a"), ("Name", "Name::Name", 5, 21, "b"),
                    ("Name", "Name::Name", 5, 43, None), ("basic_string", "std::__cxx11::basic_string::basic_string", 6, 38, "s"),
                    ("Name", "Name::Name", 6, 51, None)]


def test_a_constructor_initialiser_list_sets_members(tmp_path):
    facts = parse(tmp_path, "#include <fcntl.h>\n#include <string>\n"
                            "struct Out { int fd_; std::string name_; long n_;\n"
                            "  Out(const char *p, long n) : fd_(::open(p, 0)), name_(p), n_{n} {} };\n", name="t.cpp")
    # one value in parentheses sets the member (a class-type member made from it takes it);
    # braces set nothing, as tree-sitter reads them
    assert [(a.target.op, a.value.text, a.function) for a in facts.assignments] == [
        ("fd_", "::open(p, 0)", "Out::Out"), ("name_", "p", "Out::Out")]
    assert next(c for c in facts.calls if c.callee == "open").result.op == "fd_"


def test_header_macros_reach_files_only_tree_sitter_parses(tmp_path: Path) -> None:
    """A header clang parses lends its function-like macros, as the tolerant frontend reads
    them, to a source only the tolerant frontend can parse (the build has not made the header
    it includes): the sampling loop waits in `pause()`, the logging loop flushes per line."""
    from mmaplint.analyzer.engine import Settings, analyze
    (tmp_path / "sampling.h").write_text(
        "#include <stdio.h>\n#include <unistd.h>\n"
        "#define next_sample() pause()\n"
        "#define log_line(fp, text) do { fputs(text, fp); fflush(fp); } while (0)\n"
        "long read_counter(void);\n")
    (tmp_path / "sampler.c").write_text(
        '#include "version.h"\n#include "sampling.h"\n'
        "void sample_loop(FILE *log, int count) {\n"
        '    do { fprintf(log, "%ld\\n", read_counter()); fflush(log); next_sample(); } while (--count);\n'
        "}\n"
        "void log_all(FILE *log, const char **lines, int n) {\n"
        "    for (int i = 0; i < n; i++)\n"
        "        log_line(log, lines[i]);\n"
        "}\n")
    report = analyze([str(tmp_path)], Settings(frontend="auto", jobs=1))
    assert [(Path(f.span.path).name, f.span.line, f.rule) for f in report.findings] == [("sampler.c", 8, "MML005")]


def test_an_assignment_used_as_a_value_keeps_its_operands(tmp_path: Path) -> None:
    """`(c = getc(in)) != EOF` reads getc and in, as the tree-sitter frontend reads it."""
    facts = parse(tmp_path, "#include <stdio.h>\n"
                            "int f(FILE *in, int n) {\n"
                            "  int c, x = 0;\n"
                            "  while ((c = getc(in)) != EOF) x++;\n"
                            "  while ((n -= 2) > 0) x++;\n"
                            "  return x;\n"
                            "}\n")

    def shape(e):
        return (e.kind, e.op, *(shape(c) for c in e.children))
    first, second = (loop.condition.children[0] for loop in facts.loops)
    assert shape(first) == (OTHER, "=", (IDENTIFIER, "c"), (CALL, "getc", (IDENTIFIER, "in")))
    assert shape(second)[:3] == (OTHER, "-=", (IDENTIFIER, "n"))
