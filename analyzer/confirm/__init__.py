"""Runtime confirmation: measure on this machine what a finding's pattern costs."""
from .errors import ConfirmError
from .session import ConfirmRequest, Options, list_corpus, measure_rules, run_confirm

__all__ = ["ConfirmError", "ConfirmRequest", "Options", "list_corpus", "measure_rules", "run_confirm"]
