"""The one error type `mmaplint confirm` reports as a single line."""


class ConfirmError(Exception):
    """A tool or usage problem (unknown rule, no compiler, no space, a run that failed)."""
