"""Runtime confirmation: measure on this machine what a finding's pattern costs."""
from .errors import ConfirmError
from .session import ConfirmRequest, list_corpus, run_confirm

__all__ = ["ConfirmError", "ConfirmRequest", "list_corpus", "run_confirm"]
