"""Exceptions and warnings of the bernamp client."""

from __future__ import annotations

from typing import List, Optional


class BernampError(Exception):
    """Base class of every error raised by the client.

    ``message`` is the binary's one-line message without the ``bernamp: ``
    prefix (``str(err)`` is the same line); ``exit_code`` the binary's exit
    status (None when the binary did not run); ``argv`` the command line;
    ``stderr`` everything the binary wrote on stderr.
    """

    def __init__(self, message: str, exit_code: Optional[int] = None,
                 argv: Optional[List[str]] = None, stderr: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.argv = list(argv) if argv is not None else []
        self.stderr = stderr


class BernampInputError(BernampError, ValueError):
    """Invalid input, rejected before any work (the binary's exit status 2)."""


class BernampRuntimeError(BernampError, RuntimeError):
    """A failure while computing (exit status 1: a failed cross-check, an
    interruption, an unreadable file...) or output the client cannot read."""


class BinaryNotFoundError(BernampError, FileNotFoundError):
    """No bernamp binary in BERNAMP_BIN, in the package, or on PATH."""


class BernampWarning(UserWarning):
    """A warning line the binary wrote on stderr of a successful run (for
    example: the best order of an RDP conversion is the largest one given)."""
