#!/usr/bin/env python3
"""Build a wheel of the bernamp client that bundles the bernamp binary,
with the Python standard library alone.

    python3 python/build_wheel.py                     # go build linux/amd64, static
    python3 python/build_wheel.py --binary FILE       # bundle a prebuilt binary
    python3 python/build_wheel.py --goos darwin --goarch arm64

The binary goes to bernamp/bin/bernamp inside the package (where the client
looks after BERNAMP_BIN), mode 755. The wheel is py3-none-<platform>: the
Python code is version-independent and the platform tag is read from the
binary itself (ELF, Mach-O or PE header). A Linux binary must be static (no
ELF interpreter, as CGO_ENABLED=0 builds are), so it runs on any glibc or
musl system and the wheel carries the manylinux2014 and musllinux_1_1 tags.
The files follow the wheel format (PEP 427, PEP 491): .dist-info/METADATA
(core metadata 2.1 from pyproject.toml), WHEEL, and RECORD with the sha256 of
every file; entries are sorted and dated SOURCE_DATE_EPOCH (default
1980-01-01), so the same inputs give the same wheel byte for byte.

This file is also the PEP 517 build backend of pyproject.toml (build_wheel,
build_sdist), so `pip wheel python/` and `pip install python/` work offline;
they run `go build` for the host's platform from the clone, or bundle the
file named by the environment variable BERNAMP_WHEEL_BINARY.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import os
import platform
import re
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PACKAGE = "bernamp"

# Platform tags per (GOOS, GOARCH), and the binary's name. Go 1.25 and later
# need macOS 12.
TARGETS: Dict[Tuple[str, str], Tuple[List[str], str]] = {
    ("linux", "amd64"): (["manylinux_2_17_x86_64", "manylinux2014_x86_64", "musllinux_1_1_x86_64"], "bernamp"),
    ("linux", "arm64"): (["manylinux_2_17_aarch64", "manylinux2014_aarch64", "musllinux_1_1_aarch64"], "bernamp"),
    ("darwin", "amd64"): (["macosx_12_0_x86_64"], "bernamp"),
    ("darwin", "arm64"): (["macosx_12_0_arm64"], "bernamp"),
    ("windows", "amd64"): (["win_amd64"], "bernamp.exe"),
}


class BuildError(Exception):
    pass


# ---- the binary ----------------------------------------------------------

_ELF_MACHINES = {62: "amd64", 183: "arm64"}
_MACHO_CPUS = {0x01000007: "amd64", 0x0100000C: "arm64"}
_PE_MACHINES = {0x8664: "amd64"}


def binary_target(path: str) -> Tuple[str, str]:
    """(GOOS, GOARCH) of an executable, from its header. A Linux ELF file
    must be static: one with a PT_INTERP segment (a dynamic loader) is
    refused, since the wheel claims any glibc or musl Linux."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] == b"\x7fELF":
            if head[4] != 2 or head[5] != 1:
                raise BuildError(f"{path}: not a 64-bit little-endian ELF file")
            machine = struct.unpack_from("<H", head, 18)[0]
            if machine not in _ELF_MACHINES:
                raise BuildError(f"{path}: ELF machine {machine} is not amd64 or arm64")
            phoff, = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
            for i in range(phnum):
                p_type, = struct.unpack_from("<I", table, i * phentsize)
                if p_type == 3:  # PT_INTERP
                    raise BuildError(f"{path}: dynamically linked (has an ELF interpreter); "
                                     "build it with CGO_ENABLED=0")
            return "linux", _ELF_MACHINES[machine]
        if head[:4] == b"\xcf\xfa\xed\xfe":
            cpu, = struct.unpack_from("<I", head, 4)
            if cpu in _MACHO_CPUS:
                return "darwin", _MACHO_CPUS[cpu]
            raise BuildError(f"{path}: Mach-O CPU type {cpu:#x} is not amd64 or arm64")
        if head[:2] == b"MZ":
            f.seek(struct.unpack_from("<I", head, 0x3C)[0])
            sig = f.read(6)
            if sig[:4] == b"PE\0\0" and struct.unpack_from("<H", sig, 4)[0] in _PE_MACHINES:
                return "windows", "amd64"
            raise BuildError(f"{path}: a PE file, but not for amd64")
    raise BuildError(f"{path}: not an ELF, Mach-O or PE executable")


def go_build(goos: str, goarch: str, out: str) -> None:
    """Build cmd/bernamp for goos/goarch into out: static (CGO_ENABLED=0),
    -trimpath, symbol tables stripped (-s -w)."""
    if not os.path.isfile(os.path.join(REPO, "go.mod")):
        raise BuildError(f"{REPO} is not the bernamp module (no go.mod): "
                         "give a binary (--binary or BERNAMP_WHEEL_BINARY)")
    env = dict(os.environ, CGO_ENABLED="0", GOOS=goos, GOARCH=goarch)
    cmd = ["go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./cmd/bernamp"]
    try:
        subprocess.run(cmd, cwd=REPO, env=env, check=True)
    except FileNotFoundError:
        raise BuildError("go is not on PATH: install Go or give a binary "
                         "(--binary or BERNAMP_WHEEL_BINARY)") from None
    except subprocess.CalledProcessError as err:
        raise BuildError(f"go build failed with exit status {err.returncode}") from None


def host_target() -> Tuple[str, str]:
    goos = {"Linux": "linux", "Darwin": "darwin", "Windows": "windows"}.get(platform.system())
    goarch = {"x86_64": "amd64", "amd64": "amd64", "AMD64": "amd64",
              "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine())
    if (goos, goarch) not in TARGETS:
        raise BuildError(f"no wheel target for {platform.system()}/{platform.machine()}")
    return goos, goarch  # type: ignore[return-value]


# ---- metadata from pyproject.toml ----------------------------------------

def read_project(path: str = os.path.join(HERE, "pyproject.toml")) -> dict:
    """The [project] table of pyproject.toml (with [project.urls] as
    "urls"). tomllib where it exists (3.11+); else a reader of the subset
    this file uses: strings, arrays of strings, and those two tables."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        import tomllib
    except ImportError:
        return _read_project_subset(data.decode("utf-8"))
    return tomllib.loads(data.decode("utf-8"))["project"]


def _read_project_subset(text: str) -> dict:
    project: dict = {}
    table: Optional[dict] = None
    key, items = None, None
    for line in text.splitlines():
        line = line.strip()
        if items is not None:
            if line.startswith("]"):
                table[key] = items  # type: ignore[index]
                items = None
            elif line and not line.startswith("#"):
                items.append(re.match(r'"((?:[^"\\]|\\.)*)"', line).group(1))  # type: ignore[union-attr]
            continue
        if not line or line.startswith("#"):
            continue
        m = re.match(r"\[([\w.-]+)\]$", line)
        if m:
            table = {"project": project, "project.urls": project.setdefault("urls", {})}.get(m.group(1))
            continue
        if table is None:
            continue
        m = re.match(r'([\w-]+)\s*=\s*(.*)$', line)
        if not m:
            raise BuildError(f"pyproject.toml: cannot read {line!r} without tomllib")
        key, value = m.group(1), m.group(2)
        if value.startswith("["):
            if value.rstrip().endswith("]"):
                table[key] = re.findall(r'"((?:[^"\\]|\\.)*)"', value)
            else:
                items = []
        else:
            table[key] = re.match(r'"((?:[^"\\]|\\.)*)"', value).group(1)  # type: ignore[union-attr]
    return project


def metadata(project: dict) -> str:
    """Core metadata 2.1 (METADATA and PKG-INFO)."""
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}",
             f"Summary: {project['description']}"]
    for name, url in project.get("urls", {}).items():
        lines.append(f"Project-URL: {name}, {url}")
    lines.append(f"Requires-Python: {project['requires-python']}")
    lines.extend(f"Classifier: {c}" for c in project.get("classifiers", []))
    body = ""
    readme = project.get("readme")
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(HERE, readme), encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


# ---- the wheel -----------------------------------------------------------

def _epoch() -> Tuple[int, int, int, int, int, int]:
    t = max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)
    return time.gmtime(t)[:6]


def package_files() -> List[Tuple[str, str]]:
    """(archive name, source path) of the package's Python files, sorted;
    bin/, caches and compiled files are left out."""
    out = []
    root = os.path.join(HERE, PACKAGE)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", "bin"))
        for name in filenames:
            if name.endswith(".py") or name == "py.typed":
                src = os.path.join(dirpath, name)
                out.append((os.path.relpath(src, HERE).replace(os.sep, "/"), src))
    return sorted(out)


def record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def build(binary: str, out_dir: str) -> str:
    """Write the wheel bundling binary into out_dir and return its path."""
    goos, goarch = binary_target(binary)
    tags, exe = TARGETS[(goos, goarch)]
    project = read_project()
    name, version = project["name"], project["version"]
    dist_info = f"{name}-{version}.dist-info"
    wheel_name = f"{name}-{version}-py3-none-{'.'.join(tags)}.whl"
    entries: List[Tuple[str, bytes, int]] = []
    for arc, src in package_files():
        with open(src, "rb") as f:
            entries.append((arc, f.read(), 0o644))
    with open(binary, "rb") as f:
        entries.append((f"{PACKAGE}/bin/{exe}", f.read(), 0o755))
    entries.sort()
    wheel_meta = "Wheel-Version: 1.0\nGenerator: bernamp build_wheel.py\nRoot-Is-Purelib: false\n"
    wheel_meta += "".join(f"Tag: py3-none-{t}\n" for t in tags)
    entries.append((f"{dist_info}/METADATA", metadata(project).encode("utf-8"), 0o644))
    entries.append((f"{dist_info}/WHEEL", wheel_meta.encode("utf-8"), 0o644))
    record = io.StringIO()
    for arc, data, _ in entries:
        record.write(f"{arc},{record_hash(data)},{len(data)}\n")
    record.write(f"{dist_info}/RECORD,,\n")
    entries.append((f"{dist_info}/RECORD", record.getvalue().encode("utf-8"), 0o644))

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, wheel_name)
    tmp = path + ".tmp"
    date = _epoch()
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for arc, data, mode in entries:
            info = zipfile.ZipInfo(arc, date_time=date)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so installers honour the mode bits
            zf.writestr(info, data)
    os.replace(tmp, path)
    return path


def build_with(binary: Optional[str], goos: str, goarch: str, out_dir: str) -> str:
    """build with binary, or with a fresh go build for goos/goarch."""
    if binary:
        return build(binary, out_dir)
    with tempfile.TemporaryDirectory(prefix="bernamp-wheel-") as tmp:
        exe = os.path.join(tmp, TARGETS[(goos, goarch)][1])
        go_build(goos, goarch, exe)
        return build(exe, out_dir)


# ---- PEP 517 backend -----------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    binary = (config_settings or {}).get("binary") or os.environ.get("BERNAMP_WHEEL_BINARY")
    goos, goarch = host_target() if not binary else ("", "")
    return os.path.basename(build_with(binary, goos, goarch, wheel_directory))


def build_sdist(sdist_directory, config_settings=None):
    """The client's sources, without the binary and the Go module: a wheel
    built from it needs BERNAMP_WHEEL_BINARY."""
    project = read_project()
    base = f"{project['name']}-{project['version']}"
    files = [("pyproject.toml", os.path.join(HERE, "pyproject.toml")),
             ("build_wheel.py", os.path.join(HERE, "build_wheel.py")),
             ("README.md", os.path.join(HERE, "README.md"))] + package_files()
    os.makedirs(sdist_directory, exist_ok=True)
    path = os.path.join(sdist_directory, base + ".tar.gz")
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))

    def add(tf: tarfile.TarFile, arc: str, data: bytes) -> None:
        info = tarfile.TarInfo(f"{base}/{arc}")
        info.size, info.mtime, info.mode = len(data), mtime, 0o644
        tf.addfile(info, io.BytesIO(data))

    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for arc, src in files:
            with open(src, "rb") as f:
                add(tf, arc, f.read())
        add(tf, "PKG-INFO", metadata(project).encode("utf-8"))
    return os.path.basename(path)


# ---- command line --------------------------------------------------------

def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", help="bundle this binary instead of running go build")
    ap.add_argument("--goos", default="linux", help="target of go build (default linux)")
    ap.add_argument("--goarch", default="amd64", help="target of go build (default amd64)")
    ap.add_argument("--out", default=os.path.join(HERE, "dist"), help="directory of the wheel (default python/dist)")
    args = ap.parse_args(argv)
    if (args.goos, args.goarch) not in TARGETS:
        ap.error(f"--goos/--goarch: {args.goos}/{args.goarch} is not one of "
                 + ", ".join(f"{o}/{a}" for o, a in TARGETS))
    try:
        path = build_with(args.binary, args.goos, args.goarch, args.out)
    except (BuildError, OSError) as err:
        print(f"build_wheel: {err}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
