"""Starting up: the checks made before connecting, and the sentences and exit codes of failures."""

from bot.startup.failures import ExitCode, StartupFailure

__all__ = ["ExitCode", "StartupFailure"]
