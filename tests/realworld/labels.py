"""The labelled lists: where, by reading the code, each rule should or should not report.

Two sets.  labels.toml is the development set: packages the team has measured and tuned
the rules against.  heldout/<package>.toml holds one package each, labelled before any
mmaplint rule ran on it; its first run is the honest figure for code nobody tuned to."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

VERDICTS = ("report", "silent")
DEVELOPMENT, HELDOUT = "dev", "heldout"
FIELDS = ("package", "path", "function", "rule", "verdict", "reason")


class LabelError(Exception):
    """A labels file that cannot be used; one line for the user."""


@dataclass(frozen=True)
class Label:
    package: str
    path: str           # relative to the package's upstream root, with forward slashes
    function: str       # qualified name of the enclosing function ("" at file scope)
    rule: str
    verdict: str        # "report" or "silent"
    reason: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.path, self.function, self.rule)


def load(path: Path) -> list[Label]:
    try:
        entries = tomllib.loads(path.read_text(encoding="utf-8")).get("label", [])
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LabelError(f"{path}: {exc}") from None
    labels, seen = [], set()
    for number, entry in enumerate(entries, 1):
        missing = [f for f in FIELDS if not isinstance(entry.get(f), str)]
        if missing or entry["verdict"] not in VERDICTS:
            raise LabelError(f"{path}: label {number}: needs string fields {', '.join(FIELDS)} "
                             f"and a verdict in {VERDICTS}")
        label = Label(**{f: entry[f] for f in FIELDS})
        if (label.package, label.key) in seen:
            raise LabelError(f"{path}: label {number}: {label.package} {label.key} labelled twice")
        seen.add((label.package, label.key))
        labels.append(label)
    return labels


def load_sets(development: Path, heldout: Path) -> tuple[list[Label], dict[str, str]]:
    """Every label of both sets, and the set of each labelled package.  A held-out file
    labels only the package it is named for, and no package is in both sets: once its
    first run is reported, a held-out package moves into labels.toml."""
    labels = load(development)
    sets = {label.package: DEVELOPMENT for label in labels}
    files = sorted(heldout.glob("*.toml")) if heldout.is_dir() else []
    for path in files:
        package = path.stem
        if package in sets:
            raise LabelError(f"{path}: {package} is also labelled in {development.name}")
        mine = load(path)
        strangers = sorted({label.package for label in mine} - {package})
        if strangers:
            raise LabelError(f"{path}: labels package {', '.join(strangers)}, not {package}")
        sets[package] = HELDOUT
        labels.extend(mine)
    return labels, sets
