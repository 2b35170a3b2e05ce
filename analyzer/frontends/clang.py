"""The precise frontend: facts from libclang's AST (see the frontend contract in facts.py).

A file clang cannot compile (a syntax error, a missing header) raises
FrontendError so that the driver falls back to tree-sitter: a partial AST
would silently drop facts.
"""
from __future__ import annotations

from functools import cache

from clang.cindex import Diagnostic, Index, SourceLocation, SourceRange, TranslationUnit, TranslationUnitLoadError

from ..discovery import HEADERS, source_suffix
from ..facts import FileFacts, FrontendError, FrontendOptions
from ..frequency import parameter_guards, relevant_guards
from ..suppressions import may_hold_directive
from . import clang_native as native
from .clang_includes import builtin_include_dir
from .clang_walk import FactWalker
from .treesitter import with_macros

_GNU_DEFAULTS = {"c": ["-x", "c", "-std=gnu17"], "c++": ["-x", "c++", "-std=gnu++20"]}
# Warnings are never facts; -w also keeps a -Werror from the build from turning them into errors.
_QUIET = ["-w"]


@cache
def _index() -> Index:
    return Index.create()


def compile_arguments(options: FrontendOptions) -> list[str]:
    """The clang arguments for one file: its compile_commands.json entry, else GNU defaults."""
    if options.compile_args is not None:
        arguments = list(options.compile_args)
    else:
        arguments = [*_GNU_DEFAULTS[options.language],
                     *(f"-I{directory}" for directory in options.include_dirs),
                     *(f"-D{define}" for define in options.defines)]
    builtins = builtin_include_dir()
    return [*arguments, *(["-isystem", builtins] if builtins else []), *_QUIET]


def _reason(options: FrontendOptions) -> str:
    origin = ("compile_commands.json entry" if options.compile_args is not None
              else "GNU defaults, no compile_commands.json entry")
    return f"clang: {origin}" + ("" if builtin_include_dir() else " (no builtin headers found)")


def _check_errors(tu: TranslationUnit) -> None:
    """Fatal diagnostics anywhere and errors in the file itself make its AST unusable."""
    errors = [diagnostic for diagnostic in tu.diagnostics
              if diagnostic.severity >= Diagnostic.Fatal
              or (diagnostic.severity == Diagnostic.Error and native.is_main_file_location(diagnostic.location))]
    if errors:
        first = errors[0]
        noun = "error" if len(errors) == 1 else "errors"
        raise FrontendError(f"clang: {len(errors)} {noun}; first: "
                            f"{first.location.line}:{first.location.column}: {first.spelling}")


def _comments(tu: TranslationUnit, path: str, source: bytes) -> list[tuple[int, str]]:
    """(line, text) for each line a comment covers that may hold a suppression directive,
    from clang's lexer."""
    if not source:
        return []
    main = tu.get_file(path)
    whole = SourceRange.from_locations(SourceLocation.from_offset(tu, main, 0),
                                       SourceLocation.from_offset(tu, main, len(source)))
    found: list[tuple[int, str]] = []
    with native.Tokens(tu, whole) as tokens:
        for index, kind in enumerate(tokens.kinds()):
            if kind == native.COMMENT:
                start, end = tokens.extent(tokens[index])
                text = source[start[2]:end[2]].decode("utf-8", "replace")
                found.extend((start[0] + index, part.rstrip("\r")) for index, part in enumerate(text.split("\n"))
                             if may_hold_directive(part))
    return found


def _line_count(source: bytes) -> int:
    return source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0)


def parse(path: str, source: bytes, options: FrontendOptions) -> FileFacts:
    try:
        tu = _index().parse(path, compile_arguments(options), unsaved_files=[(path, source)])
    except TranslationUnitLoadError as failure:
        raise FrontendError(f"clang: cannot parse {path}: {failure}") from None
    _check_errors(tu)
    walker = FactWalker(tu, path, source, options)
    walker.walk()
    guards = relevant_guards(walker.guards, walker.calls, walker.assignments, walker.functions)
    facts = FileFacts(
        path=path,
        frontend="clang",
        reason=_reason(options),
        language=options.language,
        functions=tuple(walker.functions),
        loops=tuple(walker.loops),
        calls=tuple(walker.calls),
        assignments=tuple(walker.assignments),
        returns=tuple(walker.returns),
        field_bindings=tuple(walker.field_bindings),
        classes=tuple(walker.classes),
        constructs=tuple(sorted(walker.constructs)) if options.language == "c++" else (),
        templates=tuple(walker.templates), template_uses=tuple(dict.fromkeys(walker.template_uses)),
        guards=guards, parameter_guards=parameter_guards(walker.guards, guards, walker.functions),
        branches=tuple(walker.branches), alternatives=tuple(walker.alternatives),
        bare_returns=tuple(walker.bare_returns),
        comments=tuple(_comments(tu, path, source)),
        lines=_line_count(source),
        includes=tuple(sorted({inclusion.include.name for inclusion in tu.get_includes()})),
    )
    return with_macros(facts, source, options) if source_suffix(path) in HEADERS else facts
