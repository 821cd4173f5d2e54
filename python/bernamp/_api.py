"""The commands: keyword arguments mirror the CLI's flags (bernamp COMMAND -h)."""

from __future__ import annotations

import os
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ._errors import BernampRuntimeError
from ._results import Calibration, ComposeResult, Curve, DeltaResult, PureResult, Result, from_json
from ._run import build_argv, execute, execute_json, is_scalar, json_flags

# A grid axis: one value, a list, or a str list "1,2,4" / range "0.1:1:0.1".
Axis = Union[int, float, str, Sequence[Union[int, float]], None]
Duration = Union[float, str, Any]


def _rows(cls, obj: Any, one: bool):
    if not isinstance(obj, list):
        raise BernampRuntimeError(f"bernamp wrote {type(obj).__name__} where a list of rows was expected")
    rows = [from_json(cls, x) for x in obj]
    if one:
        if len(rows) != 1:
            raise BernampRuntimeError(f"bernamp wrote {len(rows)} rows for one point")
        return rows[0]
    return rows


def _grid(command: str, axes: Dict[str, Any], flags: Dict[str, Any], extra: Dict[str, Any]):
    argv = build_argv(command, json_flags({**axes, **flags}, extra))
    one = all(is_scalar(v) for v in axes.values())
    return _rows(Result, execute_json(argv), one)


def post(d: Axis = None, k: Axis = None, c: Axis = None, alpha: Axis = None, eps: Axis = None, *,
         range: Optional[str] = None, tol: Optional[float] = None, timeout: Optional[Duration] = None,
         method: Optional[str] = None, certify: Optional[bool] = None, workers: Optional[int] = None,
         force: Optional[bool] = None, no_timing: bool = False,
         **extra: Any) -> Union[Result, List[Result]]:
    """``bernamp post``: the certified solver, at every point of the grid.

    d, k, c, alpha, eps are the grid axes (CLI defaults 1, 1, 0.1, 5, 1):
    a number, a list, or a str list "1,2,4" or range "start:stop:step".
    When every axis is one value the result is one Result, otherwise a list
    in grid order (d, k, c, alpha, eps; eps fastest). ``range`` is the
    per-coordinate ranges "lo:hi,lo:hi,..." in place of d and c; ``timeout``
    is per point (seconds, a Go duration str such as "30s", or a
    timedelta). Other keyword arguments become flags (name_x -> --name-x).
    """
    return _grid("post", dict(d=d, k=k, c=c, alpha=alpha, eps=eps),
                 dict(range=range, tol=tol, timeout=timeout, method=method, certify=certify,
                      workers=workers, force=force, no_timing=no_timing or None), extra)


def bounds(d: Axis = None, k: Axis = None, c: Axis = None, alpha: Axis = None, eps: Axis = None, *,
           range: Optional[str] = None, workers: Optional[int] = None, force: Optional[bool] = None,
           no_timing: bool = False, **extra: Any) -> Union[Result, List[Result]]:
    """``bernamp bounds``: the closed forms alone (status "bounds": lb and
    post are the Theorem 4 lower bound, post_upper = ub), at any size.
    Arguments and result as for post."""
    return _grid("bounds", dict(d=d, k=k, c=c, alpha=alpha, eps=eps),
                 dict(range=range, workers=workers, force=force, no_timing=no_timing or None), extra)


def _write_curve(pairs: List[Any]) -> str:
    fd, path = tempfile.mkstemp(prefix="bernamp-curve-", suffix=".csv")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("alpha,eps\n")
        for a, e in pairs:
            f.write(f"{float(a)!r},{float(e)!r}\n")
    return path


def _curve_pairs(rdp: Any, orders: Any) -> List[Any]:
    if isinstance(rdp, Mapping):
        if orders is not None:
            raise TypeError("curve: orders is in the rdp mapping already")
        orders, rdp = rdp["orders"], rdp["rdp"]
    if orders is not None:
        orders, rdp = list(orders), list(rdp)
        if len(orders) != len(rdp):
            raise ValueError(f"curve: {len(orders)} orders but {len(rdp)} rdp values")
        return list(zip(orders, rdp))
    pairs = [tuple(x) for x in rdp]
    if any(len(x) != 2 for x in pairs):
        raise ValueError("curve: rdp is a list of (alpha, eps) pairs, or eps values with orders=")
    return pairs


def _with_curve(command: str, flags: Dict[str, Any], rdp: Any, extra: Dict[str, Any],
                rdp_mechanism: Optional[str] = None) -> Any:
    """Run command with flags; rdp (if given) is written to a temporary CSV
    passed as --in (with --mechanism rdp_mechanism when the command names
    the curve so), removed afterwards."""
    path = None
    if rdp is not None:
        if flags.get("in_") is not None or flags.get("mechanism") not in (None, rdp_mechanism):
            raise TypeError(f"{command}: give one of mechanism, rdp and in_")
        path = _write_curve(_curve_pairs(rdp, flags.get("orders")))
        flags = dict(flags, in_=path, orders=None)
        if rdp_mechanism is not None:
            flags["mechanism"] = rdp_mechanism
    try:
        return execute_json(build_argv(command, json_flags(flags, extra)), stacklevel=5)
    finally:
        if path is not None:
            os.remove(path)


def curve(mechanism: Optional[str] = None, *, sigma: Optional[float] = None, b: Optional[float] = None,
          p_true: Optional[float] = None, noise_parameter: Optional[float] = None, rdp: Any = None,
          in_: Union[str, Sequence[str], None] = None, orders: Axis = None, compose: Optional[int] = None,
          emit_curve: Optional[str] = None, d: Optional[int] = None, k: Optional[int] = None,
          c: Optional[float] = None, delta: Optional[float] = None, conversion: Optional[str] = None,
          tol: Optional[float] = None, timeout: Optional[Duration] = None, method: Optional[str] = None,
          certify: Optional[bool] = None, workers: Optional[int] = None, no_timing: bool = False,
          **extra: Any) -> Curve:
    """``bernamp curve``: amplify an RDP curve order by order (one kernel
    d, k, c) and convert it to (eps, delta) at ``delta``, after ``compose``
    releases.

    The curve is a named mechanism ("gaussian" with sigma, "laplace" with b,
    "rr" with p_true or noise_parameter) on ``orders`` (default
    dp_accounting's 156), or ``rdp``: (alpha, eps) pairs, eps values with
    ``orders=``, or a mapping {"orders": [...], "rdp": [...]} as an
    accountant holds it (written to a temporary CSV for --in), or ``in_``:
    the path of a curve file (a list of paths: their curves are summed).
    ``emit_curve`` writes the amplified curve to that file.
    """
    flags: Dict[str, Any] = dict(mechanism=mechanism, sigma=sigma, b=b, p_true=p_true,
                                 noise_parameter=noise_parameter, in_=in_, orders=orders, compose=compose,
                                 emit_curve=emit_curve, d=d, k=k, c=c, delta=delta, conversion=conversion,
                                 tol=tol, timeout=timeout, method=method, certify=certify, workers=workers,
                                 no_timing=no_timing or None)
    return from_json(Curve, _with_curve("curve", flags, rdp, extra))


def calibrate(solve: str, eps: float, delta: Optional[float] = None, *, steps: Optional[int] = None,
              mechanism: Optional[str] = None, sigma: Optional[float] = None, b: Optional[float] = None,
              rdp: Any = None, in_: Union[str, Sequence[str], None] = None, orders: Axis = None,
              d: Optional[int] = None, k: Optional[int] = None, c: Optional[float] = None,
              resolution: Optional[float] = None, conversion: Optional[str] = None,
              **extra: Any) -> Calibration:
    """``bernamp calibrate``: the value of ``solve`` ("c", "k", "sigma" or
    "b") whose proved amplified guarantee after ``steps`` releases is
    (eps, delta)-DP; ``safe_side`` of the result says which way it errs.
    The curve is given as for curve; other flags pass through."""
    flags: Dict[str, Any] = dict(solve=solve, eps=eps, delta=delta, steps=steps, mechanism=mechanism,
                                 sigma=sigma, b=b, in_=in_, orders=orders, d=d, k=k, c=c,
                                 resolution=resolution, conversion=conversion)
    return from_json(Calibration, _with_curve("calibrate", flags, rdp, extra))


def compose(mechanism: Optional[str] = None, *, sigma: Optional[float] = None,
            sensitivity: Optional[float] = None, b: Optional[float] = None, q: Optional[float] = None,
            p_true: Optional[float] = None, noise_parameter: Optional[float] = None, rdp: Any = None,
            orders: Axis = None, in_: Optional[str] = None, d: Axis = None, k: Axis = None,
            c: Axis = None, steps: Axis = None, delta: Optional[float] = None,
            eps: Optional[float] = None, discretization: Optional[float] = None,
            conversion: Optional[str] = None, rdp_route: Optional[bool] = None,
            unamplified: Optional[bool] = None, rdp_timeout: Optional[Duration] = None,
            rdp_budget: Optional[Duration] = None, emit_pld: Optional[str] = None,
            workers: Optional[int] = None, no_timing: bool = False,
            **extra: Any) -> Union[ComposeResult, List[ComposeResult]]:
    """``bernamp compose``: (eps, delta) after ``steps`` adaptive releases of
    a mechanism whose output theta in [c, 1-c]^d is released as k Bernoulli
    samples, as [lower, upper] (claim ``eps_upper``) beside the RDP route
    and the mechanism's own PLD without amplification.

    The mechanism is "gaussian" (sigma, sensitivity), "laplace" (b,
    sensitivity), "rr" (p_true or noise_parameter), "subsampled-gaussian"
    (q, sigma, sensitivity), "rdp" (in_: an accountant curve) or "profile"
    (in_: a profile, or a PLD file that emit_pld wrote), or ``rdp``: an RDP
    curve given as for curve (pairs, eps values with ``orders=``, or a
    mapping), written to a temporary CSV for --mechanism rdp --in.

    d, k, c, steps are grid axes (CLI defaults 1, 1, 0.1, 1): one
    ComposeResult when each is one value, else a list in grid order (steps
    fastest). The answer is eps at ``delta`` (default 1e-5), or delta at
    ``eps`` when eps is given. ``discretization`` is the PLD grid step
    (default 1e-4, dp_accounting's value_discretization_interval);
    rdp_route=False and unamplified=False skip the comparators (faster);
    rdp_budget caps the RDP route's total solve time (orders past it keep
    the closed-form upper bound: eps_rdp stays an upper bound, looser);
    ``emit_pld`` writes the composed pessimistic PLD of the one row as JSON
    (amplified_pld reads it into dp_accounting). Other keyword arguments
    become flags.
    """
    if orders is not None and rdp is None:
        raise TypeError("compose: orders= goes with rdp= values (compose takes no --orders)")
    axes = dict(d=d, k=k, c=c, steps=steps)
    flags: Dict[str, Any] = dict(mechanism=mechanism, sigma=sigma, sensitivity=sensitivity, b=b, q=q,
                                 p_true=p_true, noise_parameter=noise_parameter, in_=in_, orders=orders,
                                 **axes, delta=delta, eps=eps, discretization=discretization,
                                 conversion=conversion, rdp_route=rdp_route, unamplified=unamplified,
                                 rdp_timeout=rdp_timeout, rdp_budget=rdp_budget, emit_pld=emit_pld,
                                 workers=workers, no_timing=no_timing or None, quiet=True)
    obj = _with_curve("compose", flags, rdp, extra, rdp_mechanism="rdp")
    return _rows(ComposeResult, obj, all(is_scalar(v) for v in axes.values()))


def delta(eps: float, delta: Optional[float] = None, *, gaussian: Optional[float] = None,
          eps_out: Axis = None, d: Optional[int] = None, k: Optional[int] = None,
          c: Optional[float] = None, conversion: Optional[str] = None,
          rdp_timeout: Optional[Duration] = None, no_timing: bool = False,
          **extra: Any) -> Union[DeltaResult, List[DeltaResult]]:
    """``bernamp delta``: the exact delta'(eps') of the samples of an (eps,
    delta)-DP mechanism (or of the Gaussian mechanism with noise
    ``gaussian``), at each eps' of ``eps_out`` (default 0, eps/4, eps/2,
    3eps/4, eps). One DeltaResult when eps_out is one value, else a list."""
    flags = dict(eps=eps, delta=delta, gaussian=gaussian, eps_out=eps_out, d=d, k=k, c=c,
                 conversion=conversion, rdp_timeout=rdp_timeout, no_timing=no_timing or None)
    obj = execute_json(build_argv("delta", json_flags(flags, extra)))
    return _rows(DeltaResult, obj, eps_out is not None and is_scalar(eps_out))


def pure(d: Axis = None, k: Axis = None, c: Axis = None, eps: Axis = None, *,
         method: Optional[str] = None, range: Optional[str] = None,
         **extra: Any) -> Union[PureResult, List[PureResult]]:
    """``bernamp pure``: the exact amplified pure-DP level (alpha = inf),
    closed form. Axes and result shape as for post."""
    axes = dict(d=d, k=k, c=c, eps=eps)
    obj = execute_json(build_argv("pure", json_flags({**axes, "method": method, "range": range}, extra)))
    return _rows(PureResult, obj, all(is_scalar(v) for v in axes.values()))


def run(command: str, *args: str, json: bool = True, **flags: Any) -> Any:
    """Any command (also ones the client has no function for): keyword
    arguments become --flags, args follow them. With json (the default)
    --format json is added and the parsed output returned; otherwise stdout
    as text."""
    argv = build_argv(command, flags, tuple(args))
    if json:
        return execute_json(argv)
    return execute(argv, stacklevel=3)
