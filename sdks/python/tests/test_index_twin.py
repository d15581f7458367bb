"""The Python indexer and the TypeScript one write the same bytes for the same pack."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, run_index

PINS = ["--artifact-version", "20260102.1", "--published-at", "2026-01-02T03:04:05.678Z"]
TS_INDEXER = REPO / "packages" / "indexer" / "dist" / "main.js"


def _ts_index(out: Path) -> str:
    node = shutil.which("node")
    if node is None or not TS_INDEXER.is_file():
        pytest.fail("node and a built packages/indexer (pnpm build) are needed to compare with the TypeScript indexer")
    done = subprocess.run(
        [node, str(TS_INDEXER), "--pack-dir", str(FIXTURES / "ts-pack"), "--output", str(out), *PINS],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8")


def test_same_pack_same_bytes_but_module_paths(tmp_path: Path) -> None:
    done = run_index("--pack-dir", str(FIXTURES / "py-pack"), "--output", str(tmp_path / "py.json"), *PINS)
    assert done.returncode == 0, done.stderr
    python_text = (tmp_path / "py.json").read_text(encoding="utf-8")
    ts_text = _ts_index(tmp_path / "ts.json")
    # modulePath/checkModulePath name each language's own files: the only fields that may differ.
    py_lines, ts_lines = python_text.splitlines(), ts_text.splitlines()
    assert len(py_lines) == len(ts_lines)
    differing = [(a, b) for a, b in zip(py_lines, ts_lines, strict=True) if a != b]
    assert differing, "the fixture packs should differ in their module paths"
    for py_line, ts_line in differing:
        assert '"modulePath": "' in py_line or '"checkModulePath": "' in py_line, (py_line, ts_line)
        assert py_line.endswith('.py",') and ts_line.endswith('.mjs",')
    assert python_text.endswith("}\n")
    assert "🙂" in python_text and '"big": 1e+21' in python_text and '"ratio": 1,' in python_text


def test_two_runs_are_byte_identical(tmp_path: Path) -> None:
    for name in ("a.json", "b.json"):
        assert (
            run_index("--pack-dir", str(FIXTURES / "py-pack"), "--output", str(tmp_path / name), *PINS).returncode == 0
        )
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    index = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert index["env"] == {"optional": ["TWIN_OPTIONAL"], "required": ["TWIN_REQUIRED"]}
    assert [t["id"] for t in index["tools"]] == ["twin.add", "twin.echo"]
    # The twin packs' reviewer uses every agent field, so the byte comparison above covers each of them.
    reviewer = next(a for a in index["agents"] if a["id"] == "twin.reviewer")
    assert set(reviewer) == {
        *("id", "version", "modulePath", "name", "description", "instructions", "model", "capabilities"),
        *("tools", "guardrails", "toolErrors", "conversationPolicy"),
    }
    assert reviewer["tools"][:2] == [{"id": "twin.add", "range": "1.2.0"}, {"id": "twin.echo", "range": "1.0.0"}]
