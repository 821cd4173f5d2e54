"""Shared set-up of the tests: the real binary, and running it directly.

The binary is BERNAMP_BIN when set (CI passes the one it built), else a
fresh `go build ./cmd/bernamp` (CGO_ENABLED=0) into a temporary directory,
once per test run. Without either the tests fail: they never skip.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Any, List

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(PYTHON_DIR)
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

_binary = None


def binary() -> str:
    """The path of the real bernamp binary (built on first use)."""
    global _binary
    if _binary is None:
        given = os.environ.get("BERNAMP_BIN")
        if given:
            _binary = os.path.abspath(given)
        else:
            tmp = tempfile.mkdtemp(prefix="bernamp-pytest-")
            atexit.register(shutil.rmtree, tmp, True)
            out = os.path.join(tmp, "bernamp")
            subprocess.run(["go", "build", "-o", out, "./cmd/bernamp"], cwd=REPO, check=True,
                           env=dict(os.environ, CGO_ENABLED="0"))
            _binary = out
    return _binary


def cli(args: List[str]) -> subprocess.CompletedProcess:
    """Run the binary directly, as a user at the shell would."""
    return subprocess.run([binary()] + args, capture_output=True, text=True, stdin=subprocess.DEVNULL)


def cli_json(args: List[str]) -> Any:
    """The CLI's JSON for args (with --format json); fails on a non-zero exit."""
    p = cli(args + ["--format", "json"])
    if p.returncode != 0:
        raise AssertionError(f"bernamp {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


class BinaryEnv:
    """Context: BERNAMP_BIN set to path (None: removed), restored after."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        self.old = os.environ.get("BERNAMP_BIN")
        if self.path is None:
            os.environ.pop("BERNAMP_BIN", None)
        else:
            os.environ["BERNAMP_BIN"] = self.path
        return self

    def __exit__(self, *exc):
        if self.old is None:
            os.environ.pop("BERNAMP_BIN", None)
        else:
            os.environ["BERNAMP_BIN"] = self.old
        return False
