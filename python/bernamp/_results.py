"""Plain dataclasses for the JSON records of the binary.

Every value is in nats. Each class keeps the whole record in ``raw``, so
fields the binary adds later are not lost; fields a record lacks are None.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Type, TypeVar

from ._errors import BernampRuntimeError

T = TypeVar("T")


def from_json(cls: Type[T], obj: Any) -> T:
    """Build cls from a JSON object: known keys only, ints widened to float
    where the field is a float, nested records built by their classes."""
    if not isinstance(obj, dict):
        raise BernampRuntimeError(f"bernamp wrote {type(obj).__name__} where a {cls.__name__} record was expected")
    kw: Dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name == "raw" or f.name not in obj:
            continue
        v = obj[f.name]
        t = str(f.type)
        nested = _NESTED.get(t)
        if nested is not None and v is not None:
            v = from_json(nested, v)
        elif t.startswith("List[") and t[5:-1] in _NESTED_NAMES and v is not None:
            v = [from_json(_NESTED_NAMES[t[5:-1]], x) for x in v]
        elif t == "List[float]" and isinstance(v, list):
            v = [float(x) if isinstance(x, int) and not isinstance(x, bool) else x for x in v]
        elif "float" in t and isinstance(v, int) and not isinstance(v, bool):
            v = float(v)
        kw[f.name] = v
    try:
        return cls(raw=obj, **kw)  # type: ignore[call-arg]
    except TypeError as err:
        raise BernampRuntimeError(f"bernamp's {cls.__name__} record is incomplete: {err}") from None


@dataclass(frozen=True)
class Witness:
    """The feasible pair (P, Q) behind ``post``: masses on the corners
    (bit l = 0 means theta_l = c), R_alpha(B_k(P) || B_k(Q)) = value, and
    both divergences, each at most eps."""
    corners: List[str]
    p: List[float]
    q: List[float]
    value: float
    div_pq: float
    div_qp: float
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Pieces:
    """The two-point-pieces certificate at n = d k: ``upper`` is a proved
    upper bound on Post over the whole box; ``proved`` says upper - lb <= tol
    (Post = LB at this point)."""
    n: int
    upper: float
    proved: bool
    boxes: int
    violation: bool = False
    seconds: float = 0.0
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Result:
    """One point of ``post`` or ``bounds``: an interval for the amplified
    level Post = Post_{alpha,k}(eps) over the whole box [c, 1-c]^d.

    lb <= post <= Post <= post_upper <= ub. ``post_upper`` is the level to
    claim; ``post`` is the value of a verified feasible pair (below Post);
    ``status`` is "certified" (post_upper - post <= tol is proved),
    "witness" (post verified, the proof looser) or "bounds" (closed forms
    only). ``conjecture`` is "proved", "open" or "refuted" (Post = LB).
    """
    d: int
    k: int
    c: float
    alpha: float
    eps: float
    lb: float
    ub: float
    post: float
    post_upper: float
    status: str
    seconds: float = 0.0
    ranges: Optional[str] = None
    ub_post_processing: Optional[float] = None
    ub_asymptote: Optional[float] = None
    thm2: Optional[float] = None
    excess: Optional[float] = None
    conjecture: Optional[str] = None
    method: Optional[str] = None
    witness: Optional[Witness] = None
    search: Optional[Dict[str, Any]] = None
    pieces: Optional[Pieces] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def interval(self) -> Tuple[float, float]:
        """(post, post_upper): Post lies in it."""
        return (self.post, self.post_upper)

    @property
    def certified(self) -> bool:
        return self.status == "certified"


@dataclass(frozen=True)
class CurveOrder:
    """One order of an amplified RDP curve: the mechanism is (alpha,
    eps)-RDP and the samples are (alpha, post_upper)-RDP. lb <= post <=
    Post <= post_upper; dobrushin, doeblin and ultra_mixing are the generic
    upper bounds of Balle et al. (2019) at the same order."""
    d: int
    k: int
    c: float
    alpha: float
    eps: float
    lb: float
    post: float
    post_upper: float
    status: str
    dobrushin: Optional[float] = None
    doeblin: Optional[float] = None
    ultra_mixing: Optional[float] = None
    seconds: float = 0.0
    ub: Optional[float] = None
    conjecture: Optional[str] = None
    method: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def interval(self) -> Tuple[float, float]:
        """(post, post_upper): Post at this order lies in it."""
        return (self.post, self.post_upper)


@dataclass(frozen=True)
class Guarantee:
    """One (eps, delta)-DP guarantee of the curve's summary. ``bound`` is
    "mechanism" (not amplified), "bernamp" (the amplified curve's
    post_upper), "rdp_<coefficient>" or "thm1_<item>" (Balle et al.);
    ``eps`` is None when the bound proves nothing at ``delta``."""
    bound: str
    eps: Optional[float]
    delta: float
    order: Optional[float] = None
    delta_in: Optional[float] = None
    eps_in: Optional[float] = None
    warning: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class Curve:
    """The result of ``curve``: the amplified curve order by order and its
    (eps, delta) summary."""
    mechanism: str
    d: int
    k: int
    c: float
    delta: float
    conversion: str
    orders: List[CurveOrder]
    summary: List[Guarantee]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def guarantee(self, bound: str = "bernamp") -> Guarantee:
        """The summary row of ``bound`` (default: the amplified curve)."""
        for g in self.summary:
            if g.bound == bound:
                return g
        raise KeyError(f"no summary row {bound!r}; have {[g.bound for g in self.summary]}")

    @property
    def alphas(self) -> List[float]:
        return [o.alpha for o in self.orders]

    @property
    def post_upper(self) -> List[float]:
        """The proved amplified curve, order by order (the side to claim)."""
        return [o.post_upper for o in self.orders]


@dataclass(frozen=True)
class DeltaResult:
    """One eps' of ``delta``: the samples of an (eps, delta)-DP mechanism are
    (eps_out, delta_out_upper)-DP, and delta_out is attained by a pair, so
    delta_out <= delta'(eps_out) <= delta_out_upper. The other columns are
    Balle et al.'s bounds (None where they do not apply)."""
    d: int
    k: int
    c: float
    eps: float
    delta: float
    eps_out: float
    delta_out: float
    delta_out_upper: float
    method: str
    check: Optional[str] = None
    dobrushin: Optional[float] = None
    dobrushin_hs: Optional[float] = None
    doeblin: Optional[float] = None
    ultra_mixing: Optional[float] = None
    rdp_route: Optional[float] = None
    rdp_order: Optional[float] = None
    seconds: float = 0.0
    corners: Optional[List[str]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def interval(self) -> Tuple[float, float]:
        """(delta_out, delta_out_upper): delta'(eps_out) lies in it."""
        return (self.delta_out, self.delta_out_upper)


@dataclass(frozen=True)
class PureResult:
    """One point of ``pure``: the samples of an eps-DP mechanism are
    eps_out-DP exactly; eps_out_lower <= eps_out <= eps_out_upper (claim
    eps_out_upper)."""
    d: int
    k: int
    c: float
    eps: float
    eps_out: float
    eps_out_lower: float
    eps_out_upper: float
    asymptote: Optional[float] = None
    ultra_mixing: Optional[float] = None
    method: Optional[str] = None
    ranges: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def interval(self) -> Tuple[float, float]:
        return (self.eps_out_lower, self.eps_out_upper)


@dataclass(frozen=True)
class Calibration:
    """The result of ``calibrate``: ``value`` of the unknown ``solve`` meets
    the target (target_eps, delta) after ``steps`` releases by proved
    bounds (``eps`` <= target_eps, attained at ``order``); ``fail`` is the
    nearest value tried that missed it (None when none), ``any`` says every
    value meets it, ``safe_side`` which way the answer errs."""
    solve: str
    value: float
    eps: Optional[float] = None
    order: Optional[float] = None
    fail: Optional[float] = None
    fail_eps: Optional[float] = None
    any: Optional[bool] = None
    target_eps: Optional[float] = None
    delta: Optional[float] = None
    steps: Optional[int] = None
    conversion: Optional[str] = None
    evals: Optional[int] = None
    safe_side: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class ComposeResult:
    """One (d, k, c, steps) of ``compose``: ``steps`` adaptive releases of a
    mechanism through k Bernoulli samples of theta in [c, 1-c]^d.

    With ``delta`` (the default question) the values are eps at that delta:
    eps_lower <= eps <= eps_upper, where eps_upper is the exact amplified
    profile composed as a pessimistic PLD (claim it) and eps_lower one
    real mechanism composed (None when no dominating pair is known).
    eps_rdp is the RDP route, eps_unamplified the mechanism's own PLD
    composed; None when not computed or not applicable. With ``eps`` the
    same four are deltas at that eps (delta_upper, ...). An eps_upper of
    None means no finite eps reaches delta (the CLI's +Inf). A ``plan`` row
    (a heterogeneous composition) has no d, k, c: each of its steps has its
    own, and ``steps`` is their total. ``discretization`` is the PLD grid
    step used.
    """
    steps: int
    d: Optional[int] = None
    k: Optional[int] = None
    c: Optional[float] = None
    plan: Optional[str] = None
    delta: Optional[float] = None
    eps: Optional[float] = None
    eps_upper: Optional[float] = None
    eps_lower: Optional[float] = None
    eps_rdp: Optional[float] = None
    eps_unamplified: Optional[float] = None
    delta_upper: Optional[float] = None
    delta_lower: Optional[float] = None
    delta_rdp: Optional[float] = None
    delta_unamplified: Optional[float] = None
    eps_single_pair: Optional[float] = None
    delta_single_pair: Optional[float] = None
    discretization: Optional[float] = None
    seconds: float = 0.0
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def by_delta(self) -> bool:
        """True when the row answers eps at ``delta`` (False: delta at ``eps``)."""
        return self.eps is None

    @property
    def upper(self) -> Optional[float]:
        """The answer to claim: eps_upper (or delta_upper with eps)."""
        return self.eps_upper if self.by_delta else self.delta_upper

    @property
    def interval(self) -> Tuple[Optional[float], Optional[float]]:
        """(lower, upper): the exact answer lies in it (lower None when unknown)."""
        if self.by_delta:
            return (self.eps_lower, self.eps_upper)
        return (self.delta_lower, self.delta_upper)


_NESTED = {"Optional[Witness]": Witness, "Optional[Pieces]": Pieces}
_NESTED_NAMES = {"CurveOrder": CurveOrder, "Guarantee": Guarantee}
