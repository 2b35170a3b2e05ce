"""Where the compiler-builtin headers (stddef.h, stdarg.h, ...) live for libclang.

The libclang wheel ships without clang's resource directory, so on a machine
with only gcc every `#include <stddef.h>` is a fatal "file not found" and the
AST is partial.  A clang resource dir is preferred (its headers match the
parser); gcc's own include dir is the fallback, and works for the headers C
code includes from it.  Discovery runs subprocesses, so it happens once.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Iterator

from clang.cindex import conf

_MARKER = "stddef.h"


def _has_builtins(directory: Path) -> bool:
    return (directory / _MARKER).is_file()


def _ask(command: list[str]) -> str | None:
    """The first line a compiler prints, or None when it is missing or fails."""
    if shutil.which(command[0]) is None:
        return None
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=20, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[0] if lines else None


def _clang_resource_include() -> Path | None:
    answer = _ask(["clang", "-print-resource-dir"])
    return Path(answer) / "include" if answer else None


def _bundled_resource_includes() -> list[Path]:
    """A system LLVM keeps them next to libclang: lib/clang/<version>/include."""
    library_dir = Path(conf.lib._name).resolve().parent
    return sorted((library_dir / "clang").glob("*/include"), reverse=True)


def _compiler_include() -> Path | None:
    for compiler in dict.fromkeys([os.environ.get("CC", ""), "cc", "gcc"]):
        if compiler:
            answer = _ask([compiler, "-print-file-name=include"])
            if answer and os.path.isabs(answer):
                return Path(answer)
    return None


def _candidates() -> Iterator[Path | None]:
    """Best first; lazily, so that no compiler runs once one is found."""
    yield _clang_resource_include()
    yield from _bundled_resource_includes()
    yield _compiler_include()


@cache
def builtin_include_dir() -> str | None:
    """The directory to pass as -isystem, or None when no candidate holds stddef.h."""
    for candidate in _candidates():
        if candidate is not None and _has_builtins(candidate):
            return str(candidate)
    return None
