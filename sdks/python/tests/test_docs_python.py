"""docs/python.md's pack: its `# <path>` code blocks, written into an empty folder, index and run."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

from conftest import REPO, run_index
from kindgi.pack import Cancellation, CheckContext, RunTrace, Secrets, ToolContext, ToolLogger
from kindgi.pack.modules import definitions_in, load_pack_module

DOC = REPO / "docs" / "python.md"
BLOCK = re.compile(r"```(python|toml)\n# (\S+)\n(.*?)```", re.DOTALL)


def _write_pack(root: Path) -> list[str]:
    paths = []
    for _, path, body in BLOCK.findall(DOC.read_text(encoding="utf-8")):
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
        paths.append(path)
    return paths


def test_the_docs_pack_indexes(tmp_path: Path) -> None:
    paths = _write_pack(tmp_path)
    assert "pyproject.toml" in paths and "tools/add.py" in paths
    done = run_index("--pack-dir", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr + done.stdout
    assert json.loads(done.stdout)["counts"] == {"tools": 2, "guardrails": 1, "agents": 1, "flows": 1}
    index = json.loads((tmp_path / "dist" / "index.json").read_text(encoding="utf-8"))
    assert index["packVersion"] == "1.0.0"
    assert index["env"] == {"optional": ["CITATOR_TIMEOUT"], "required": ["CITATOR_URL"]}
    agent = index["agents"][0]
    assert agent["modulePath"] == "agents/clerk.py"
    assert agent["tools"] == [
        {"id": "acme.verify-citation", "range": "1.0.0"},
        "acme.add",
        {"id": "law.search", "range": "^2.1.0"},
    ]
    assert agent["toolErrors"] == ["tool-error", "input-validation-failed"]
    assert agent["conversationPolicy"] == {
        "hitl": {"tools": ["acme.verify-citation"]},
        "maxSteps": 8,
        "maxToolCalls": 20,
    }


def _ctx(secrets: dict[str, Any]) -> ToolContext:
    return ToolContext(
        tenant_id="t",
        run_id="r",
        cancellation=Cancellation(),
        log=ToolLogger(lambda *_: None),
        secrets=Secrets(secrets),
    )


def test_the_docs_tools_and_guardrail_run(tmp_path: Path) -> None:
    _write_pack(tmp_path)
    try:
        found = {}
        for path in ("tools/verify_citation.py", "tools/add.py", "guardrails/min_length.py"):
            module = load_pack_module(tmp_path, path)
            found.update({d.id: d for _, d in definitions_in(module, tmp_path)})
    finally:
        sys.path.remove(str(tmp_path.resolve()))
    verify = found["acme.verify-citation"]
    out = verify.convert_output(verify.invoke(verify.convert_input({"citation": "Roe"}), _ctx({"CITATOR_KEY": "k1"})))
    assert out == {"found": True, "signature": "k1:Roe"}
    add = found["acme.add"]
    assert asyncio.run(add.invoke(add.convert_input({"a": 2}), _ctx({}))) == 3
    guard = found["acme.answer-long-enough"]
    result = guard.evaluate(
        guard.convert_config({"minLength": 5}), RunTrace({"output": "hi"}), CheckContext(cancellation=Cancellation())
    )
    assert guard.convert_result(result) == {"passed": False, "reason": "too short"}
