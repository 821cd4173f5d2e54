"""The wheel of build_wheel.py: well formed (RECORD hashes, WHEEL tags,
METADATA from pyproject.toml, the binary mode 755), installable with pip
offline, and the installed package runs its bundled binary with nothing
else to find."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

from . import support

import bernamp  # noqa: E402
import build_wheel  # noqa: E402  (python/ is on sys.path)

TAGS = ["manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_1_x86_64"]
POINT = ["--d", "2", "--k", "2", "--c", "0.1", "--alpha", "5", "--eps", "1", "--no-timing"]
SCRIPT = ("import json, bernamp\n"
          "r = bernamp.post(d=2, k=2, c=0.1, alpha=5, eps=1, no_timing=True)\n"
          "print(json.dumps({'binary': bernamp.find_binary(), 'file': bernamp.__file__, 'raw': r.raw}))\n")


def _pip_works() -> bool:
    p = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
    return p.returncode == 0


class TestWheel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="bernamp-wheel-test-")
        # The wheel's binary must be static, as the CI build (CGO_ENABLED=0) is.
        cls.wheel = build_wheel.build(support.binary(), os.path.join(cls.tmp, "dist"))
        cls.want = support.cli_json(["post"] + POINT)[0]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_isolated(self, sys_path_dir: str) -> dict:
        """SCRIPT in a fresh interpreter that sees only sys_path_dir's
        bernamp: no BERNAMP_BIN, an empty PATH, not the source tree."""
        env = {k: v for k, v in os.environ.items() if k not in ("BERNAMP_BIN", "PYTHONPATH")}
        env["PATH"] = os.path.join(self.tmp, "empty-path")
        env["PYTHONPATH"] = sys_path_dir
        p = subprocess.run([sys.executable, "-s", "-c", SCRIPT], env=env,
                           cwd=self.tmp, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def test_name_and_files(self):
        project = build_wheel.read_project()
        self.assertEqual(project["version"], bernamp.__version__)
        name = os.path.basename(self.wheel)
        self.assertEqual(name, f"bernamp-{bernamp.__version__}-py3-none-{'.'.join(TAGS)}.whl")
        dist_info = f"bernamp-{bernamp.__version__}.dist-info"
        with zipfile.ZipFile(self.wheel) as zf:
            names = zf.namelist()
            self.assertEqual(names[-1], f"{dist_info}/RECORD")
            for want in ("bernamp/__init__.py", "bernamp/_api.py", "bernamp/py.typed", "bernamp/bin/bernamp",
                         f"{dist_info}/METADATA", f"{dist_info}/WHEEL"):
                self.assertIn(want, names)
            self.assertFalse([n for n in names if "__pycache__" in n or n.endswith(".pyc")], names)
            # RECORD: every other file, with its urlsafe-base64 sha256 and size.
            rows = [ln.split(",") for ln in zf.read(f"{dist_info}/RECORD").decode().splitlines()]
            self.assertEqual(sorted(r[0] for r in rows), sorted(names))
            for path, digest, size in rows:
                if path.endswith("/RECORD"):
                    self.assertEqual((digest, size), ("", ""))
                    continue
                data = zf.read(path)
                want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual((digest, int(size)), (want, len(data)), path)
            wheel = zf.read(f"{dist_info}/WHEEL").decode().splitlines()
            self.assertIn("Wheel-Version: 1.0", wheel)
            self.assertIn("Root-Is-Purelib: false", wheel)
            self.assertEqual([ln for ln in wheel if ln.startswith("Tag: ")], [f"Tag: py3-none-{t}" for t in TAGS])
            meta = zf.read(f"{dist_info}/METADATA").decode()
            head = meta.split("\n\n", 1)[0].splitlines()
            for want in ("Metadata-Version: 2.1", "Name: bernamp", f"Version: {bernamp.__version__}",
                         "Requires-Python: >=3.9"):
                self.assertIn(want, head)
            info = zf.getinfo("bernamp/bin/bernamp")
            self.assertEqual(info.external_attr >> 16, 0o100755)
            with open(support.binary(), "rb") as f:
                self.assertEqual(zf.read(info), f.read())
            self.assertEqual(zf.getinfo("bernamp/_api.py").external_attr >> 16, 0o100644)

    def test_reproducible(self):
        again = build_wheel.build(support.binary(), os.path.join(self.tmp, "again"))
        with open(self.wheel, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_refuses_dynamic_binary(self):
        # The interpreter running the tests is a dynamically linked executable.
        exe = os.path.realpath(sys.executable)
        with open(exe, "rb") as f:
            if f.read(4) != b"\x7fELF":
                self.skipTest(f"{exe} is not an ELF file")
        with self.assertRaisesRegex(build_wheel.BuildError, "dynamically linked"):
            build_wheel.build(exe, os.path.join(self.tmp, "dyn"))
        with self.assertRaisesRegex(build_wheel.BuildError, "not an ELF"):
            build_wheel.build(os.path.join(support.PYTHON_DIR, "pyproject.toml"), os.path.join(self.tmp, "txt"))

    def test_unzipped_runs_bundled_binary(self):
        # zipfile drops the mode bits: the client restores them and runs it.
        target = os.path.join(self.tmp, "unzipped")
        with zipfile.ZipFile(self.wheel) as zf:
            zf.extractall(target)
        got = self.run_isolated(target)
        self.assertEqual(got["binary"], os.path.join(target, "bernamp", "bin", "bernamp"))
        self.assertTrue(got["file"].startswith(target), got["file"])
        self.assertEqual(got["raw"], self.want)

    @unittest.skipUnless(_pip_works(), "pip is not installed for this interpreter")
    def test_pip_install(self):
        target = os.path.join(self.tmp, "site")
        p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps",
                            "--disable-pip-version-check", "--target", target, self.wheel],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(os.access(os.path.join(target, "bernamp", "bin", "bernamp"), os.X_OK))
        got = self.run_isolated(target)
        self.assertEqual(got["binary"], os.path.join(target, "bernamp", "bin", "bernamp"))
        self.assertEqual(got["raw"], self.want)

    @unittest.skipUnless(_pip_works(), "pip is not installed for this interpreter")
    def test_pep517_backend(self):
        # pip builds the wheel through build_wheel.py itself (requires = []),
        # offline; the binary comes from BERNAMP_WHEEL_BINARY.
        out = os.path.join(self.tmp, "pep517")
        env = dict(os.environ, BERNAMP_WHEEL_BINARY=support.binary())
        p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-index", "--no-deps",
                            "--disable-pip-version-check", "-w", out, support.PYTHON_DIR],
                           env=env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(os.listdir(out), [os.path.basename(self.wheel)])
        with zipfile.ZipFile(os.path.join(out, os.path.basename(self.wheel))) as a, \
                zipfile.ZipFile(self.wheel) as b:
            self.assertEqual(a.namelist(), b.namelist())
            for n in a.namelist():
                self.assertEqual(a.read(n), b.read(n), n)

    def test_project_reader_without_tomllib(self):
        # Python 3.9 and 3.10 have no tomllib: the subset reader must agree.
        with open(os.path.join(support.PYTHON_DIR, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
        subset = build_wheel._read_project_subset(text)
        try:
            import tomllib
        except ImportError:
            self.skipTest("no tomllib to compare with")
        full = tomllib.loads(text)["project"]
        for key in ("name", "version", "description", "readme", "requires-python", "classifiers", "urls"):
            self.assertEqual(subset[key], full[key], key)


if __name__ == "__main__":
    unittest.main()
