"""compose against the real binary (every value equals the CLI's JSON, the
sides in order, bad input raised), and amplified_pld inside dp_accounting:
its PLD composed by dp_accounting gives compose's eps_upper, composes
with dp_accounting's own PLDs, and is never above the unamplified
mechanism's.

dp_accounting is the installed one, else the vendored copy beside the
repository (../shared/vendor/dp_accounting). Its tests skip only when numpy
or scipy is missing, and fail then too under
BERNAMP_REQUIRE_DP_ACCOUNTING=1 (as CI sets it).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest
import warnings
from unittest import mock

from . import support

import bernamp  # noqa: E402  (support puts python/ on sys.path)

VENDORED = os.path.join(os.path.dirname(support.REPO), "shared", "vendor", "dp_accounting")
REQUIRE = os.environ.get("BERNAMP_REQUIRE_DP_ACCOUNTING", "") not in ("", "0")

GAUSSIAN = dict(sigma=2, c=0.1)  # sigma 2, c 0.1, d = k = 1: 100 steps give eps_upper about 19.61 at 1e-5


def setUpModule():
    global _env
    _env = support.BinaryEnv(support.binary())
    _env.__enter__()


def tearDownModule():
    _env.__exit__(None, None, None)


def load_dp_accounting():
    """dp_accounting's privacy_loss_distribution module, or SkipTest when
    numpy or scipy is missing (an AssertionError under
    BERNAMP_REQUIRE_DP_ACCOUNTING). A missing dp_accounting with numpy and
    scipy present is an error: the vendored copy should be there."""
    missing = [m for m in ("numpy", "scipy") if importlib.util.find_spec(m) is None]
    if missing:
        reason = (f"{' and '.join(missing)} not installed for {sys.executable}: dp_accounting cannot run "
                  "(Debian: apt-get install python3-numpy python3-scipy python3-mpmath python3-attr python3-absl)")
        if REQUIRE:
            raise AssertionError(reason + "; BERNAMP_REQUIRE_DP_ACCOUNTING is set")
        raise unittest.SkipTest(reason)
    if importlib.util.find_spec("dp_accounting") is None and VENDORED not in sys.path:
        sys.path.append(VENDORED)
    from dp_accounting.pld import privacy_loss_distribution
    return privacy_loss_distribution


class TestCompose(unittest.TestCase):
    def assertRow(self, got, want: dict, where: str = ""):
        """got (a ComposeResult) holds want (the CLI's row) exactly, floats as floats."""
        self.assertIsInstance(got, bernamp.ComposeResult, where)
        self.assertEqual(got.raw, want, where)
        for f in dataclasses.fields(got):
            if f.name == "raw":
                continue
            v = getattr(got, f.name)
            self.assertEqual(v, want.get(f.name, None if f.name != "seconds" else 0.0), f"{where}.{f.name}")
            if "float" in str(f.type) and v is not None:
                self.assertIsInstance(v, float, f"{where}.{f.name}")

    def test_eps_at_delta(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = bernamp.compose("gaussian", sigma=2, c=0.1, steps=[1, 10], no_timing=True)
        # Off a terminal the CLI prints no progress lines: no warnings.
        self.assertEqual([str(w.message) for w in caught if issubclass(w.category, bernamp.BernampWarning)], [])
        want = support.cli_json(["compose", "--mechanism", "gaussian", "--sigma", "2", "--c", "0.1",
                                 "--steps", "1,10", "--no-timing"])
        self.assertIsInstance(got, list)
        self.assertEqual(len(got), 2)
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertRow(g, w, f"row {i}")
            self.assertEqual((g.d, g.k, g.c, g.steps, g.delta, g.eps), (1, 1, 0.1, [1, 10][i], 1e-5, None))
            self.assertTrue(g.by_delta)
            for name in ("eps_upper", "eps_lower", "eps_rdp", "eps_unamplified"):
                self.assertIsNotNone(getattr(g, name), name)
            self.assertLessEqual(g.eps_lower, g.eps_upper)
            self.assertLessEqual(g.eps_upper, g.eps_unamplified)
            self.assertLessEqual(g.eps_upper, g.eps_rdp)
            self.assertEqual(g.interval, (g.eps_lower, g.eps_upper))
            self.assertEqual(g.upper, g.eps_upper)
        # Ten steps: the amplified upper side well below the unamplified PLD (7.51).
        self.assertLess(got[1].eps_upper, 0.6 * got[1].eps_unamplified)

    def test_delta_at_eps_one_row(self):
        got = bernamp.compose("laplace", b=1, k=2, c=0.2, steps=3, eps=1.5, rdp_route=False, no_timing=True)
        want = support.cli_json(["compose", "--mechanism", "laplace", "--b", "1", "--k", "2", "--c", "0.2",
                                 "--steps", "3", "--eps", "1.5", "--rdp-route=false", "--no-timing"])
        self.assertEqual(len(want), 1)
        self.assertRow(got, want[0])
        self.assertFalse(got.by_delta)
        self.assertEqual((got.eps, got.delta, got.eps_upper, got.delta_rdp), (1.5, None, None, None))
        self.assertLessEqual(got.delta_lower, got.delta_upper)
        self.assertLess(got.delta_upper, got.delta_unamplified)
        self.assertEqual(got.upper, got.delta_upper)
        self.assertEqual(got.interval, (got.delta_lower, got.delta_upper))

    def test_rdp_curve_values(self):
        # An RDP curve given as values goes through a temporary CSV as
        # --mechanism rdp --in, and answers as the same file given by path.
        orders = [2, 4, 8, 16, 32, 64]
        eps = [a / 8 for a in orders]  # the Gaussian mechanism, sigma 2
        tmp = tempfile.TemporaryDirectory(prefix="bernamp-compose-test-")
        self.addCleanup(tmp.cleanup)
        path = os.path.join(tmp.name, "curve.csv")
        with open(path, "w") as f:
            f.write("alpha,eps\n" + "".join(f"{a},{e!r}\n" for a, e in zip(orders, eps)))
        want = support.cli_json(["compose", "--mechanism", "rdp", "--in", path, "--steps", "10",
                                 "--unamplified=false", "--no-timing"])[0]
        for arg in (dict(rdp=eps, orders=orders), dict(rdp=list(zip(orders, eps))),
                    dict(mechanism="rdp", rdp={"orders": orders, "rdp": eps}),
                    dict(mechanism="rdp", in_=path)):
            got = bernamp.compose(steps=10, unamplified=False, no_timing=True, **arg)
            self.assertEqual({k: v for k, v in got.raw.items() if k != "seconds"},
                             {k: v for k, v in want.items() if k != "seconds"}, arg)
        leftover = [n for n in os.listdir(tempfile.gettempdir()) if n.startswith("bernamp-curve-")]
        self.assertEqual(leftover, [], "temporary curve files left behind")

    def test_bad_input(self):
        calls = {
            "c out of range": lambda: bernamp.compose("gaussian", sigma=2, c=0.7),
            "no mechanism": lambda: bernamp.compose(),
            "no sigma": lambda: bernamp.compose("gaussian"),
            "steps 0": lambda: bernamp.compose("gaussian", sigma=2, steps=0),
            "delta 1": lambda: bernamp.compose("gaussian", sigma=2, delta=1),
            "emit-pld, two rows": lambda: bernamp.compose("gaussian", sigma=2, steps=[1, 2], emit_pld=os.devnull),
        }
        for what, call in calls.items():
            with self.subTest(what):
                with self.assertRaises(bernamp.BernampInputError) as cm:
                    call()
                self.assertIsInstance(cm.exception, ValueError)
                self.assertEqual(cm.exception.exit_code, 2)
                self.assertTrue(str(cm.exception))
                self.assertNotIn("\n", str(cm.exception))
        line = support.cli(["compose", "--mechanism", "gaussian", "--sigma", "2", "--c", "0.7"]).stderr.strip()
        with self.assertRaises(bernamp.BernampInputError) as cm:
            bernamp.compose("gaussian", sigma=2, c=0.7)
        self.assertEqual("bernamp: " + str(cm.exception), line)
        with self.assertRaises(TypeError):
            bernamp.compose("gaussian", sigma=2, orders=[2, 4])  # orders go with rdp= values only
        with self.assertRaises(TypeError):
            bernamp.compose("gaussian", sigma=2, rdp=[(2, 1)])
        with self.assertRaises(TypeError):
            bernamp.compose("gaussian", sigma=2, format="csv")
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'bogus'"):
            bernamp.compose("gaussian", sigma=2, bogus=1)

    def test_amplified_pld_without_dp_accounting(self):
        # dp_accounting stays optional: without it amplified_pld raises an
        # ImportError that names it, before running the binary.
        hidden = {name: None for name in ("dp_accounting", "dp_accounting.pld")}
        with mock.patch.dict(sys.modules, hidden), support.BinaryEnv("/nonexistent/bernamp"):
            with self.assertRaises(ImportError) as cm:
                bernamp.amplified_pld("gaussian", sigma=2)
            self.assertIn("dp_accounting", str(cm.exception))
            self.assertNotIsInstance(cm.exception, bernamp.BernampError)
            with self.assertRaises(ImportError):
                bernamp.load_pld({"remove": {}})


class TestAmplifiedPLD(unittest.TestCase):
    """amplified_pld's PLD in dp_accounting, at value_discretization_interval 1e-4."""

    @classmethod
    def setUpClass(cls):
        cls.pldlib = load_dp_accounting()
        cls.amp = bernamp.amplified_pld("gaussian", d=1, k=1, steps=1, **GAUSSIAN)
        cls.gauss = cls.pldlib.from_gaussian_mechanism(2, value_discretization_interval=1e-4)
        # The same at 1e-3, where composing ten is quick.
        cls.coarse = bernamp.amplified_pld("gaussian", discretization=1e-3, **GAUSSIAN)
        cls.coarse_gauss = cls.pldlib.from_gaussian_mechanism(2, value_discretization_interval=1e-3)

    def assertOneStep(self, pld_eps: float, row, h: float):
        """pld_eps, the one-step PLD's eps, is compose's eps_upper rounded
        up by less than the discretization h (and above eps_lower)."""
        self.assertGreaterEqual(pld_eps, row.eps_upper - 1e-12, (pld_eps, row.eps_upper))
        self.assertLessEqual(pld_eps, row.eps_upper + h, (pld_eps, row.eps_upper))
        if row.eps_lower is not None:
            self.assertGreaterEqual(pld_eps, row.eps_lower)

    def test_type_and_one_step(self):
        self.assertIsInstance(self.amp, self.pldlib.PrivacyLossDistribution)
        row = bernamp.compose("gaussian", steps=1, rdp_route=False, **GAUSSIAN)
        # The PLD compose composes: for one step compose answers from the
        # exact profile itself, which the PLD's grid of 1e-4 can only
        # round up, by less than one step.
        self.assertOneStep(self.amp.get_epsilon_for_delta(1e-5), row, 1e-4)
        # And dp_accounting's Gaussian PLD is compose's unamplified one (1.99309).
        self.assertAlmostEqual(self.gauss.get_epsilon_for_delta(1e-5), row.eps_unamplified,
                               delta=1e-6 * row.eps_unamplified)

    def test_self_compose_is_compose(self):
        eps = self.amp.self_compose(100).get_epsilon_for_delta(1e-5)
        row = bernamp.compose("gaussian", steps=100, rdp_route=False, unamplified=False, **GAUSSIAN)
        self.assertLess(abs(eps / row.eps_upper - 1), 0.005, (eps, row.eps_upper))
        self.assertTrue(19 < row.eps_upper < 20.2, row.eps_upper)  # [17.66, 19.61] when written

    def test_composes_with_dp_accounting_pld(self):
        both = self.amp.compose(self.gauss)
        eps = both.get_epsilon_for_delta(1e-5)
        self.assertAlmostEqual(eps, self.gauss.compose(self.amp).get_epsilon_for_delta(1e-5), delta=1e-9)
        amp1, gauss1 = self.amp.get_epsilon_for_delta(1e-5), self.gauss.get_epsilon_for_delta(1e-5)
        self.assertGreater(eps, max(amp1, gauss1))
        # Each (eps_i, delta/2)-DP makes the pair (eps_1 + eps_2, delta)-DP.
        self.assertLess(eps, self.amp.get_epsilon_for_delta(5e-6) + self.gauss.get_epsilon_for_delta(5e-6))
        # And below the unamplified Gaussian composed twice.
        self.assertLess(eps, self.gauss.self_compose(2).get_epsilon_for_delta(1e-5))
        # dp_accounting's shortcut for one eps agrees with the composed PLD.
        self.assertAlmostEqual(self.amp.get_delta_for_epsilon_for_composed_pld(self.gauss, 1.0),
                               both.get_delta_for_epsilon(1.0), delta=1e-12)

    def test_amplification_never_hurts(self):
        grid = [0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.42, 0.5, 1.0, 2.0, 4.0]
        amp, gauss = self.amp.get_delta_for_epsilon(grid), self.gauss.get_delta_for_epsilon(grid)
        for e, a, g in zip(grid, amp, gauss):
            self.assertLessEqual(a, g + 1e-12, f"eps {e}")
        # The amplified losses stay below 0.43; what remains at 0.5 is the
        # masses' rounding deficit (about 1e-13), which bernamp puts at
        # infinity (the pessimistic side).
        self.assertLessEqual(self.amp.get_delta_for_epsilon(0.5), 1e-12)
        self.assertGreater(self.amp.get_delta_for_epsilon(0.0), 0.1)
        # Composed too: ten steps each (on the grid of 1e-3).
        amp10, gauss10 = self.coarse.self_compose(10), self.coarse_gauss.self_compose(10)
        grid10 = [0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0]
        for e, a, g in zip(grid10, amp10.get_delta_for_epsilon(grid10), gauss10.get_delta_for_epsilon(grid10)):
            self.assertLessEqual(a, g + 1e-12, f"10 steps, eps {e}")

    def test_asymmetric_pair(self):
        # Subsampled Gaussian (add/remove differ): both directions reach
        # dp_accounting, which answers the larger.
        sg = dict(q=0.1, sigma=1, c=0.1)
        amp = bernamp.amplified_pld("subsampled-gaussian", **sg)
        rows = bernamp.compose("subsampled-gaussian", steps=[1, 10], rdp_route=False, unamplified=False, **sg)
        self.assertOneStep(amp.get_epsilon_for_delta(1e-5), rows[0], 1e-4)
        eps10 = amp.self_compose(10).get_epsilon_for_delta(1e-5)
        self.assertLess(abs(eps10 / rows[1].eps_upper - 1), 0.005, (eps10, rows[1].eps_upper))
        own = self.pldlib.from_gaussian_mechanism(1, sampling_prob=0.1, value_discretization_interval=1e-4)
        grid = [0.0, 0.02, 0.05, 0.1, 0.2, 0.5]
        for e, a, g in zip(grid, amp.get_delta_for_epsilon(grid), own.get_delta_for_epsilon(grid)):
            self.assertLessEqual(a, g + 1e-12, f"eps {e}")
        self.assertGreater(amp.compose(own).get_epsilon_for_delta(1e-5), own.get_epsilon_for_delta(1e-5))

    def test_bad_input(self):
        with self.assertRaises(bernamp.BernampInputError):
            bernamp.amplified_pld("gaussian", sigma=-1)
        with self.assertRaises(bernamp.BernampInputError):
            bernamp.amplified_pld("gaussian", sigma=2, discretization=2)
        with self.assertRaises(TypeError):
            bernamp.amplified_pld("gaussian", sigma=2, steps=[1, 2])  # one PLD
        with self.assertRaises(TypeError):
            bernamp.amplified_pld("gaussian", sigma=2, emit_pld="x.json")  # amplified_pld's own

    def test_docs_example(self):
        # docs/dp_accounting.md's example prints what the page says it prints.
        with open(os.path.join(support.REPO, "docs", "dp_accounting.md"), encoding="utf-8") as f:
            section = f.read().split("\n## Example\n", 1)[1].split("\n## ", 1)[0]
        code = section.split("```python\n", 1)[1].split("```", 1)[0]
        printed = section.split("prints", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
        dp_root = os.path.dirname(os.path.dirname(os.path.dirname(self.pldlib.__file__)))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([support.PYTHON_DIR, dp_root]))
        p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, printed)

    def test_discretization(self):
        # dp_accounting composes equal intervals only; amplified_pld's is
        # the float asked for, so the same value_discretization_interval fits.
        coarse, own = self.coarse, self.coarse_gauss
        with self.assertRaises(ValueError):
            coarse.compose(self.gauss)
        self.assertGreater(coarse.compose(own).get_epsilon_for_delta(1e-5), own.get_epsilon_for_delta(1e-5))
        # Coarser grid, pessimistic both: at least the fine one's eps.
        self.assertGreaterEqual(coarse.get_epsilon_for_delta(1e-5), self.amp.get_epsilon_for_delta(1e-5) - 1e-12)

    def test_load_pld(self):
        tmp = tempfile.TemporaryDirectory(prefix="bernamp-compose-test-")
        self.addCleanup(tmp.cleanup)
        path = os.path.join(tmp.name, "pld.json")
        bernamp.compose("gaussian", steps=3, emit_pld=path, rdp_route=False, unamplified=False, **GAUSSIAN)
        with open(path) as f:
            obj = json.load(f)
        self.assertEqual((obj["discretization"], obj["pessimistic"], obj["add"]), (1e-4, True, None))
        loaded = bernamp.load_pld(path)
        self.assertEqual(loaded.get_epsilon_for_delta(1e-5), bernamp.load_pld(obj).get_epsilon_for_delta(1e-5))
        direct = bernamp.amplified_pld("gaussian", steps=3, **GAUSSIAN)
        self.assertEqual(loaded.get_epsilon_for_delta(1e-5), direct.get_epsilon_for_delta(1e-5))
        with self.assertRaisesRegex(ValueError, "discretization"):
            bernamp.load_pld(path, discretization=1e-3)
        bad = [{}, {"discretization": 1e-4, "remove": {"lower_loss": 0.5, "probs": [1], "infinity_mass": 0}},
               {"discretization": 1e-4, "remove": {"lower_loss": 0, "probs": [-1], "infinity_mass": 0}},
               {"discretization": 1e-4, "remove": {"lower_loss": 0, "probs": [1], "infinity_mass": 2}},
               {"discretization": 0, "remove": {"lower_loss": 0, "probs": [1], "infinity_mass": 0}}]
        for obj in bad:
            with self.assertRaises(ValueError, msg=obj):
                bernamp.load_pld(obj)


if __name__ == "__main__":
    unittest.main()


class TestComposePlan(unittest.TestCase):
    def test_plan_and_single_pair_rows(self):
        # A plan row has no d, k, c (each step has its own) and steps is
        # their total; the single-pair route and the grid step come through.
        plan = os.path.join(support.REPO, "testdata", "compose", "plan.json")
        r = bernamp.compose(plan=plan, rdp_route=False, no_timing=True)
        want = support.cli_json(["compose", "--plan", plan, "--rdp-route=false", "--no-timing"])[0]
        self.assertEqual((r.plan, r.d, r.k, r.c, r.steps), (plan, None, None, None, 125))
        self.assertEqual((r.eps_upper, r.eps_unamplified, r.discretization),
                         (want["eps_upper"], want["eps_unamplified"], want["discretization"]))
        self.assertLess(r.eps_upper, r.eps_unamplified)
        s = bernamp.compose("gaussian", sigma=2, c=0.1, steps=100, rdp_route=False, unamplified=False,
                            lower=False, single_pair=1)
        self.assertIsNone(s.eps_lower)
        self.assertGreater(s.eps_single_pair, s.eps_upper)
