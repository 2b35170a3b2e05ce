"""The options of a measurement, shared by `mmaplint confirm` and `mmaplint check --confirm`."""
from __future__ import annotations

import argparse


def byte_count(text: str) -> int:
    """A byte count with an optional K, M or G suffix (powers of 1024)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    number, unit = (text[:-1], units[text[-1].upper()]) if text and text[-1].upper() in units else (text, 1)
    try:
        return int(float(number) * unit)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a byte count such as 1G or 512M, not {text!r}") from None


def add_confirm_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dir", default=".", help="where --confirm runs its reproducers (the "
                   "filesystem there decides the verdict; default: the current directory)")
    p.add_argument("--budget", type=float, default=30.0, metavar="SECONDS",
                   help="time per rule, build and warm-up included (default 30); the work is scaled "
                   "down to fit, and a run still going at the end is stopped")
    p.add_argument("--max-written", type=byte_count, default=1 << 30, metavar="BYTES",
                   help="bytes each rule's runs may write to the --dir filesystem (default 1G)")
    p.add_argument("--plot", metavar="FILE", help="draw each primary metric's two distributions to "
                   "FILE (.svg or .png; needs mmaplint[plot])")


def confirm_settings(args, variants=("bad", "fixed")):
    from .confirm import Options
    return Options(directory=args.dir, budget=args.budget, max_written=args.max_written,
                   variants=variants, plot=args.plot)

