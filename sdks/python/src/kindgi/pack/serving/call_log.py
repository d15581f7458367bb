"""A call's records: its trace ids, its ``call`` record, ``handler-finished-late``, ``secrets-dropped``,
and the sink behind ``ctx.log``."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Mapping
from typing import Any

from kindgi.pack.serving.log import PackLog

_TRACEPARENT = re.compile(r"^[ \t]*([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?[ \t]*$")
_CALL_ID_FIELDS = ("tenantId", "projectId", "orgId", "runId", "requestId")


class _RandomPool:
    """Ids cut from a pooled 4 KiB of randomness: one system call per ~170 calls instead of two per call."""

    def __init__(self) -> None:
        self.hex = ""
        self.at = 0

    def take(self, count: int) -> str:
        width = 2 * count
        if self.at + width > len(self.hex):
            self.hex = os.urandom(4096).hex()
            self.at = 0
        start = self.at
        self.at = start + width
        return self.hex[start : start + width]


_random_hex = _RandomPool().take


class CallTrace:
    __slots__ = ("parent_span_id", "span_id", "trace_id")

    def __init__(self, traceparent: str | None) -> None:
        self.span_id = _random_hex(8)
        self.parent_span_id: str | None = None
        match = _TRACEPARENT.match(traceparent) if traceparent and len(traceparent) <= 512 else None
        if match is not None and _valid(match):
            self.trace_id = match.group(2)
            self.parent_span_id = match.group(3)
        else:
            self.trace_id = _random_hex(16)


def _valid(match: re.Match[str]) -> bool:
    version, trace_id, span_id, _, rest = match.groups()
    if version == "ff" or (version == "00" and rest):
        return False
    return trace_id != "0" * 32 and span_id != "0" * 16


def call_ids(ids: Mapping[str, Any]) -> dict[str, str]:
    """The caller's ids that are non-empty strings, in the published order."""
    return {name: ids[name] for name in _CALL_ID_FIELDS if isinstance(ids.get(name), str) and ids[name] != ""}


def log_call(
    log: PackLog,
    meta: tuple[str, str],
    target: str,
    call_id: str,
    ids: Mapping[str, Any],
    trace: CallTrace,
    outcome: str,
    elapsed_ms: float,
) -> None:
    level = "info" if outcome == "ok" else "warn"
    if not log.enabled(level):
        return
    ms = int(elapsed_ms + 0.5)
    fields: dict[str, Any] = {"id": call_id, "outcome": outcome, "durationMs": ms, "target": target}
    fields["toolId" if target == "tool" else "checkId"] = call_id
    fields.update(call_ids(ids))
    fields["traceId"] = trace.trace_id
    fields["spanId"] = trace.span_id
    if trace.parent_span_id is not None:
        fields["parentSpanId"] = trace.parent_span_id
    fields["packId"], fields["artifactVersion"] = meta
    log.record("call", level, f"{target} {call_id} {outcome} {ms}ms", fields)


def log_late(log: PackLog, meta: tuple[str, str], target: str, call_id: str, after_ms: int) -> None:
    subject = {"toolId" if target == "tool" else "checkId": call_id}
    fields = {"target": target, "id": call_id, **subject, "afterMs": after_ms}
    fields["packId"], fields["artifactVersion"] = meta
    log.record(
        "handler-finished-late", "warn", f"{target} {call_id} finished {after_ms}ms after its call ended", fields
    )


def log_secrets_dropped(log: PackLog, meta: tuple[str, str], tool_id: str, names: list[str]) -> None:
    log.record(
        "secrets-dropped",
        "warn",
        f'Tool "{tool_id}" was sent secrets its needsSpec doesn\'t declare, dropped: {", ".join(names)}',
        {"toolId": tool_id, "names": names, "packId": meta[0], "artifactVersion": meta[1]},
    )


class ToolLogSink:
    """``ctx.log``'s sink: a ``pack.tool`` child logger with the call's ids, built on first use (most
    handlers never log). Callable from any thread."""

    __slots__ = ("_child", "_ids", "_log", "_tool_id", "_trace")

    def __init__(self, log: PackLog, ids: Mapping[str, Any], tool_id: str, trace: CallTrace) -> None:
        self._log = log
        self._ids = ids
        self._tool_id = tool_id
        self._trace = trace
        self._child: PackLog | None = None

    def __call__(self, level: str, message: str, fields: Mapping[str, Any]) -> None:
        if self._child is None:
            trace = self._trace
            bound = {**call_ids(self._ids), "toolId": self._tool_id, "traceId": trace.trace_id, "spanId": trace.span_id}
            self._child = self._log.child("pack.tool", bound)
        with contextlib.suppress(Exception):
            self._child.line(level, message, dict(fields))
