"""A one-line progress display on stderr, shown once a confirmation has taken two seconds."""
from __future__ import annotations

import sys
import time

SHOW_AFTER_S = 2.0


class Progress:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.monotonic()
        self.shown = False

    def update(self, label: str, variant: str, pair: int, budget: float) -> None:
        elapsed = time.monotonic() - self.start
        if not self.enabled or elapsed < SHOW_AFTER_S:
            return
        step = "warm-up" if pair == 0 else f"pair {pair}"
        sys.stderr.write(f"\r\033[K{label}: {step}, {variant} ({elapsed:.0f} s, budget {budget:.0f} s per rule)")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.shown = False
