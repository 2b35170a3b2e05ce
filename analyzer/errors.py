"""What a user can get wrong: an option, the configuration, a plugin, a diff, a baseline, a
shard, a model.  Each module raises its own kind; the command line reports any of them in one
line with exit status 2, without importing the modules that raise them."""


class UserError(Exception):
    """A mistake in what the user gave; the message is one line for the user."""


class UsageError(UserError):
    """A bad command line."""
