from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def run_index(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m kindgi.pack index`` in a process of its own (imports of pack files stay there)."""
    return subprocess.run(
        [sys.executable, "-m", "kindgi.pack", "index", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


@pytest.fixture
def py_pack(tmp_path: Path) -> Path:
    """A copy of the twin Python pack, free to break."""
    target = tmp_path / "pack"
    shutil.copytree(FIXTURES / "py-pack", target, ignore=shutil.ignore_patterns("__pycache__", "dist"))
    return target
