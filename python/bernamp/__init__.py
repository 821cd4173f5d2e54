"""bernamp: the Rényi privacy amplification of Bernoulli sampling.

A client of the bernamp binary (Imola and Chaudhuri, ICML 2021): each
function runs one command with ``--format json`` and returns dataclasses.
Every answer is an interval with a stated side; claim the upper end
(``post_upper``, ``delta_out_upper``, ``eps_out_upper``).

    >>> import bernamp
    >>> r = bernamp.post(d=2, k=2, c=0.1, alpha=5, eps=1)
    >>> r.status, r.interval          # lb <= post <= Post <= post_upper

The binary is found through BERNAMP_BIN, then inside the package (wheels
bundle it), then on PATH (find_binary). Invalid input raises
BernampInputError (a ValueError), failures BernampRuntimeError, each with
the binary's one-line message.

amplified_pld (and load_pld) hand the amplified mechanism to dp_accounting
as a PrivacyLossDistribution; they import dp_accounting when called, the
rest of the client is standard library only.
"""

from ._api import bounds, calibrate, compose, curve, delta, post, pure, run
from ._binary import find_binary
from ._errors import (BernampError, BernampInputError, BernampRuntimeError, BernampWarning,
                      BinaryNotFoundError)
from ._pld import amplified_pld, load_pld
from ._results import (Calibration, ComposeResult, Curve, CurveOrder, DeltaResult, Guarantee, Pieces,
                       PureResult, Result, Witness)

__version__ = "0.1.0"

__all__ = [
    "post", "bounds", "curve", "delta", "pure", "calibrate", "compose", "run", "find_binary",
    "amplified_pld", "load_pld",
    "Result", "Witness", "Pieces", "Curve", "CurveOrder", "Guarantee",
    "DeltaResult", "PureResult", "Calibration", "ComposeResult",
    "BernampError", "BernampInputError", "BernampRuntimeError", "BinaryNotFoundError",
    "BernampWarning", "__version__",
]
