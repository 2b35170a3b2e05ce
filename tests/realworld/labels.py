"""The labelled list: where, by reading the code, each rule should or should not report."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

VERDICTS = ("report", "silent")
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
