"""The client against the real binary: every number equals the CLI's JSON
for the same flags, errors map to exceptions with the binary's message,
and the binary is found in the documented order."""

from __future__ import annotations

import ast
import dataclasses
import datetime
import os
import stat
import subprocess
import sys
import tempfile
import unittest
import warnings
from decimal import Decimal, localcontext

from . import support

import bernamp  # noqa: E402  (support puts python/ on sys.path)
from bernamp import _binary, _run  # noqa: E402


def setUpModule():
    global _env
    _env = support.BinaryEnv(support.binary())
    _env.__enter__()


def tearDownModule():
    _env.__exit__(None, None, None)


class RecordCase(unittest.TestCase):
    def assertRecord(self, got, want: dict, where: str = ""):
        """got (a dataclass) holds want (the CLI's JSON object): raw is the
        whole object, and every field the object has is equal, exactly."""
        self.assertEqual(got.raw, want, where)
        for f in dataclasses.fields(got):
            if f.name == "raw" or f.name not in want:
                continue
            v, w = getattr(got, f.name), want[f.name]
            if dataclasses.is_dataclass(v):
                self.assertRecord(v, w, f"{where}.{f.name}")
            elif isinstance(v, list) and v and dataclasses.is_dataclass(v[0]):
                self.assertEqual(len(v), len(w), f"{where}.{f.name}")
                for i, (a, b) in enumerate(zip(v, w)):
                    self.assertRecord(a, b, f"{where}.{f.name}[{i}]")
            else:
                self.assertEqual(v, w, f"{where}.{f.name}")
                if str(f.type) == "List[float]":
                    for x in v:
                        self.assertIsInstance(x, float, f"{where}.{f.name}")
                elif "float" in str(f.type) and w is not None:
                    self.assertIsInstance(v, float, f"{where}.{f.name}")


class TestNumbersEqualCLI(RecordCase):
    def test_post_grid(self):
        # Every flag off its default, so a dropped or misspelt flag changes the rows.
        got = bernamp.post(d=[1, 2], k=2, c=0.15, alpha=3.5, eps="0.5,2", tol=1e-8, method="full",
                           workers=1, no_timing=True)
        want = support.cli_json(["post", "--d", "1,2", "--k", "2", "--c", "0.15", "--alpha", "3.5",
                                 "--eps", "0.5,2", "--tol", "1e-8", "--method", "full", "--workers", "1",
                                 "--no-timing"])
        self.assertIsInstance(got, list)
        self.assertEqual(len(got), 4)
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertRecord(g, w, f"row {i}")
            self.assertIsInstance(g, bernamp.Result)
            self.assertLessEqual(g.lb, g.post)
            self.assertLessEqual(g.post, g.post_upper)
            self.assertLessEqual(g.post_upper, g.ub)
            self.assertEqual(g.interval, (g.post, g.post_upper))

    def test_post_one_point(self):
        got = bernamp.post(d=2, k=1, c=0.1, alpha=5, eps=1, certify=False, no_timing=True)
        want = support.cli_json(["post", "--d", "2", "--certify=false", "--no-timing"])
        self.assertIsInstance(got, bernamp.Result)
        self.assertRecord(got, want[0])
        self.assertIsInstance(got.witness, bernamp.Witness)
        self.assertEqual(got.certified, got.status == "certified")

    def test_post_range_flag(self):
        got = bernamp.post(range="0.05:0.5", alpha=2, eps=0.3, no_timing=True)
        want = support.cli_json(["post", "--range", "0.05:0.5", "--alpha", "2", "--eps", "0.3", "--no-timing"])
        self.assertRecord(got, want[0])
        self.assertEqual(got.ranges, want[0]["ranges"])

    def test_bounds(self):
        got = bernamp.bounds(d="1:3:1", k=[1, 4], c=0.3, alpha=50, eps=(1, 2.5), no_timing=True)
        want = support.cli_json(["bounds", "--d", "1:3:1", "--k", "1,4", "--c", "0.3", "--alpha", "50",
                                 "--eps", "1,2.5", "--no-timing"])
        self.assertEqual(len(got), 12)
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertRecord(g, w, f"row {i}")
            self.assertEqual(g.status, "bounds")
        one = bernamp.bounds(d=15, k=4, c=0.3, alpha=50, eps=3)
        self.assertIsInstance(one, bernamp.Result)
        self.assertEqual(one.lb, support.cli_json(["bounds", "--d", "15", "--k", "4", "--c", "0.3",
                                                  "--alpha", "50", "--eps", "3"])[0]["lb"])

    def test_curve_mechanism(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = bernamp.curve("gaussian", sigma=2, orders=[2, 8, 32], d=1, k=2, c=0.2, delta=1e-6,
                                conversion="mironov2017", no_timing=True)
        want = support.cli_json(["curve", "--mechanism", "gaussian", "--sigma", "2", "--orders", "2,8,32",
                                 "--k", "2", "--c", "0.2", "--delta", "1e-6", "--conversion", "mironov2017",
                                 "--no-timing"])
        self.assertRecord(got, want)
        self.assertEqual(got.alphas, [2.0, 8.0, 32.0])
        self.assertEqual(got.guarantee().bound, "bernamp")
        self.assertEqual(got.guarantee("mechanism").eps, want["summary"][0]["eps"])
        with self.assertRaises(KeyError):
            got.guarantee("nonesuch")
        # The CLI's stderr warnings arrive as BernampWarning, the bound's name kept.
        cli_warnings = [ln[len("bernamp: warning: "):] for ln in
                        support.cli(["curve", "--mechanism", "gaussian", "--sigma", "2", "--orders", "2,8,32",
                                     "--k", "2", "--c", "0.2", "--delta", "1e-6", "--conversion", "mironov2017",
                                     "--format", "json"]).stderr.splitlines()]
        self.assertEqual([str(w.message) for w in caught if w.category is bernamp.BernampWarning], cli_warnings)

    def test_curve_from_rdp_values(self):
        # The Gaussian mechanism's RDP curve is alpha / (2 sigma^2): given as
        # pairs, as values with orders=, and as an accountant's mapping, it
        # must give the named mechanism's numbers.
        orders = [1.5, 2, 4, 8]
        eps = [a / 8 for a in orders]  # sigma = 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bernamp.BernampWarning)
            named = bernamp.curve("gaussian", sigma=2, orders=orders, no_timing=True)
            for arg in (dict(rdp=list(zip(orders, eps))), dict(rdp=eps, orders=orders),
                        dict(rdp={"orders": orders, "rdp": eps})):
                got = bernamp.curve(no_timing=True, **arg)
                self.assertEqual([dataclasses.replace(o, raw={}) for o in got.orders],
                                 [dataclasses.replace(o, raw={}) for o in named.orders], arg)
                self.assertEqual([g.eps for g in got.summary], [g.eps for g in named.summary], arg)
                self.assertTrue(got.mechanism.startswith("curve from "), got.mechanism)
        leftover = [n for n in os.listdir(tempfile.gettempdir()) if n.startswith("bernamp-curve-")]
        self.assertEqual(leftover, [], "temporary curve files left behind")
        with self.assertRaises(ValueError):
            bernamp.curve(rdp=[1, 2], orders=[2])
        with self.assertRaises(TypeError):
            bernamp.curve("gaussian", sigma=2, rdp=[(2, 1)])

    def test_accountant_flags(self):
        # calibrate and curve --compose (issue 20) arrived with the client;
        # an older binary lacks them.
        if support.cli(["calibrate", "-h"]).returncode != 0:
            self.skipTest("this bernamp binary has no calibrate command")
        got = bernamp.calibrate("c", 2, 1e-5, steps=2, mechanism="gaussian", sigma=2, orders=[2, 4, 8, 16],
                                d=2, resolution=1e-2)
        want = support.cli_json(["calibrate", "--solve", "c", "--eps", "2", "--delta", "1e-5", "--steps", "2",
                                 "--mechanism", "gaussian", "--sigma", "2", "--orders", "2,4,8,16", "--d", "2",
                                 "--resolution", "1e-2"])
        self.assertRecord(got, want)
        self.assertIsInstance(got, bernamp.Calibration)
        self.assertLessEqual(got.eps, got.target_eps)
        # The same curve given as values goes through the temporary file.
        orders = [2, 4, 8, 16]
        by_values = bernamp.calibrate("c", 2, 1e-5, steps=2, rdp=[a / 8 for a in orders], orders=orders,
                                      d=2, resolution=1e-2)
        self.assertEqual((by_values.value, by_values.eps), (got.value, got.eps))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bernamp.BernampWarning)
            composed = bernamp.curve("gaussian", sigma=2, orders=[2, 8], compose=10, no_timing=True)
        self.assertRecord(composed, support.cli_json(["curve", "--mechanism", "gaussian", "--sigma", "2",
                                                      "--orders", "2,8", "--compose", "10", "--no-timing"]))

    def test_delta(self):
        got = bernamp.delta(1, 1e-3, eps_out=[0, 0.5, 1], d=2, k=1, c=0.2, no_timing=True)
        want = support.cli_json(["delta", "--eps", "1", "--delta", "1e-3", "--eps-out", "0,0.5,1",
                                 "--d", "2", "--c", "0.2", "--no-timing"])
        self.assertEqual(len(got), 3)
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertRecord(g, w, f"row {i}")
            self.assertLessEqual(g.delta_out, g.delta_out_upper)
        self.assertIsInstance(bernamp.delta(1, 1e-3, eps_out=0.5), bernamp.DeltaResult)
        self.assertEqual(len(bernamp.delta(1, 1e-3)), 5)  # the CLI's default eps' list

    def test_pure_against_closed_form(self):
        got = bernamp.pure(d=[1, 4], k=2, c=0.1, eps=[0.5, 8])
        want = support.cli_json(["pure", "--d", "1,4", "--k", "2", "--c", "0.1", "--eps", "0.5,8"])
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertRecord(g, w, f"row {i}")
            # Independently: log((e^eps rho + 1)/(rho + e^eps)), rho = ((1-c)/c)^(d k),
            # in 50-digit decimals from the exact binary values of c and eps.
            with localcontext() as ctx:
                ctx.prec = 50
                c, e = Decimal(g.c), Decimal(g.eps).exp()
                rho = ((1 - c) / c) ** (g.d * g.k)
                exact = ((e * rho + 1) / (rho + e)).ln()
            self.assertLessEqual(Decimal(g.eps_out_lower), exact, f"row {i}")
            self.assertLessEqual(exact, Decimal(g.eps_out_upper), f"row {i}")

    def test_run_any_command(self):
        self.assertEqual(bernamp.run("bounds", d=3, eps=[1, 2], no_timing=True),
                         support.cli_json(["bounds", "--d", "3", "--eps", "1,2", "--no-timing"]))
        self.assertIn("Usage:", bernamp.run("help", json=False))

    def test_duration_reaches_the_binary(self):
        # A float of seconds must be a Go duration the binary accepts.
        for timeout in (2.5, datetime.timedelta(seconds=3), "4s"):
            self.assertIsInstance(bernamp.post(timeout=timeout), bernamp.Result)


class TestErrors(unittest.TestCase):
    def test_input_error_carries_the_cli_line(self):
        line = support.cli(["post", "--c", "0.7"]).stderr.strip()
        self.assertTrue(line.startswith("bernamp: "), line)
        with self.assertRaises(bernamp.BernampInputError) as cm:
            bernamp.post(c=0.7)
        err = cm.exception
        self.assertIsInstance(err, ValueError)
        self.assertIsInstance(err, bernamp.BernampError)
        self.assertNotIsInstance(err, RuntimeError)
        self.assertEqual(str(err), line[len("bernamp: "):])
        self.assertEqual(err.exit_code, 2)
        self.assertIn("--c=0.7", err.argv)

    def test_every_command_maps_bad_input(self):
        for call in (lambda: bernamp.bounds(alpha=1), lambda: bernamp.post(eps=-1),
                     lambda: bernamp.curve("gaussian", sigma=-2, orders=[2]),
                     lambda: bernamp.delta(1, 1.5), lambda: bernamp.pure(c=0),
                     lambda: bernamp.post(eps=float("nan")),
                     lambda: bernamp.post(timeout=-1)):
            with self.assertRaises(bernamp.BernampInputError) as cm:
                call()
            self.assertNotIn("\n", str(cm.exception))
            self.assertTrue(str(cm.exception))

    def fake(self, script: str) -> str:
        tmp = tempfile.TemporaryDirectory(prefix="bernamp-fake-")
        self.addCleanup(tmp.cleanup)
        path = os.path.join(tmp.name, "bernamp")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + script + "\n")
        os.chmod(path, 0o755)
        return path

    def test_runtime_error(self):
        fake = self.fake('echo "bernamp: warning: a warning" >&2; echo "bernamp: 2 of 3 rows failed" >&2; exit 1')
        with support.BinaryEnv(fake):
            with self.assertRaises(bernamp.BernampRuntimeError) as cm:
                bernamp.post()
        self.assertIsInstance(cm.exception, RuntimeError)
        self.assertNotIsInstance(cm.exception, ValueError)
        self.assertEqual(str(cm.exception), "2 of 3 rows failed")
        self.assertEqual(cm.exception.exit_code, 1)

    def test_killed_and_garbled(self):
        with support.BinaryEnv(self.fake("kill -9 $$")):
            with self.assertRaisesRegex(bernamp.BernampRuntimeError, "killed by signal 9"):
                bernamp.post()
        with support.BinaryEnv(self.fake("echo '[{\"d\": 1'")):
            with self.assertRaisesRegex(bernamp.BernampRuntimeError, "not JSON"):
                bernamp.post()
        with support.BinaryEnv(self.fake("echo '[{\"d\": 1}]'")):
            with self.assertRaisesRegex(bernamp.BernampRuntimeError, "incomplete"):
                bernamp.post()
        with support.BinaryEnv(self.fake("echo '[]'")):
            with self.assertRaisesRegex(bernamp.BernampRuntimeError, "0 rows for one point"):
                bernamp.post()

    def test_real_runtime_failure(self):
        # A missing curve file is not a usage error of the flags.
        with self.assertRaises(bernamp.BernampError) as cm:
            bernamp.curve(in_="/nonexistent/curve.csv")
        self.assertIn("/nonexistent/curve.csv", str(cm.exception))

    def test_python_errors_for_python_mistakes(self):
        # Issue 32: a misspelled keyword is a TypeError naming it (it was the
        # binary's "flag provided but not defined: -dd"), a bool is not a
        # dimension, and an unknown mechanism is named (not --sigma blamed).
        with self.assertRaisesRegex(TypeError, r"post\(\) got an unexpected keyword argument 'dd'"):
            bernamp.post(dd=2)
        with self.assertRaisesRegex(TypeError, "d must be"):
            bernamp.post(d=True)
        self.assertEqual(_run.build_argv("post", dict(certify=True)), ["post", "--certify=true"])
        with self.assertRaisesRegex(bernamp.BernampInputError, 'mechanism is "cauchy"'):
            bernamp.curve("cauchy", sigma=2)

    def test_format_is_the_clients(self):
        with self.assertRaises(TypeError):
            bernamp.post(format="csv")


class TestFlags(unittest.TestCase):
    def test_build_argv(self):
        cases = [
            (dict(d=[1, 2], c=0.1, eps="0.1:1:0.1"), ["--d=1,2", "--c=0.1", "--eps=0.1:1:0.1"]),
            (dict(tol=1e-9, k=range(1, 3)), ["--tol=1e-09", "--k=1,2"]),
            (dict(certify=False, no_timing=True, force=None), ["--certify=false", "--no-timing=true"]),
            (dict(in_="x.csv", eps_out=(0, 0.5)), ["--in=x.csv", "--eps-out=0,0.5"]),
            (dict(timeout=1.5, rdp_timeout=datetime.timedelta(milliseconds=2), rdp_budget=2),
             ["--timeout=1500000000ns", "--rdp-timeout=2000000ns", "--rdp-budget=2000000000ns"]),
            (dict(timeout="30s", alpha=0.1 + 0.2), ["--timeout=30s", "--alpha=0.30000000000000004"]),
        ]
        # The formatting alone: a command the binary does not know, so
        # that no flag is checked against its help.
        for flags, want in cases:
            self.assertEqual(_run.build_argv("no-such-command", flags), ["no-such-command"] + want, flags)
        with self.assertRaises(ValueError):
            _run.build_argv("post", dict(d=[]))
        with self.assertRaises(TypeError):
            _run.build_argv("post", dict(d=object()))

    def test_is_scalar(self):
        for v, want in ((1, True), (0.5, True), (None, True), ("2", True), ("1,2", False),
                        ("1:3:1", False), ([1], False), ((1, 2), False)):
            self.assertEqual(_run.is_scalar(v), want, v)


class TestDiscovery(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="bernamp-find-")
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        self.pkg = os.path.join(self.dir, "pkg")
        os.makedirs(os.path.join(self.pkg, "bin"))
        self.bundled = os.path.join(self.pkg, "bin", "bernamp")
        self.env_bin = self.exe("env-bernamp")
        self.on_path = self.exe("path-bernamp")

    def exe(self, name, mode=0o755):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(path, mode)
        return path

    def find(self, env, which=None):
        return _binary.find_binary(environ=env, package_dir=self.pkg,
                                   which=lambda name: which if name == "bernamp" else None)

    def test_order(self):
        os.symlink(self.env_bin, self.bundled)
        # 1. BERNAMP_BIN first, even with a bundled binary and one on PATH.
        self.assertEqual(self.find({"BERNAMP_BIN": self.env_bin}, self.on_path), self.env_bin)
        # An empty BERNAMP_BIN counts as unset.
        self.assertEqual(self.find({"BERNAMP_BIN": ""}, self.on_path), self.bundled)
        # 2. The bundled binary before PATH.
        self.assertEqual(self.find({}, self.on_path), self.bundled)
        # 3. PATH last.
        os.remove(self.bundled)
        self.assertEqual(self.find({}, self.on_path), self.on_path)
        with self.assertRaises(bernamp.BinaryNotFoundError) as cm:
            self.find({})
        self.assertIsInstance(cm.exception, FileNotFoundError)
        self.assertIn("BERNAMP_BIN", str(cm.exception))

    def test_bad_bernamp_bin_is_not_skipped(self):
        os.symlink(self.env_bin, self.bundled)
        for bad in (os.path.join(self.dir, "missing"), self.exe("not-exec", 0o644), self.dir):
            with self.assertRaises(bernamp.BinaryNotFoundError, msg=bad):
                self.find({"BERNAMP_BIN": bad}, self.on_path)

    def test_bundled_loses_mode_bits(self):
        # zipfile.extractall writes files 0644: the client restores the x bits.
        with open(self.bundled, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(self.bundled, 0o644)
        self.assertEqual(self.find({}, self.on_path), self.bundled)
        self.assertTrue(os.stat(self.bundled).st_mode & stat.S_IXUSR)

    def test_path_end_to_end(self):
        # No BERNAMP_BIN, no bundled binary: the real binary is found on
        # PATH and runs.
        os.symlink(support.binary(), os.path.join(self.dir, "bernamp"))
        old, old_pkg = os.environ["PATH"], _binary._PACKAGE_DIR
        os.environ["PATH"], _binary._PACKAGE_DIR = self.dir, self.pkg
        try:
            with support.BinaryEnv(None):
                self.assertEqual(bernamp.find_binary(), os.path.join(self.dir, "bernamp"))
                self.assertEqual(bernamp.bounds(d=2, no_timing=True).raw,
                                 support.cli_json(["bounds", "--d", "2", "--no-timing"])[0])
                os.environ["PATH"] = os.path.join(self.dir, "pkg")
                with self.assertRaises(bernamp.BinaryNotFoundError):
                    bernamp.bounds()
        finally:
            os.environ["PATH"], _binary._PACKAGE_DIR = old, old_pkg


class TestReadme(unittest.TestCase):
    def test_python_example(self):
        # The README's "## Python" example prints what the README says it prints.
        with open(os.path.join(support.REPO, "README.md"), encoding="utf-8") as f:
            text = f.read()
        section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
        code = section.split("```python\n", 1)[1].split("```", 1)[0]
        printed = section.split("prints", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
        self.assertEqual(len(code.strip().splitlines()), 5, code)
        env = dict(os.environ, PYTHONPATH=support.PYTHON_DIR)
        p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, printed)


class TestPython39(unittest.TestCase):
    def test_syntax(self):
        # The package promises Python >= 3.9: its syntax must parse as 3.9.
        files = [os.path.join(support.PYTHON_DIR, "build_wheel.py")]
        pkg = os.path.join(support.PYTHON_DIR, "bernamp")
        files += [os.path.join(pkg, n) for n in sorted(os.listdir(pkg)) if n.endswith(".py")]
        for path in files:
            with open(path, encoding="utf-8") as f:
                ast.parse(f.read(), path, feature_version=(3, 9))


if __name__ == "__main__":
    unittest.main()
