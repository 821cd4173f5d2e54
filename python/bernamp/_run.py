"""Running the binary: command lines from keyword arguments, exit statuses
to exceptions, stderr warnings to Python warnings."""

from __future__ import annotations

import datetime
import json
import numbers
import re
import subprocess
import warnings
from typing import Any, Dict, List, Optional, Tuple

from ._binary import find_binary
from ._errors import BernampInputError, BernampRuntimeError, BernampWarning

_PREFIX = "bernamp: "
_WARNING = "bernamp: warning: "

# Flags that take a Go duration: a number is seconds, a str goes as is
# ("30s"), a datetime.timedelta is converted.
DURATION_FLAGS = frozenset({"timeout", "rdp-timeout", "rdp-budget"})


def flag_name(name: str) -> str:
    """The CLI flag of a keyword argument: no_timing -> no-timing, in_ -> in."""
    return name.rstrip("_").replace("_", "-")


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))  # shortest string that reads back to the same float
    if isinstance(v, str):
        return v
    raise TypeError(f"cannot pass {type(v).__name__} {v!r} to bernamp")


def _duration(v: Any) -> str:
    if isinstance(v, datetime.timedelta):
        v = v.total_seconds()
    if isinstance(v, str):
        return v
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        return f"{round(float(v) * 1e9)}ns"  # Go durations take no exponent
    raise TypeError(f"a duration is seconds, a str such as '30s' or a timedelta, not {v!r}")


def format_flag(name: str, v: Any) -> str:
    """One --flag=value argument. Lists, tuples and ranges become comma
    lists; str values (lists or ranges start:stop:step) go as they are."""
    flag = flag_name(name)
    if flag in DURATION_FLAGS:
        return f"--{flag}={_duration(v)}"
    if isinstance(v, (list, tuple, range)):
        if len(v) == 0:
            raise ValueError(f"--{flag}: empty list")
        return f"--{flag}=" + ",".join(_value(x) for x in v)
    return f"--{flag}={_value(v)}"


# A flag line of the binary's "COMMAND -h": "  -name type" (or "  -name" for
# a bool flag).
_FLAG_LINE = re.compile(r"^  -([a-z][a-z0-9-]*)(?: (\w+))?$")
_KNOWN: Dict[Tuple[str, str], Optional[Dict[str, bool]]] = {}


def known_flags(command: str) -> Optional[Dict[str, bool]]:
    """The flags of a command, each with whether it is a bool flag, read
    once per command from the binary's own help ("COMMAND -h"); None when
    the binary does not describe the command."""
    key = (find_binary(), command)
    if key not in _KNOWN:
        proc = subprocess.run([key[0], command, "-h"], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, encoding="utf-8", errors="replace")
        flags = {}
        for line in proc.stdout.splitlines():
            m = _FLAG_LINE.match(line)
            if m:
                flags[m.group(1)] = m.group(2) is None
        _KNOWN[key] = flags if proc.returncode == 0 and flags else None
    return _KNOWN[key]


def build_argv(command: str, flags: Dict[str, Any], args: Tuple[str, ...] = ()) -> List[str]:
    """The command line after the binary: command, --flags (None omitted),
    then positional args.

    A keyword the command has no flag for raises TypeError, as an unknown
    keyword argument does in Python, and so does a bool for a flag that is
    not a switch (d=True is not a dimension); the flags are the binary's
    own (known_flags)."""
    known = known_flags(command)
    argv = [command]
    for name, v in flags.items():
        if v is None:
            continue
        if known is not None:
            flag = flag_name(name)
            if flag not in known:
                raise TypeError(f"{command}() got an unexpected keyword argument {name!r}")
            if isinstance(v, bool) and not known[flag]:
                raise TypeError(f"{name} must be a number, a str or a list, not bool")
        argv.append(format_flag(name, v))
    argv.extend(args)
    return argv


def is_scalar(v: Any) -> bool:
    """Whether a grid argument names one value: a number, None (the
    default), or a str without ',' or ':'."""
    if v is None or isinstance(v, numbers.Real):
        return True
    if isinstance(v, str):
        return "," not in v and ":" not in v
    return False


def execute(argv: List[str], stacklevel: int = 3) -> str:
    """Run the binary with argv and return its stdout.

    Exit status 2 raises BernampInputError, any other non-zero status
    BernampRuntimeError, each with the binary's one-line message. Warning
    lines on stderr of a successful run are issued as BernampWarning (the
    binary writes its progress lines to a terminal only).
    """
    binary = find_binary()
    proc = subprocess.run([binary] + argv, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, encoding="utf-8", errors="replace")
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    if proc.returncode != 0:
        errors = [ln for ln in lines if ln.startswith(_PREFIX) and not ln.startswith(_WARNING)]
        if errors:
            message = errors[-1][len(_PREFIX):]
        elif lines:
            message = lines[-1]
        elif proc.returncode < 0:
            message = f"killed by signal {-proc.returncode}"
        else:
            message = f"exit status {proc.returncode}"
        cls = BernampInputError if proc.returncode == 2 else BernampRuntimeError
        raise cls(message, exit_code=proc.returncode, argv=[binary] + argv, stderr=proc.stderr)
    for ln in lines:
        if ln.startswith(_WARNING):
            text = ln[len(_WARNING):]
        elif ln.startswith(_PREFIX):
            text = ln[len(_PREFIX):]
        else:
            text = ln
        warnings.warn(text, BernampWarning, stacklevel=stacklevel)
    return proc.stdout


def execute_json(argv: List[str], stacklevel: int = 4) -> Any:
    """execute with --format json appended, stdout parsed."""
    out = execute(argv + ["--format=json"], stacklevel=stacklevel)
    try:
        return json.loads(out)
    except ValueError as err:
        raise BernampRuntimeError(f"bernamp wrote output that is not JSON: {err}",
                                  argv=argv) from None


def json_flags(flags: Dict[str, Any], extra: Dict[str, Any],
               reserved: Optional[Tuple[str, ...]] = ("format",)) -> Dict[str, Any]:
    """The flags of a call merged with extra keyword arguments (flags the
    client does not know yet pass through), refusing --format, which the
    client sets."""
    merged = dict(flags)
    for name, v in extra.items():
        if reserved and flag_name(name) in reserved:
            raise TypeError(f"{name}: the client sets --format json itself")
        merged[name] = v
    return merged
