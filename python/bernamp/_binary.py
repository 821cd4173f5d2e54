"""Finding the bernamp binary: BERNAMP_BIN, then the package, then PATH."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from typing import Callable, Mapping, Optional

from ._errors import BinaryNotFoundError

ENV_VAR = "BERNAMP_BIN"
EXE_NAME = "bernamp.exe" if sys.platform == "win32" else "bernamp"
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def bundled_path(package_dir: Optional[str] = None) -> str:
    """The path of the binary a wheel bundles (it may not exist)."""
    return os.path.join(package_dir or _PACKAGE_DIR, "bin", EXE_NAME)


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_binary(environ: Optional[Mapping[str, str]] = None,
                package_dir: Optional[str] = None,
                which: Callable[[str], Optional[str]] = shutil.which) -> str:
    """Return the path of the bernamp binary the client runs.

    In order: the file named by the environment variable BERNAMP_BIN (when
    set and not empty it must be an executable file: it is never skipped);
    the binary bundled in the wheel, ``bernamp/bin/bernamp`` (made executable
    if an unzip lost the mode bits); ``bernamp`` on PATH. Raises
    BinaryNotFoundError when none is usable.
    """
    env = os.environ if environ is None else environ
    explicit = env.get(ENV_VAR, "")
    if explicit:
        if _is_executable(explicit):
            return explicit
        raise BinaryNotFoundError(
            f"{ENV_VAR}={explicit!r} is not an executable file")
    bundled = bundled_path(package_dir)
    if os.path.isfile(bundled):
        if not os.access(bundled, os.X_OK):
            try:  # zipfile.extractall drops the mode bits
                mode = os.stat(bundled).st_mode
                os.chmod(bundled, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            except OSError as err:
                raise BinaryNotFoundError(
                    f"the bundled binary {bundled} is not executable and chmod failed "
                    f"({err.strerror}); set {ENV_VAR}") from None
        return bundled
    found = which(EXE_NAME)
    if found:
        return found
    raise BinaryNotFoundError(
        f"no bernamp binary: set {ENV_VAR}, install a wheel that bundles it "
        f"({bundled} is absent), or put bernamp on PATH "
        "(go install github.com/bernamp/bernamp/cmd/bernamp@latest)")
