"""The real-code label files load as measure.py loads them: the development set
(tests/realworld/labels.toml) and the held-out set (tests/realworld/heldout/<package>.toml)."""
import importlib.util
import sys
from pathlib import Path

import pytest

REALWORLD = Path(__file__).resolve().parent / "realworld"
_spec = importlib.util.spec_from_file_location("realworld_labels", REALWORLD / "labels.py")
labels = sys.modules["realworld_labels"] = importlib.util.module_from_spec(_spec)   # dataclasses look it up
_spec.loader.exec_module(labels)


def _label(package: str, function: str = "f") -> str:
    return (f'[[label]]\npackage = "{package}"\npath = "a.c"\nfunction = "{function}"\n'
            f'rule = "MML009"\nverdict = "silent"\nreason = "fsync after the loop"\n\n')


def test_shipped_label_files_load_into_disjoint_sets():
    found, sets = labels.load_sets(REALWORLD / "labels.toml", REALWORLD / "heldout")
    heldout = {path.stem for path in (REALWORLD / "heldout").glob("*.toml")}
    assert {p for p, s in sets.items() if s == labels.HELDOUT} == heldout
    assert {label.package for label in found} == set(sets)


def test_heldout_file_labels_its_own_package(tmp_path):
    (tmp_path / "dev.toml").write_text(_label("fio"))
    (tmp_path / "heldout").mkdir()
    (tmp_path / "heldout" / "qdbm.toml").write_text(_label("qdbm") + _label("qdbm", "g"))
    found, sets = labels.load_sets(tmp_path / "dev.toml", tmp_path / "heldout")
    assert sets == {"fio": labels.DEVELOPMENT, "qdbm": labels.HELDOUT}
    assert [label.function for label in found if label.package == "qdbm"] == ["f", "g"]

    (tmp_path / "heldout" / "dpkg.toml").write_text(_label("qdbm", "h"))
    with pytest.raises(labels.LabelError, match="dpkg.toml: labels package qdbm, not dpkg"):
        labels.load_sets(tmp_path / "dev.toml", tmp_path / "heldout")


def test_package_in_both_sets_is_an_error(tmp_path):
    (tmp_path / "dev.toml").write_text(_label("fio"))
    (tmp_path / "heldout").mkdir()
    (tmp_path / "heldout" / "fio.toml").write_text(_label("fio", "g"))
    with pytest.raises(labels.LabelError, match="fio is also labelled in dev.toml"):
        labels.load_sets(tmp_path / "dev.toml", tmp_path / "heldout")


def test_no_heldout_directory_is_an_empty_set(tmp_path):
    (tmp_path / "dev.toml").write_text(_label("fio"))
    found, sets = labels.load_sets(tmp_path / "dev.toml", tmp_path / "missing")
    assert sets == {"fio": labels.DEVELOPMENT} and len(found) == 1
