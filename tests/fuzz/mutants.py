"""Mutants of the fixtures' C and C++ sources for the fuzz runs: each is one source with a few
random edits at the byte level (spans deleted, repeated, swapped or wrapped in deep nesting,
stray tokens and bytes, truncation, a piece of another source), from a seeded generator, so
that a seed names the same mutants on every machine."""
from __future__ import annotations

import random
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SUFFIXES = (".c", ".cpp", ".h")
_TOKENS = [b"(", b")", b"{", b"}", b"[", b"]", b";", b",", b"::", b"--", b"++", b"->", b"#", b"\"", b"'",
           b"\\", b"/*", b"*/", b"//", b"#if 0\n", b"#endif\n", b"#define M(x) x\n", b"while (1)",
           b"for (;;)", b"msync(p, 4096, MS_SYNC);", b"fflush(f);", b"static", b"struct", b"template<",
           b"\xff\xfe", b"\xc3", b"\r", b"\t", b"\n", b"\0", b"\x1b[0m", b"??/", b"\\\n"]


def sources() -> list[tuple[str, bytes]]:
    """(name, bytes) of every fixture source, in a stable order."""
    return [(path.name, path.read_bytes()) for path in sorted(FIXTURES.rglob("*"))
            if path.suffix in SUFFIXES and path.is_file()]


def _span(rng: random.Random, data: bytes, longest: int = 200) -> tuple[int, int]:
    start = rng.randrange(len(data) + 1)
    return start, min(len(data), start + rng.randint(1, longest))


def _nest(rng: random.Random, data: bytes) -> bytes:
    start, end = _span(rng, data, 40)
    opening, closing = rng.choice([(b"(", b")"), (b"q(", b")"), (b"{", b"}"), (b"-- ", b""), (b"!", b""),
                                   (b"#if 1\n", b"\n#endif\n")])
    depth = rng.choice([2, 10, 100, 1000])
    return data[:start] + opening * depth + data[start:end] + closing * depth + data[end:]


def mutate(rng: random.Random, data: bytes, donors: list[bytes]) -> bytes:
    """One mutant: one to four edits of `data`."""
    for _ in range(rng.randint(1, 4)):
        start, end = _span(rng, data)
        edit = rng.randrange(8)
        if edit == 0:
            data = data[:start] + data[end:]
        elif edit == 1:
            data = data[:end] + data[start:end] * rng.randint(1, 20) + data[end:]
        elif edit == 2:
            data = data[:start] + b" ".join(rng.choices(_TOKENS, k=rng.randint(1, 8))) + data[start:]
        elif edit == 3:
            data = data[:start] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))) + data[start:]
        elif edit == 4:
            lines = data.split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
        elif edit == 5:
            data = data[:start]
        elif edit == 6:
            donor = rng.choice(donors)
            piece = donor[slice(*_span(rng, donor, 2000))]
            data = data[:start] + piece + data[start:]
        else:
            data = _nest(rng, data)
    return data


def mutants(seed: int, count: int) -> list[tuple[str, bytes]]:
    """`count` mutants, each named for its number and the fixture it comes from."""
    rng = random.Random(seed)
    originals = sources()
    donors = [data for _, data in originals]
    found = []
    for number in range(count):
        name, data = rng.choice(originals)
        stem, _, suffix = name.rpartition(".")
        found.append((f"m{number:05d}_{stem}.{suffix}", mutate(rng, data, donors)))
    return found
