"""Canonical JSON: the bytes JavaScript's JSON.stringify writes, checked against node itself."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from kindgi.pack.canonical_json import canonical_json

SAMPLE = {
    "b": [1.0, 1e21, 1e-7, 0.1, 123456789012345680000.0, -0.0, 2**60, 5e-324, 1e-6, 100, []],
    "a": {"é": "naïve 🙂 \u2028", "\U0001f600": "astral key", "Z": '\x00\x1f\x7f"\\\n\t', "ﬀ": {}},
    "lone": "\ud800 and \udfff",
    "": [True, False, None, {"x": [{}]}],
}


def test_matches_node() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to compare with JSON.stringify")
    # The sample travels as JSON text with escapes (lone surrogates included) node parses back.
    script = (
        "const v=JSON.parse(require('fs').readFileSync(0,'utf8'));"
        "const s=(x)=>Array.isArray(x)?x.map(s):x&&typeof x==='object'?Object.fromEntries("
        "Object.keys(x).sort().map(k=>[k,s(x[k])])):x;"
        "process.stdout.write(JSON.stringify(s(v),null,2)+'\\n')"
    )
    payload = json.dumps(SAMPLE, ensure_ascii=True)
    done = subprocess.run([node, "-e", script], input=payload.encode(), capture_output=True, timeout=60, check=True)
    assert canonical_json(SAMPLE).encode("utf-8", "surrogatepass") == done.stdout


def test_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError):
        canonical_json({"x": {1, 2}})
    with pytest.raises(ValueError, match="keys must be strings"):
        canonical_json({1: "x"})
