"""The indexer fails loud, with the TypeScript indexer's codes and exit codes, and writes nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from conftest import run_index
from kindgi.pack.indexing import IndexerError, RunOptions, run_indexer


def _json_error(pack: Path, *extra: str) -> tuple[int, dict[str, object]]:
    done = run_index("--pack-dir", str(pack), "--json", *extra)
    return done.returncode, json.loads(done.stdout)["error"]


def test_every_failing_file_is_listed_and_nothing_is_written(py_pack: Path) -> None:
    (py_pack / "tools" / "broken.py").write_text("raise RuntimeError('nope')\n")
    (py_pack / "tools" / "empty.py").write_text("X = 1\n")
    (py_pack / "tools" / "wrong.py").write_text(
        "from kindgi.pack import define_flow\nf = define_flow(id='twin.f', nodes=[], edges=[])\n"
    )
    (py_pack / "tools" / "bad_def.py").write_text(
        "from kindgi.pack import define_tool\nt = define_tool(id='twin.x', description='', handler=print)\n"
    )
    code, error = _json_error(py_pack)
    assert code == 1
    files = {(e["file"], e["code"]) for e in error["fileErrors"]}  # type: ignore[union-attr]
    assert files == {
        ("tools/bad_def.py", "file-import-failed"),
        ("tools/broken.py", "file-import-failed"),
        ("tools/empty.py", "no-default-export"),
        ("tools/wrong.py", "kind-mismatch"),
    }
    assert error["code"] == "file-import-failed"
    assert "description" in json.dumps(error)
    assert not (py_pack / "dist").exists()


def test_duplicate_ids_and_reserved_checks(py_pack: Path) -> None:
    (py_pack / "tools" / "echo2.py").write_text((py_pack / "tools" / "echo.py").read_text())
    (py_pack / "guardrails" / "cite.py").write_text(
        "from kindgi.pack import define_guardrail\n"
        "g = define_guardrail(id='twin.cite', check=lambda trace: True, check_id='must-cite', on_violation='halt')\n"
    )
    code, error = _json_error(py_pack)
    assert code == 1
    codes = {e["code"] for e in error["fileErrors"]}  # type: ignore[union-attr]
    assert codes == {"manifest-validation-failed", "reserved-check-id"}


def test_bad_options_exit_2_and_config_errors_exit_1(py_pack: Path, tmp_path: Path) -> None:
    assert run_index("--pack-dir", str(py_pack), "--published-at", "yesterday").returncode == 2
    assert run_index("--pack-dir", str(py_pack), "--no-such-flag").returncode == 2
    assert run_index().returncode == 2
    code, error = _json_error(tmp_path)
    assert (code, error["code"]) == (1, "config-not-found")
    (tmp_path / "pyproject.toml").write_text("[tool.kindgi]\npack = { id = 'x', version = '1.0.0' }\n")
    code, error = _json_error(tmp_path)
    assert (code, error["code"]) == (1, "discovery-empty")
    (tmp_path / "pyproject.toml").write_text(
        "[tool.kindgi]\nlanguage = 'java'\npack = { id = 'x', version = '1.0.0' }\n"
    )
    assert _json_error(tmp_path)[1]["code"] == "language-mismatch"
    (tmp_path / "pyproject.toml").write_text(
        "[tool.kindgi]\npack = { id = 'x', version = '1' }\nenv = { required = ['KINDGI_X'] }\n"
    )
    assert _json_error(tmp_path)[1]["code"] == "config-parse-failed"


def test_artifact_versions_count_up_within_a_day(py_pack: Path) -> None:
    day = datetime.now(UTC).strftime("%Y%m%d")
    first = run_indexer(RunOptions(pack_dir=py_pack))
    assert not isinstance(first, IndexerError)
    second = run_indexer(RunOptions(pack_dir=py_pack))
    assert not isinstance(second, IndexerError)
    index = json.loads((py_pack / "dist" / "index.json").read_text())
    assert index["artifactVersion"] == f"{day}.2"
    assert index["publishedAt"].endswith("Z") and len(index["publishedAt"]) == 24
