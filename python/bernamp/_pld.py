"""The amplified mechanism as a dp_accounting PrivacyLossDistribution.

compose --emit-pld writes the composed pessimistic PLD in the layout of
dp_accounting's DensePLDPmf (losses (lower_loss + j) * discretization);
these functions build a PrivacyLossDistribution from it through
dp_accounting's public API, so it composes with dp_accounting's own PLDs
at the same value_discretization_interval. dp_accounting (with numpy and
scipy) is imported here only, when called: the rest of the client needs
the standard library alone.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import tempfile
from typing import TYPE_CHECKING, Any, Mapping, Optional, Union

from ._api import compose
from ._errors import BernampRuntimeError
from ._run import is_scalar

if TYPE_CHECKING:  # dp_accounting is optional
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution


def _dp_accounting() -> Any:
    """numpy, dp_accounting.pld.pld_pmf and privacy_loss_distribution, or
    an ImportError that says what to install."""
    try:
        import numpy
        from dp_accounting.pld import pld_pmf, privacy_loss_distribution
    except ImportError as err:
        raise ImportError(
            f"bernamp's PLD functions need dp_accounting and its numpy and scipy "
            f"(pip install dp-accounting): {err}", name=err.name) from err
    return numpy, pld_pmf, privacy_loss_distribution


def _number(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
        raise ValueError(f"{what} is {v!r}, not a finite number")
    return float(v)


def _pmf(obj: Any, what: str, discretization: float, pessimistic: bool, np: Any, pld_pmf: Any) -> Any:
    if not isinstance(obj, Mapping):
        raise ValueError(f"{what} is {type(obj).__name__}, not an object")
    lower = obj.get("lower_loss")
    if isinstance(lower, bool) or not isinstance(lower, numbers.Integral):
        raise ValueError(f"{what}.lower_loss is {lower!r}, not an integer")
    probs = obj.get("probs")
    if probs is None:
        probs = []  # a Go nil slice
    if not isinstance(probs, list) or any(isinstance(p, bool) or not isinstance(p, numbers.Real) for p in probs):
        raise ValueError(f"{what}.probs is not a list of numbers")
    arr = np.asarray(probs, dtype=np.float64)
    if not (np.all(np.isfinite(arr)) and np.all(arr >= 0)):
        raise ValueError(f"{what}.probs has a negative or non-finite mass")
    inf = _number(obj.get("infinity_mass"), f"{what}.infinity_mass")
    if not 0 <= inf <= 1:
        raise ValueError(f"{what}.infinity_mass is {inf}, not in [0, 1]")
    return pld_pmf.DensePLDPmf(discretization, int(lower), arr, inf, pessimistic)


def load_pld(source: Union[str, "os.PathLike[str]", Mapping[str, Any]],
             discretization: Optional[float] = None) -> "PrivacyLossDistribution":
    """The dp_accounting PrivacyLossDistribution of a PLD that ``bernamp
    compose --emit-pld FILE`` wrote: source is the file's path or its
    parsed JSON. The remove direction is "remove"; "add" is the add
    direction, or null when the pair is symmetric (the PLD is then
    symmetric too). With ``discretization`` the file's must be that float
    exactly (dp_accounting composes PLDs of equal intervals only).

    Raises ImportError without dp_accounting, ValueError when the JSON is
    not such a PLD.
    """
    np, pld_pmf, privacy_loss_distribution = _dp_accounting()
    if isinstance(source, Mapping):
        obj: Any = source
    else:
        with open(source, encoding="utf-8") as f:
            obj = json.load(f)
    if not isinstance(obj, Mapping) or "remove" not in obj:
        raise ValueError("not a PLD: an object with \"discretization\", \"remove\" and \"add\" was expected")
    h = _number(obj.get("discretization"), "discretization")
    if not h > 0:
        raise ValueError(f"discretization is {h}, must be > 0")
    if discretization is not None and h != float(discretization):
        raise ValueError(f"discretization is {h!r}, not the {float(discretization)!r} asked for")
    pessimistic = obj.get("pessimistic", True)
    if not isinstance(pessimistic, bool):
        raise ValueError(f"pessimistic is {pessimistic!r}, not a bool")
    remove = _pmf(obj["remove"], "remove", h, pessimistic, np, pld_pmf)
    add = obj.get("add")
    if add is not None:
        add = _pmf(add, "add", h, pessimistic, np, pld_pmf)
    return privacy_loss_distribution.PrivacyLossDistribution(remove, add)


def amplified_pld(mechanism: Optional[str] = None, *, d: Optional[int] = None, k: Optional[int] = None,
                  c: Optional[float] = None, discretization: float = 1e-4, steps: int = 1,
                  **mechanism_flags: Any) -> "PrivacyLossDistribution":
    """The amplified mechanism as a dp_accounting PrivacyLossDistribution:
    ``steps`` releases (default one) of the mechanism through k Bernoulli
    samples of theta in [c, 1-c]^d (CLI defaults d = k = 1, c = 0.1),
    the pessimistic PLD that ``bernamp compose`` composes for eps_upper.

    mechanism and mechanism_flags are compose's (sigma=, b=, q=, p_true=,
    sensitivity=, rdp=, in_=...). The PLD is on dp_accounting's grid of
    ``discretization`` (its value_discretization_interval) and pessimistic:
    it composes with dp_accounting's own pessimistic PLDs of the same
    interval (``pld.compose(other)``, ``pld.self_compose(n)``) and answers
    ``get_epsilon_for_delta``. The comparators of compose are skipped
    unless mechanism_flags ask for them (rdp_route=True, unamplified=True).

    Raises ImportError without dp_accounting (checked first), the binary's
    errors as compose does, and BernampRuntimeError when the PLD the binary
    wrote cannot be read.
    """
    _dp_accounting()
    for name, v in (("d", d), ("k", k), ("c", c), ("steps", steps)):
        if not is_scalar(v):
            raise TypeError(f"amplified_pld: {name} is one value (one PLD), not {v!r}")
    mechanism_flags.setdefault("rdp_route", False)
    mechanism_flags.setdefault("unamplified", False)
    mechanism_flags.setdefault("no_timing", True)
    with tempfile.TemporaryDirectory(prefix="bernamp-pld-") as tmp:
        path = os.path.join(tmp, "pld.json")
        compose(mechanism, d=d, k=k, c=c, steps=steps, discretization=discretization, emit_pld=path,
                **mechanism_flags)
        try:
            return load_pld(path, discretization)
        except (OSError, ValueError) as err:
            raise BernampRuntimeError(f"bernamp wrote a PLD the client cannot read: {err}") from None
