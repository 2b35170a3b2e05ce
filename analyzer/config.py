"""Project configuration: `[tool.mmaplint]` in pyproject.toml or `[mmaplint]` in setup.cfg,
the first found walking up from the working directory (pyproject.toml wins in one directory,
as with ruff).

    [tool.mmaplint]                       [mmaplint]
    select = ["MML001", "MML003"]         select = MML001, MML003
    ignore = ["MML004"]                   ignore = MML004
    per-file-ignores = {"tests/*" = ["MML001"]}
                                          per-file-ignores =
                                              tests/*: MML001
    include-dirs = ["include"]            include-dirs = include
    defines = ["USE_MMAP=1"]              defines = USE_MMAP=1
    frontend = "auto"                     frontend = auto
    compile-commands = "build"            compile-commands = build
    max-file-size = 4194304               max-file-size = 4194304
    parse-timeout = 60                    parse-timeout = 60
    parse-memory = 4096                   parse-memory = 4096
    exclude = [".*", "node_modules"]      exclude = .*, node_modules
    extend-exclude = ["third-party"]      extend-exclude = third-party
    respect-gitignore = true              respect-gitignore = true
    force-exclude = false                 force-exclude = false
    cache-dir = ".mmaplint_cache"         cache-dir = .mmaplint_cache
    [tool.mmaplint.models]                models =
    xfopen = "fopen"                          xfopen: fopen
    db_sync = "fsync($0)"                     db_sync: fsync($0)

(models.py says what a model is.)

Paths and exclude patterns are relative to the file's directory.
"""
from __future__ import annotations

import configparser
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import UserError


class ConfigError(UserError):
    """A configuration file that cannot be used; one line for the user."""


FRONTENDS = ("auto", "clang", "tree-sitter", "fast")
KEYS = {"select", "ignore", "per-file-ignores", "include-dirs", "defines", "frontend",
        "compile-commands", "max-file-size", "parse-timeout", "parse-memory", "exclude", "extend-exclude", "respect-gitignore",
        "force-exclude", "cache-dir", "models"}
LISTS = ("select", "ignore", "include-dirs", "defines", "exclude", "extend-exclude")
FLAGS = ("respect-gitignore", "force-exclude")


@dataclass(frozen=True)
class Config:
    source: str | None = None                       # the file it came from
    root: str = "."                                 # relative paths in it are against this
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    frontend: str | None = None
    compile_commands: str | None = None
    max_file_size: int | None = None
    parse_timeout: float | None = None              # seconds
    parse_memory: int | None = None                 # MiB
    exclude: tuple[str, ...] | None = None          # None: the defaults
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool | None = None
    force_exclude: bool | None = None
    cache_dir: str | None = None
    models: tuple[tuple[str, str], ...] = ()         # (function, what a call of it is)


def find_config(start: str | os.PathLike = ".") -> Config:
    here = Path(start).resolve()
    for directory in (here, *here.parents):
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            table = _pyproject_table(pyproject)
            if table is not None:
                return _build(table, pyproject)
        setup_cfg = directory / "setup.cfg"
        if setup_cfg.is_file():
            section = _setup_cfg_section(setup_cfg)
            if section is not None:
                return _build(section, setup_cfg)
    return Config()


def _pyproject_table(path: Path) -> dict | None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table ([tool.mmaplint])")
    table = tool.get("mmaplint")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: `tool.mmaplint` must be a table ([tool.mmaplint]), not {type(table).__name__}")
    return table


def _setup_cfg_section(path: Path) -> dict | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {' '.join(str(exc).split())}") from None
    if not parser.has_section("mmaplint"):
        return None
    section = dict(parser.items("mmaplint"))
    for key in LISTS:
        if key in section:
            section[key] = _split(section[key])
    for key in FLAGS:
        if key in section:
            value = section[key].strip().lower()
            section[key] = {"true": True, "yes": True, "1": True,
                            "false": False, "no": False, "0": False}.get(value, value)
    for key, form in (("per-file-ignores", "pattern: codes"), ("models", "function: call")):
        if key in section:
            table = {}
            for entry in section[key].splitlines():
                if entry.strip():
                    name, sep, value = entry.partition(":")
                    if not sep:
                        raise ConfigError(f"{path}: {key} entry {entry.strip()!r} lacks '{form}'")
                    table[name.strip()] = _split(value) if key == "per-file-ignores" else value.strip()
            section[key] = table
    return section


def _split(value: str) -> list[str]:
    return [v.strip() for v in value.replace("\n", ",").split(",") if v.strip()]


def _build(table: dict, source: Path) -> Config:
    unknown = set(table) - KEYS
    if unknown:
        raise ConfigError(f"{source}: unknown mmaplint option(s): {', '.join(sorted(unknown))}")

    def strings(key: str) -> tuple[str, ...]:
        value = table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{source}: {key} must be a list of strings")
        return tuple(value)

    frontend = table.get("frontend")
    if frontend is not None and frontend not in FRONTENDS:
        raise ConfigError(f"{source}: frontend must be one of {', '.join(FRONTENDS)}, not {frontend!r}")
    ignores = table.get("per-file-ignores", {})
    if not isinstance(ignores, dict) or not all(
            isinstance(codes, str) or isinstance(codes, list) and all(isinstance(c, str) for c in codes)
            for codes in ignores.values()):
        raise ConfigError(f"{source}: per-file-ignores must map path patterns to rule lists")
    def positive(key: str, kind: type, unit: str):
        value = table.get(key)
        if isinstance(value, str):      # setup.cfg values are text
            try:
                value = kind(value.strip())
            except ValueError:
                pass
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)
                                  or not 0 < value < float("inf")):
            raise ConfigError(f"{source}: {key} must be a positive {'whole ' if kind is int else ''}"
                              f"number of {unit}")
        return value

    size = positive("max-file-size", int, "bytes")
    for key in ("compile-commands", "cache-dir"):
        if key in table and not isinstance(table[key], str):
            raise ConfigError(f"{source}: {key} must be a path")
    for key in FLAGS:
        if key in table and not isinstance(table[key], bool):
            raise ConfigError(f"{source}: {key} must be true or false")
    database, cache = table.get("compile-commands"), table.get("cache-dir")
    models = table.get("models", {})
    if not isinstance(models, dict) or not all(isinstance(v, str) for v in models.values()):
        raise ConfigError(f"{source}: models must map function names to calls written as strings")
    root = source.parent
    return Config(
        source=str(source), root=str(root),
        select=strings("select") if "select" in table else None,
        ignore=strings("ignore"),
        per_file_ignores=tuple((p, tuple(c) if isinstance(c, list) else tuple(_split(c)))
                               for p, c in ignores.items()),
        include_dirs=tuple(str(root / d) for d in strings("include-dirs")),
        defines=strings("defines"),
        frontend=frontend,
        compile_commands=str(root / database) if database is not None else None,
        max_file_size=size,
        parse_timeout=positive("parse-timeout", float, "seconds"),
        parse_memory=positive("parse-memory", int, "MiB"),
        exclude=strings("exclude") if "exclude" in table else None,
        extend_exclude=strings("extend-exclude"),
        respect_gitignore=table.get("respect-gitignore"),
        force_exclude=table.get("force-exclude"),
        cache_dir=str(root / cache) if cache is not None else None,
        models=tuple(models.items()),
    )
