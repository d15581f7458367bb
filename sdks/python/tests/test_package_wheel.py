"""The wheel: built with hatchling, installed offline (``--no-index``) into a fresh virtualenv with its
dependencies from a local wheelhouse, then run: ``python -m kindgi.pack index`` on the twin pack."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO

SDK = REPO / "sdks" / "python"
# .ci/run downloads the runtime dependencies here (pip download); KINDGI_PY_WHEELHOUSE names another.
WHEELHOUSE = Path(os.environ.get("KINDGI_PY_WHEELHOUSE", REPO / ".ci" / "venv" / "wheelhouse"))


def _run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd, timeout=600, check=False)
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done


def test_wheel_installs_offline_and_indexes(tmp_path: Path) -> None:
    if not any(WHEELHOUSE.glob("pydantic-*.whl")):
        pytest.fail(f"no wheelhouse at {WHEELHOUSE}: run pip download -d {WHEELHOUSE} pydantic jsonschema")
    dist = tmp_path / "dist"
    # --no-isolation: the build backend (hatchling) comes from this venv, not from the network.
    _run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", dist, SDK)
    wheel = next(dist.glob("kindgi-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "kindgi/pack/specs/pack-index.schema.json" in names
    assert "kindgi/pack/__main__.py" in names
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "-q", "--no-index", "--find-links", dist, "--find-links", WHEELHOUSE, "kindgi")
    out = tmp_path / "index.json"
    done = _run(
        python,
        "-m",
        "kindgi.pack",
        "index",
        "--pack-dir",
        FIXTURES / "py-pack",
        "--output",
        out,
        "--json",
        cwd=tmp_path,
    )
    assert json.loads(done.stdout)["counts"] == {"tools": 2, "guardrails": 1, "agents": 2, "flows": 1}
    located = _run(python, "-c", "import kindgi.pack, sys; sys.stdout.write(kindgi.pack.__file__)").stdout
    assert located.startswith(str(venv))


def test_bundled_specs_equal_the_repository_specs() -> None:
    for name in ("pack-index.schema.json", "pack-protocol.schema.json", "platform-env.json"):
        bundled = SDK / "src" / "kindgi" / "pack" / "specs" / name
        assert bundled.read_bytes() == (REPO / "specs" / name).read_bytes(), f"copy specs/{name} to {bundled}"
