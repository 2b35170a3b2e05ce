"""Models: what a function whose body mmaplint does not analyze does, as data.

A model says that a call of one function is a call of a C library function the rules read,
with arguments made of the call's own (`$0`, `$1`, ...) and constants:

    [tool.mmaplint.models]
    xfopen = "fopen"                      # the same arguments; it returns fopen's stream
    db_sync = "fsync($0)"                 # db_sync(h) syncs the descriptor it is handed
    log_open = "open($0, O_WRONLY | O_APPEND | O_DSYNC)"

A call of a modelled function that the program does not define is, for every rule, an
instance of the call its model names (summaries.py), as a wrapper the program defines is
through its summary.  Models come from three places, later ones overriding earlier ones by
name: the built-in set (libc's own variants: open64 is open, fopen64 is fopen, ...), plugins
(the `mmaplint.models` entry point group: a mapping of names to specifications), and the
project's configuration.  `mmaplint models` lists those in force and where each came from.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from . import registry
from .errors import UserError
from .facts import CALL, IDENTIFIER, Expr, strip

MODEL_GROUP = "mmaplint.models"

# The C library's own variants of the calls the rules read.
BUILTIN = {
    "open64": "open", "openat64": "openat", "__open_2": "open", "__open64_2": "open",
    "creat": "open($0, O_WRONLY | O_CREAT | O_TRUNC, $1)", "creat64": "open($0, O_WRONLY | O_CREAT | O_TRUNC, $1)",
    "mmap64": "mmap", "fopen64": "fopen", "freopen64": "freopen", "pwrite64": "pwrite", "pwritev64": "pwritev",
    "ftruncate64": "ftruncate", "lseek64": "lseek", "fallocate64": "fallocate",
    "posix_fallocate64": "posix_fallocate", "fflush_unlocked": "fflush", "fputs_unlocked": "fputs",
    "fputc_unlocked": "fputc", "putc_unlocked": "putc", "fwrite_unlocked": "fwrite",
    "fgets_unlocked": "fgets", "fgetc_unlocked": "fgetc", "getc_unlocked": "getc", "fread_unlocked": "fread",
}


class ModelError(UserError):
    """A model that cannot be used; one line for the user."""


@dataclass(frozen=True)
class Model:
    name: str                        # the function modelled
    callee: str                      # the C library function a call of it is
    args: tuple[Expr, ...] | None    # `$N` names the call's N-th argument; None: the call's own arguments
    spec: str                        # as written
    origin: str                      # "built-in", a configuration file, or a plugin's distribution

    def arguments(self, given: tuple[Expr, ...] | None) -> tuple[Expr, ...] | None:
        """The model's call's arguments, for a call of the modelled function with these."""
        if self.args is None or given is None:
            return given
        return tuple(_bind(template, given) for template in self.args)


def _bind(template: Expr, given: tuple[Expr, ...]) -> Expr:
    """The template with each `$N` replaced by the N-th argument given (kept as written when
    the call has fewer)."""
    if template.kind == IDENTIFIER and template.op.startswith("$") and template.op[1:].isdigit():
        index = int(template.op[1:])
        return given[index] if index < len(given) else template
    if not template.children:
        return template
    children = tuple(_bind(child, given) for child in template.children)
    return Expr(template.kind, template.text, template.op, children, template.value)


def parse(name: str, spec: object, origin: str) -> Model:
    """A model from its specification: a function's name, or a call written in C."""
    if not isinstance(spec, str) or not name.isidentifier():
        raise ModelError(f"{origin}: model {name} must map a function name to a call as a string, "
                         "e.g. \"fsync($0)\"")
    from .frontends.ts_expr import Converter      # tree-sitter, only when there are models
    from .frontends.ts_grammar import grammar

    source = f"void *__mmaplint_model = {spec};".encode()
    tree = grammar("c").parser.parse(source)
    declarator = tree.root_node.named_children[0].child_by_field_name("declarator") \
        if tree.root_node.named_child_count == 1 else None
    value = declarator.child_by_field_name("value") if declarator is not None else None
    expr = strip(Converter(source).expr(value)) if value is not None and not tree.root_node.has_error else None
    if expr is not None and expr.kind == IDENTIFIER:
        return Model(name, expr.op, None, spec, origin)
    if expr is None or expr.kind != CALL:
        raise ModelError(f"{origin}: model {name} = {spec!r} is not a function name or a call")
    return Model(name, expr.op, expr.children, spec, origin)


def load(configured: dict[str, object], config_source: str | None) -> dict[str, Model]:
    """The models in force: built-in, then plugins', then the configuration's."""
    models = {name: parse(name, spec, "built-in") for name, spec in BUILTIN.items()}
    for ep in sorted(registry.entry_points(MODEL_GROUP), key=lambda e: (e.name, e.value)):
        origin = ep.dist.name if ep.dist is not None else ep.value
        try:
            pack = ep.load()
        except Exception as exc:      # a plugin's import error is one line, not a traceback
            raise ModelError(f"cannot load models {ep.name} from {origin}: {exc}") from None
        models.update(_pack(pack() if callable(pack) else pack, origin))
    models.update(_pack(configured, config_source or "configuration"))
    return models


def _pack(pack: object, origin: str) -> Iterable[tuple[str, Model]]:
    if not isinstance(pack, dict):
        raise ModelError(f"{origin}: models must be a table of function names to calls")
    return [(name, parse(name, spec, origin)) for name, spec in pack.items()]


def by_callee(models: dict[str, Model]) -> dict[str, list[Model]]:
    """The models of each C library function."""
    found: dict[str, list[Model]] = {}
    for model in models.values():
        found.setdefault(model.callee, []).append(model)
    return found
