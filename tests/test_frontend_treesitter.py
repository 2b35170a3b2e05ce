"""The tree-sitter frontend turns small C and C++ sources into the facts of
the frontend contract."""
from __future__ import annotations

import pytest

from mmaplint.analyzer.facts import (BINARY, CALL, CAST, COND, INT, MEMBER, IDENTIFIER, OTHER,
                                     RANGE_ELEMENT, STRING, SUBSCRIPT, UNARY, Expr, FrontendError, FrontendOptions)
from mmaplint.analyzer.frontends import treesitter

WANTED = frozenset({"open", "msync", "mmap", "fopen", "printf", "SYNC_WANTED"})


def read(source: str | bytes, language: str = "c", wanted: frozenset[str] = WANTED):
    data = source.encode() if isinstance(source, str) else source
    return treesitter.parse("t.c", data, FrontendOptions(argument_callees=wanted, language=language))


def call(facts, callee: str, nth: int = 0):
    return [c for c in facts.calls if c.callee == callee][nth]


def shape(expr: Expr | None):
    """Kind/op/value tree of an expression, without texts."""
    if expr is None:
        return None
    if expr.kind == INT:
        return (INT, expr.value)
    if not expr.children:
        return (expr.kind, expr.op)
    return (expr.kind, expr.op, *(shape(child) for child in expr.children))


def test_calls_functions_loops_and_spans():
    facts = read(
        "int f(int n) {\n"
        "  for (int i = init(); i < limit(n); i++) {\n"
        "    while (more()) { step(i); }\n"
        "  }\n"
        "  return done(check(n));\n"
        "}\n")
    assert [(f.name, f.qualified) for f in facts.functions] == [("f", "f")]
    assert facts.functions[0].locals == frozenset({"n", "i"})
    assert [(loop.id, loop.kind, loop.function, loop.span.line) for loop in facts.loops] == [
        (0, "for", "f", 2), (1, "while", "f", 3)]
    assert [(c.callee, c.loops) for c in facts.calls] == [
        ("init", ()), ("limit", (0,)), ("more", (0, 1)), ("step", (0, 1)),
        ("done", ()), ("check", ())]
    step = call(facts, "step")
    assert (step.span.line, step.span.column, step.span.end_line, step.span.end_column) == (3, 22, 3, 28)
    assert step.function == "f" and step.args is None and step.macro is None
    assert facts.lines == 6 and facts.frontend == "tree-sitter" and facts.language == "c"


def test_do_while_condition_is_inside_and_loops_nest():
    facts = read("void g(void) { do { for (;;) a(); } while (b()); c(); do d(); while (0); }")
    assert [(loop.id, loop.kind) for loop in facts.loops] == [(0, "do"), (1, "for")]
    assert [(c.callee, c.loops) for c in facts.calls] == [
        ("a", (0, 1)), ("b", (0,)), ("c", ()), ("d", ())]     # do ... while (0) runs once


def test_callee_forms_and_via_field():
    facts = read("void h(struct ops *o, struct s v) {\n"
                 "  o->queue(1); v.flush(); (*fp)(2); fp(3); tbl[i](4);\n"
                 "}")
    assert [(c.callee, c.via_field) for c in facts.calls] == [
        ("queue", True), ("flush", True), ("fp", False), ("fp", False), ("tbl", False)]
    assert [c.receiver and c.receiver.text for c in facts.calls] == ["o", "v", None, None, None]


def test_arguments_only_for_wanted_callees_and_flags_keep_names():
    facts = read('void o(const char *p) { int fd = open(p, O_RDWR | O_DSYNC, 0644); close(fd); }')
    opened = call(facts, "open")
    assert shape(opened.args[1]) == (BINARY, "|", (IDENTIFIER, "O_RDWR"), (IDENTIFIER, "O_DSYNC"))
    assert opened.args[1].text == "O_RDWR | O_DSYNC"
    assert shape(opened.args[2]) == (INT, 0o644)
    assert call(facts, "close").args is None


def test_results_through_casts_and_parentheses():
    facts = read("void m(struct map *m) {\n"
                 "  int fd; fd = open(path, 0);\n"
                 "  m->base = mmap(0, 4096, 3, 1, fd, 0);\n"
                 "  char *p = (char *)(mmap(0, 1, 3, 1, fd, 0));\n"
                 "  use(mmap(0, 2, 3, 1, fd, 0));\n"
                 "}")
    assert shape(call(facts, "open").result) == (IDENTIFIER, "fd")
    assert shape(call(facts, "mmap", 0).result) == (MEMBER, "base", (IDENTIFIER, "m"))
    assert shape(call(facts, "mmap", 1).result) == (IDENTIFIER, "p")
    assert call(facts, "mmap", 2).result is None


def test_expression_kinds():
    facts = read("void e(int *a, struct s *s) {\n"
                 "  printf(\"%d\", -x, ~0x10u, !y, *a, &s->len, a[2], c ? 1 : 2, (long)n,\n"
                 "         'A', 0b101, sizeof(int), 4096 * 2, f(1), i++);\n"
                 "}")
    args = call(facts, "printf").args
    assert [shape(arg) for arg in args] == [
        (STRING, ""), (UNARY, "-", (IDENTIFIER, "x")), (UNARY, "~", (INT, 0x10)), (UNARY, "!", (IDENTIFIER, "y")),
        (UNARY, "*", (IDENTIFIER, "a")), (UNARY, "&", (MEMBER, "len", (IDENTIFIER, "s"))),
        (SUBSCRIPT, "", (IDENTIFIER, "a"), (INT, 2)), (COND, "", (IDENTIFIER, "c"), (INT, 1), (INT, 2)),
        (CAST, "long", (IDENTIFIER, "n")), (INT, 65), (INT, 5), (OTHER, "sizeof"),
        (BINARY, "*", (INT, 4096), (INT, 2)), (CALL, "f", (INT, 1)), (UNARY, "++", (IDENTIFIER, "i"))]
    assert (args[2].value, args[12].value) == (~0x10, 8192)     # constants are folded
    assert [arg.text for arg in args[8:12]] == ["(long)n", "'A'", "0b101", "sizeof(int)"]


def test_assignments_compound_updates_and_declarators():
    facts = read("int flags = O_RDWR;\n"
                 "void a(int n) {\n"
                 "  int x = 1, *p = 0, y;\n"
                 "  for (int i = 0; i < n; i++) { flags |= O_DSYNC; x <<= 1; --n; }\n"
                 "  n = (x = 3);\n"
                 "}")
    got = [(shape(a.target), a.op, shape(a.value), a.function, a.loops) for a in facts.assignments]
    assert got == [
        ((IDENTIFIER, "flags"), "=", (IDENTIFIER, "O_RDWR"), None, ()),
        ((IDENTIFIER, "x"), "=", (INT, 1), "a", ()),
        ((IDENTIFIER, "p"), "=", (INT, 0), "a", ()),
        ((IDENTIFIER, "i"), "=", (INT, 0), "a", ()),
        ((IDENTIFIER, "i"), "++", None, "a", (0,)),
        ((IDENTIFIER, "flags"), "|=", (IDENTIFIER, "O_DSYNC"), "a", (0,)),
        ((IDENTIFIER, "x"), "<<=", (INT, 1), "a", (0,)),
        ((IDENTIFIER, "n"), "--", None, "a", (0,)),
        ((IDENTIFIER, "n"), "=", (OTHER, "=", (IDENTIFIER, "x"), (INT, 3)), "a", ()),
        ((IDENTIFIER, "x"), "=", (INT, 3), "a", ()),
    ]


def test_field_bindings_from_designated_initialisers():
    facts = read("static const struct backend mmap_backend = {\n"
                 "  .name = \"mmap\", .queue = mmap_queue, .flush = &mmap_flush, .sync = sync_fn,\n"
                 "};")
    # a function's address binds it as its name does; a string is no function
    assert [(b.field, b.function, b.span.line) for b in facts.field_bindings] == [
        ("queue", "mmap_queue", 2), ("flush", "mmap_flush", 2), ("sync", "sync_fn", 2)]


def test_a_class_with_member_functions_is_no_aggregate_a_brace_list_fills_in_order():
    facts = read("struct Plain { char *base; long len; };\n"
                 "struct Made { Made(char *p, long n); char *base; long len; };\n"
                 "void f(char *p, long n) { Plain a{p, n}; Made b{p, n}; }", language="c++")
    assert [a.target.text for a in facts.assignments if a.target.kind == MEMBER] == ["a.base", "a.len"]


def test_comments_one_entry_per_line_that_may_hold_a_directive():
    facts = read("int x; // mmaplint: ignore[msync-loop]\n"
                 "/* first\n"
                 "   NOLINT(mmaplint-*) */ int y;\n"
                 "// nothing to read here\n")
    assert facts.comments == ((1, "// mmaplint: ignore[msync-loop]"), (3, "   NOLINT(mmaplint-*) */"))


def test_function_like_macro_expands_at_invocation():
    facts = read("#define SYNC_PAGE(x) msync((x), 4096, MS_SYNC)\n"
                 "void s(char *p, int n) {\n"
                 "  for (int i = 0; i < n; i++)\n"
                 "    SYNC_PAGE(p + i * 4096);\n"
                 "}")
    assert [c.callee for c in facts.calls] == ["msync"]
    synced = facts.calls[0]
    assert synced.macro == "SYNC_PAGE" and synced.loops == (0,)
    assert (synced.span.line, synced.span.column, synced.span.end_column) == (4, 5, 27)
    assert [shape(arg) for arg in synced.args] == [
        (BINARY, "+", (IDENTIFIER, "p"), (BINARY, "*", (IDENTIFIER, "i"), (INT, 4096))),
        (INT, 4096), (IDENTIFIER, "MS_SYNC")]
    assert synced.args[0].text == "p + i * 4096"


def test_nested_and_variadic_macros_with_loops_and_results():
    facts = read("#define SYNC_ONE(a) msync((a), 4096, MS_SYNC)\n"
                 "#define SYNC_ALL(b, n) for (int j = 0; j < (n); j++) SYNC_ONE((b) + j * 4096)\n"
                 "#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)\n"
                 "#define OPEN_RW(path) open((path), O_RDWR)\n"
                 "#define BUMP(v) (v) += 2\n"
                 "void t(char *base) {\n"
                 "  SYNC_ALL(base, 8);\n"
                 "  LOG(\"%d %d\", 1, 2);\n"
                 "  int fd = OPEN_RW(\"f\");\n"
                 "  BUMP(fd);\n"
                 "}")
    assert [(loop.id, loop.kind, loop.span.line) for loop in facts.loops] == [(0, "for", 7)]
    synced = call(facts, "msync")
    assert synced.macro == "SYNC_ALL" and synced.loops == (0,) and synced.span.line == 7
    assert shape(synced.args[0]) == (
        BINARY, "+", (IDENTIFIER, "base"), (BINARY, "*", (IDENTIFIER, "j"), (INT, 4096)))
    logged = call(facts, "printf")
    assert [shape(arg) for arg in logged.args] == [(STRING, ""), (INT, 1), (INT, 2)]
    opened = call(facts, "open")
    assert opened.macro == "OPEN_RW" and shape(opened.result) == (IDENTIFIER, "fd")
    assert shape(opened.args[1]) == (IDENTIFIER, "O_RDWR")
    bumped = [a for a in facts.assignments if a.op == "+="]
    assert [(shape(a.target), a.span.line) for a in bumped] == [((IDENTIFIER, "fd"), 10)]
    assert {c.callee for c in facts.calls}.isdisjoint({"SYNC_ALL", "SYNC_ONE", "LOG", "OPEN_RW"})


def test_macro_named_in_argument_callees_gets_arguments():
    facts = read("#define SYNC_WANTED(p) sync_range((p), 1)\nvoid w(void) { SYNC_WANTED(q); }")
    assert [shape(arg) for arg in call(facts, "sync_range").args] == [(IDENTIFIER, "q"), (INT, 1)]


def test_unknown_macro_is_a_plain_call():
    facts = read("void u(void) { HEADER_MACRO(x); }")
    assert [(c.callee, c.macro) for c in facts.calls] == [("HEADER_MACRO", None)]


def test_syntax_errors_keep_intact_functions():
    facts = read("void good(void)\n{\n  for (;;) msync(p, 1, 0);\n}\n"
                 "void bad(void)\n{\n  if (x {\n    int y = ; @@\n}\n"
                 "void later(void)\n{\n  while (1) fflush(f);\n}\n")
    assert {"good", "later"} <= {f.qualified for f in facts.functions}
    synced, flushed = call(facts, "msync"), call(facts, "fflush")
    assert (synced.function, synced.loops) == ("good", (0,))
    assert (flushed.function, [facts.loops[i].kind for i in flushed.loops]) == ("later", ["while"])
    assert (flushed.span.line, flushed.span.column) == (12, 13)
    assert "syntax errors" in facts.reason
    # The parser is shared: a clean file after a broken one is parsed whole.
    clean = read("int a(void) { return 0; }\nint b(void) { return 1; }")
    assert [f.qualified for f in clean.functions] == ["a", "b"]


def test_non_utf8_bytes_do_not_crash():
    facts = read(b"/* caf\xe9 NOLINT */\nvoid n(void) { puts(\"\xff\xfe\"); printf(\"\xc3(\", 1); }\n")
    assert facts.comments == ((1, "/* caf\ufffd NOLINT */"),)
    assert [c.callee for c in facts.calls] == ["puts", "printf"]
    assert call(facts, "printf").args[0].kind == STRING


def test_unsupported_language_is_a_frontend_error():
    with pytest.raises(FrontendError):
        read("int x;", language="fortran")


CPP = """\
namespace ns {
class Mapping : public Base {
 public:
  Mapping() : fd_(-1) { init(); }
  ~Mapping() { close(fd_); }
  void flush_all(std::vector<char *> &pages) {
    for (auto *p : pages) { msync(p, 4096, MS_SYNC); }
    auto each = [&](int n) { while (n--) this->sync_one(n); };
    each(3);
  }
  template <class T> T get() { return load<T>(0); }
};
void Mapping::remap(int &len) {
  char *p = static_cast<char *>(mmap(0, len, 3, 1, fd_, 0));
  std::sort(a, b);
  obj.template call<int>(2);
}
}
struct S { void w() {} };
"""


def test_cpp_qualified_names_methods_and_lambdas():
    facts = read(CPP, language="c++")
    assert [(f.qualified, f.name) for f in facts.functions] == [
        ("ns::Mapping::Mapping", "Mapping"), ("ns::Mapping::~Mapping", "~Mapping"),
        ("ns::Mapping::flush_all", "flush_all"),
        # the lambda `each` holds: a function of its own, named within the method it is written in
        ("ns::Mapping::flush_all.each", "ns::Mapping::flush_all.each"),
        ("ns::Mapping::get", "get"), ("ns::Mapping::remap", "remap"), ("S::w", "w")]
    assert facts.functions[2].locals == frozenset({"pages", "p", "each"})
    assert (facts.functions[3].locals, facts.functions[3].params) == (frozenset({"n"}), ("n",))
    assert [(loop.kind, loop.function) for loop in facts.loops] == [
        ("range-for", "ns::Mapping::flush_all"), ("while", "ns::Mapping::flush_all.each")]
    assert [(c.callee, c.function, c.loops, c.via_field) for c in facts.calls] == [
        ("init", "ns::Mapping::Mapping", (), False),
        ("close", "ns::Mapping::~Mapping", (), False),
        ("msync", "ns::Mapping::flush_all", (0,), False),
        ("sync_one", "ns::Mapping::flush_all.each", (1,), True),
        ("each", "ns::Mapping::flush_all", (), False),
        ("load", "ns::Mapping::get", (), False),
        ("mmap", "ns::Mapping::remap", (), False),
        ("sort", "ns::Mapping::remap", (), False),
        ("call", "ns::Mapping::remap", (), True)]
    mapped = call(facts, "mmap")
    assert shape(mapped.result) == (IDENTIFIER, "p")
    assigned = [a for a in facts.assignments if a.target.op == "p"]
    assert [(a.op, shape(a.value)[:2], a.loops) for a in assigned] == [
        (RANGE_ELEMENT, (IDENTIFIER, "pages"), (0,)), ("=", (CAST, "char *"), ())]


def test_cpp_condition_declarations_are_initialisations():
    facts = read("void c() {\n  if (int fd = open(p, 0)) { use(fd); }\n  while (auto *e = next()) {}\n}",
                 language="c++")
    assert [(c.callee, shape(c.result), c.loops) for c in facts.calls] == [
        ("open", (IDENTIFIER, "fd"), ()), ("use", None, ()), ("next", (IDENTIFIER, "e"), (0,))]
    assert [(a.target.op, a.op, a.loops) for a in facts.assignments] == [("fd", "=", ()), ("e", "=", (0,))]


def test_gnu_named_variadic_macro():
    facts = read("#define TRACE(fmt, args...) printf(fmt, args)\nvoid v(void) { TRACE(\"%d\", 1); }")
    assert [shape(arg) for arg in call(facts, "printf").args] == [(STRING, ""), (INT, 1)]


def test_cpp_constructions_call_the_constructor_casts_and_deleted_members_are_neither_calls_nor_definitions():
    facts = read("struct File {\n"
                 "  File(const File &) = delete;\n"
                 "  File(const char *p) { fd = open(p, 0); }\n"
                 "};\n"
                 "void m() {\n"
                 "  File a(\"x\"); File b = File(\"y\");\n"
                 "  off_t at = (off_t)(size * 2); int r = -1;\n"
                 "  void *p = mmap(nullptr, 1, 3, 1, at, 0);\n"
                 "}", language="c++", wanted=WANTED | {"File"})
    assert [f.qualified for f in facts.functions] == ["File::File", "m"]
    # `File a("x")` and `File("y")` run File's constructor, as clang's facts say
    assert [(c.callee, c.span.column) for c in facts.calls] == [("open", 30), ("File", 8), ("File", 25), ("mmap", 13)]
    assert [(c.args[0].text, c.result and c.result.op) for c in facts.calls if c.callee == "File"] \
        == [('"x"', "a"), ('"y"', "b")]
    assert [a.target.op for a in facts.assignments] == ["fd", "b", "at", "r", "p"]
    by_target = {a.target.op: a.value for a in facts.assignments}
    assert shape(by_target["at"]) == (CAST, "off_t", (BINARY, "*", (IDENTIFIER, "size"), (INT, 2)))
    assert shape(by_target["r"]) == (UNARY, "-", (INT, 1)) and by_target["r"].value == -1
    assert shape(call(facts, "mmap").args[0]) == (OTHER, "")
    assert "a" in facts.functions[1].locals


def test_an_object_made_from_variables_is_a_construction_though_it_parses_as_a_prototype():
    # tree-sitter reads `View v(fd, off);` as a function declaration: a variable where a
    # parameter's type should be (a local, the file's, or a field in a method) makes it an object
    facts = read("static int g_fd;\n"
                 "struct View { View(int fd, long off); };\n"
                 "struct Scanner {\n"
                 "  int fd_;\n"
                 "  void scan(long off) { View v(fd_, off); }\n"
                 "};\n"
                 "void walk(long off) {\n"
                 "  View v(g_fd, off); View w{g_fd, 0};\n"
                 "  View proto(int, long); View named(int fd);\n"
                 "}", language="c++", wanted=WANTED | {"View"})
    assert [(c.callee, c.function, c.span.line, [a.text for a in c.args]) for c in facts.calls] == [
        ("View", "Scanner::scan", 5, ["fd_", "off"]), ("View", "walk", 8, ["g_fd", "off"]),
        ("View", "walk", 8, ["g_fd", "0"])]


def test_a_constructor_initialiser_list_sets_members_and_a_subscript_argument_makes_an_object():
    facts = read("struct Out { int fd_; long n_;\n"
                 "  Out(const char *p, long n) : fd_(open(p, 0)), n_{n} {} };\n"
                 "int main(int argc, char **argv) { Out o(argv[1], 2); return 0; }", language="c++",
                 wanted=WANTED | {"Out"})
    # `fd_(open(p, 0))` sets fd_ (the open's result); braces set nothing, as clang reads them
    assert [(a.target.op, a.value.text, a.function) for a in facts.assignments] == [("fd_", "open(p, 0)", "Out::Out")]
    assert call(facts, "open").result.op == "fd_"
    # `Out o(argv[1], 2);` parses as a prototype whose parameter `argv[1]` is an array of argv
    assert [(c.callee, [a.text for a in c.args], c.result.op) for c in facts.calls if c.callee == "Out"] == [
        ("Out", ["argv[1]", "2"], "o")]
    assert "Out" in facts.constructs


def test_spans_follow_clang_conventions():
    facts = read("void s(int n) {\n"
                 "  double t0 = now(), t1 = later();\n"
                 "  while (n--) step();\n"
                 "  while (busy()) ;\n"
                 "}")
    spans = [(a.target.op, a.span.column, a.span.end_column) for a in facts.assignments if a.op == "="]
    assert spans == [("t0", 3, 19), ("t1", 22, 33)]     # the first declarator starts at the type
    assert [(loop.span.end_line, loop.span.end_column) for loop in facts.loops] == [(3, 20), (4, 18)]


def test_if_zero_blocks_are_not_read_but_their_else_is():
    facts = read("void f(void) {\n#if 0\n  for (;;) fflush(stdout);\n#else\n  g();\n#endif\n"
                 "#if 1\n  h();\n#endif\n}\n")
    assert [c.callee for c in facts.calls] == ["g", "h"]
    assert facts.loops == ()


def test_groups_for_other_systems_are_dropped_as_a_linux_compiler_drops_them():
    facts = read("void f(void) {\n#ifdef _WIN32\n  a();\n#else\n  b();\n#endif\n"
                 "#if defined(__APPLE__) && HAVE_X\n  c();\n#elif FEATURE\n  d();\n#endif\n"
                 "#ifndef __linux__\n  e();\n#else\n  g();\n#endif\n"
                 "#if !defined(_MSC_VER) || FEATURE\n  h();\n#endif\n}\n")
    assert [c.callee for c in facts.calls] == ["b", "d", "g", "h"]


def test_ifdef_after_the_files_own_undef_is_dropped_and_before_it_is_not():
    facts = read("#ifdef TRACE\nvoid early(void) { a(); }\n#endif\n#undef TRACE\n"
                 "#ifdef TRACE\nvoid late(void) { b(); }\n#endif\n")
    assert [c.callee for c in facts.calls] == ["a"]


def test_groups_that_depend_on_the_build_are_guards_with_their_condition():
    facts = read("#ifdef SQLITE_DEBUG\nvoid dump(void) { for (;;) fflush(stdout); }\n#endif\n"
                 "void f(int verbose, int i) {\n  if (verbose) {\n    g();\n  } else {\n    h();\n  }\n"
                 "  if (i % 8 == 0) k();\n  if (i) m();\n}\n")
    guards = sorted((g.condition.text, g.preprocessor, g.span.line, g.span.end_line) for g in facts.guards)
    # `if (i) m();` can neither batch nor switch on a trace: not kept as a fact
    assert guards == [("SQLITE_DEBUG", True, 1, 3), ("i % 8 == 0", False, 10, 10), ("verbose", False, 5, 7)]


def test_loops_keep_their_condition():
    facts = read("void f(int argc, int n) {\n  for (int i = 1; i < argc; i++) a();\n"
                 "  while (n-- > 0) b();\n  do c(); while (n < 3);\n  for (;;) d();\n}\n")
    assert [loop.condition.text if loop.condition else None for loop in facts.loops] == [
        "i < argc", "n-- > 0", "n < 3", None]


def test_a_decorated_definition_with_an_ifdef_in_its_body_keeps_its_facts():
    # tree-sitter reads it as an old-style definition whose body ends at the #ifdef
    facts = read("void v_matchproto_(storage_init_f)\nsmp_mgt_init(struct stevedore *parent, int ac)\n{\n"
                 "\tint i;\n#ifdef HAVE_X\n\ti = personality(0);\n\tif (!(i & 1)) {\n\t\tg();\n\t}\n#endif\n"
                 "\tftruncate(fd, size);\n}\nvoid other(void) { h(); }\n")
    assert [(f.qualified, f.span.line, f.span.end_line) for f in facts.functions] == [
        ("smp_mgt_init", 1, 12), ("other", 13, 13)]
    assert [(c.callee, c.function) for c in facts.calls] == [
        ("personality", "smp_mgt_init"), ("g", "smp_mgt_init"), ("ftruncate", "smp_mgt_init"), ("h", "other")]


def test_an_initializer_with_ifdef_lines_keeps_its_bindings_and_what_follows():
    facts = read("struct check checks[] = {\n#ifdef __linux__\n    {.name = \"a\", .run = check_a},\n#endif\n"
                 "    {.name = 0, .run = 0}\n};\nint run(void) {\n    return checks[0].run();\n}\n")
    assert [(b.field, b.function) for b in facts.field_bindings] == [("run", "check_a")]
    assert [a.target.op for a in facts.assignments] == ["checks"]
    assert [f.qualified for f in facts.functions] == ["run"]


def test_a_definition_decorated_by_an_unknown_function_like_macro_keeps_its_facts():
    facts = read("static void v_matchproto_(storage_init_f)\nsmp_mgt_init(struct stevedore *parent, int ac)\n"
                 "{\n    msync(p, 1, MS_SYNC);\n}\nvoid other(void) { g(); }\n")
    assert [f.qualified for f in facts.functions] == ["smp_mgt_init", "other"]
    assert [(c.callee, c.function, c.span.line) for c in facts.calls] == [
        ("msync", "smp_mgt_init", 4), ("g", "other", 6)]


WRAPPERS = """
#include <unistd.h>
static inline ssize_t put(int fd, const void *buf, size_t n)
{
#if HAVE_PUT
    return write(fd, buf, n);
#else
    return pwrite(fd, buf, n, 0);
#endif
}
static long twice(int a, int) { return (long) put(a, 0, 0); }
static void none(void) { twice(1, 2); }
static int counts(int a) { a++; return a; }
static int two_calls(int a) { none(); return twice(a, 0); }
"""


def test_parameters_in_order_and_wrappers():
    facts = read(WRAPPERS)
    assert [(f.name, f.params, f.forwards) for f in facts.functions] == [
        ("put", ("fd", "buf", "n"), True), ("twice", ("a", ""), True), ("none", (), True),
        ("counts", ("a",), False), ("two_calls", ("a",), False)]


def test_every_call_gets_arguments():
    facts = read("void f(int k) { g(k, 1); }\n", wanted=frozenset({"*"}))
    assert [a.op or a.value for a in call(facts, "g").args] == ["k", 1]


def test_positional_tables_and_struct_fields():
    facts = read("typedef struct methods methods;\n"
                 "struct methods {\n"
                 "  int iVersion;\n"
                 "  int (*xClose)(void *), (*xRead)(void *, int);\n"
                 "#ifdef EXTRA\n"
                 "  int (*xExtra)(void);\n"
                 "#endif\n"
                 "  int (*xLast)(void);\n"
                 "};\n"
                 "static const methods kv = { 1, kv_close, kv_read };\n"
                 "struct methods many[] = { { 1, a_close }, { .xRead = b_read } };\n"
                 "int f(void) { static methods local = { 1, l_close }; return 0; }\n")
    assert [(s.names, s.fields) for s in facts.struct_fields] == [
        (("methods",), ("iVersion", "xClose", "xRead"))]     # up to the #ifdef: positions after it vary
    assert [(e.table, e.struct, e.position, e.function) for e in facts.table_entries] == [
        ("kv", "methods", 1, "kv_close"), ("kv", "methods", 2, "kv_read"), ("many", "methods", 1, "a_close")]
    assert [(b.field, b.function, b.table) for b in facts.field_bindings] == [("xRead", "b_read", "many")]


def test_type_aliases():
    facts = read("typedef struct dirty { long pgno; void *page; } dirty, *dirty_list;\n"
                 "typedef dirty_list lists[4];\n"
                 "typedef struct opaque *handle, handles[2];\n"
                 "typedef struct { int n; } anon_t, *anon_p;\n"
                 "typedef int (*callback)(dirty *);\n"
                 "typedef unsigned long count_t;\n")
    # a name for a struct, a pointer to one or an array of them; a function type names none
    assert facts.type_aliases == (("dirty_list", "dirty"), ("lists", "dirty_list"), ("handle", "opaque"),
                                  ("handles", "opaque"), ("anon_p", "anon_t"))


RETURNS = ("#include <sys/mman.h>\n"
           "static void *map(int fd, size_t n) {\n"
           "    void *p = mmap(0, n, PROT_READ, MAP_SHARED, fd, 0);\n"
           "    if (p == MAP_FAILED) return 0;\n"
           "    return p == MAP_FAILED ? 0 : (char *)p + 1;\n"
           "}\n"
           "static void done(void) { return; }\n")


def test_returns_keep_their_value_and_function():
    facts = read(RETURNS)
    assert [(r.function, r.value.text, r.span.line, r.span.column) for r in facts.returns] == [
        ("map", "0", 4, 26), ("map", "p == MAP_FAILED ? 0 : (char *)p + 1", 5, 5)]
    assert shape(facts.returns[1].value)[:2] == (COND, "")


def test_enumerators_are_file_scope_constants():
    """As clang knows an enumerator's value at each use (`enum { UNIT = 10*1024*1024 };`)."""
    from mmaplint.analyzer.program import Program
    facts = read("enum { FIRST, UNIT = 10 << 20, NEXT };\nenum e { A = 4 };\n")
    program = Program([facts])
    values = {name: program.constant(Expr(IDENTIFIER, name, name)) for name in ("FIRST", "UNIT", "NEXT", "A")}
    assert values == {"FIRST": 0, "UNIT": 10 << 20, "NEXT": (10 << 20) + 1, "A": 4}


def test_a_header_read_with_the_tree_its_language_test_made_has_the_facts_of_a_fresh_parse(monkeypatch):
    """Deciding whether a header is C or C++ parses it (ts_grammar.reads_as_cpp); the frontend
    reuses that tree rather than parsing the same bytes again.  Every fixture header, both
    languages: the facts are those of a tree made anew (field by field, in any order)."""
    from collections import Counter
    from pathlib import Path

    from mmaplint.analyzer.discovery import language_of
    from mmaplint.analyzer.frontends import ts_grammar

    def facts(path: Path, reuse: bool):
        source = path.read_bytes()
        language = language_of(str(path), source)
        if not reuse:
            monkeypatch.setattr(ts_grammar, "_LAST", {})
        found = treesitter.parse(str(path), source, FrontendOptions(argument_callees=WANTED, language=language))
        return {name: Counter(map(repr, value)) if isinstance(value, tuple) else value
                for name, value in vars(found).items()}

    headers = sorted((Path(__file__).parent / "fixtures").rglob("*.h"))
    assert headers
    for header in headers:
        assert facts(header, reuse=True) == facts(header, reuse=False), header
