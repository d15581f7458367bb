"""``python -m kindgi.pack serve`` as a process: what the conformance suite (packages/pack-conformance)
does not cover. The command line's exits, the output cap, cancellation reaching sync and async
handlers, and pack code's uncaught exceptions."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TOKEN = "serve-test-token"

TOOLS = """
import asyncio, threading, time
from kindgi.pack import define_tool

ANY = {"type": "object"}
events = []

def _big(value, ctx):
    return {"text": "x" * value.get("size", 10)}

async def _wait_async(value, ctx):
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        events.append("async cancelled")
        raise

def _wait_sync(value, ctx):
    while not ctx.cancelled:
        time.sleep(0.01)
    events.append("sync saw " + ctx._cancellation.reason)
    return {}

def _events(value, ctx):
    return {"events": list(events)}

def _stray(value, ctx):
    def boom():
        raise RuntimeError("stray thread")
    threading.Thread(target=boom).start()
    return {}

big = define_tool(id="t.big", description="d", input=ANY, output=ANY, handler=_big)
wait_async = define_tool(id="t.wait-async", description="d", input=ANY, output=ANY, handler=_wait_async)
wait_sync = define_tool(id="t.wait-sync", description="d", input=ANY, output=ANY, handler=_wait_sync)
events_tool = define_tool(id="t.events", description="d", input=ANY, output=ANY, handler=_events)
stray = define_tool(id="t.stray", description="d", input=ANY, output=ANY, handler=_stray)
"""


def _serve(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    base = {"PATH": os.environ.get("PATH", ""), "PORT": "0", "KINDGI_LOG_FORMAT": "json"}
    return subprocess.Popen(
        [sys.executable, "-m", "kindgi.pack", "serve", *args],
        env={**base, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


class Service:
    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.records: list[dict[str, Any]] = []
        self.port = int(self.wait_for(lambda r: r.get("event") == "listening")["port"])

    def wait_for(self, match: Any, timeout: float = 20) -> dict[str, Any]:
        for record in self.records:
            if match(record):
                return record
        deadline = time.monotonic() + timeout
        assert self.proc.stderr is not None
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            try:
                record = json.loads(line)
            except ValueError:
                continue
            self.records.append(record)
            if match(record):
                return record
        raise AssertionError(f"no such record; saw {self.records}")

    def call(self, tool: str, value: Any = None, headers: dict[str, str] | None = None) -> dict[str, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        body = {
            "v": 2,
            "kind": "invoke",
            "tool": {"id": tool},
            "input": value or {},
            "ctx": {"tenantId": "t", "runId": "r"},
        }
        conn.request(
            "POST",
            "/v1/invoke",
            json.dumps(body),
            {"content-type": "application/json", "kindgi-pack-token": TOKEN, **(headers or {})},
        )
        reply = json.loads(conn.getresponse().read())
        conn.close()
        return reply


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "t.py").write_text(TOOLS)
    any_schema = {"type": "object"}
    ids = ["t.big", "t.wait-async", "t.wait-sync", "t.events", "t.stray"]
    index = {
        "v": 1,
        "packId": "t",
        "packVersion": "1.0.0",
        "artifactVersion": "1",
        "publishedAt": "2026-01-01T00:00:00.000Z",
        "tools": [{"id": i, "input": any_schema, "output": any_schema, "modulePath": "tools/t.py"} for i in ids],
        "guardrails": [],
        "agents": [],
        "flows": [],
    }
    (tmp_path / "index.json").write_text(json.dumps(index))
    env = {"KINDGI_PACK_SERVICE_TOKEN": TOKEN, "KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES": "2000"}
    proc = _serve("--index", str(tmp_path / "index.json"), "--host", "127.0.0.1", env=env)
    try:
        yield Service(proc)
    finally:
        proc.kill()
        proc.wait()


def test_help_version_and_an_unknown_flag() -> None:
    for args, code, stream in ((["--help"], 0, "stdout"), (["--version"], 0, "stdout"), (["--nope"], 2, "stderr")):
        done = subprocess.run(
            [sys.executable, "-m", "kindgi.pack", "serve", *args], capture_output=True, text=True, check=False
        )
        assert done.returncode == code
        assert getattr(done, stream).strip() != ""
    assert (
        "Unknown argument"
        in subprocess.run(
            [sys.executable, "-m", "kindgi.pack", "serve", "--nope"], capture_output=True, text=True, check=False
        ).stderr
    )


def test_a_reply_over_the_output_cap_is_output_too_large(service: Service) -> None:
    assert service.call("t.big", {"size": 10})["kind"] == "result"
    reply = service.call("t.big", {"size": 5000})
    assert reply["code"] == "output-too-large"
    assert reply["toolId"] == "t.big"
    assert "over this service's limit of 2000 bytes" in reply["message"]


def test_a_deadline_cancels_an_async_task_and_sets_a_sync_handlers_flag(service: Service) -> None:
    for tool in ("t.wait-async", "t.wait-sync"):
        reply = service.call(tool, headers={"kindgi-timeout-ms": "100"})
        assert reply["code"] == "deadline-exceeded"
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        events = service.call("t.events")["output"]["events"]
        if len(events) == 2:
            break
        time.sleep(0.05)
    assert sorted(events) == ["async cancelled", "sync saw deadline"]
    late = service.wait_for(lambda r: r.get("event") == "handler-finished-late")
    assert late["target"] == "tool"


def test_pack_code_raising_outside_a_call_is_logged_and_the_service_keeps_serving(service: Service) -> None:
    assert service.call("t.stray")["kind"] == "result"
    record = service.wait_for(lambda r: r.get("event") == "pack-uncaught")
    assert record["fatal"] is False
    assert "stray thread" in record["stack"]
    assert service.call("t.big")["kind"] == "result"


def test_sigterm_drains_and_exits_0(service: Service) -> None:
    service.proc.terminate()
    assert service.proc.wait(timeout=15) == 0
    service.wait_for(lambda r: r.get("event") == "stopped")
