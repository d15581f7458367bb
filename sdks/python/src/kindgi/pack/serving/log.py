"""The service's log: one JSON record per line on stderr, in the shape every Kindgi process writes
(``time``, ``level``, ``severity``, ``subsystem``, ``message``, then ``event`` and its alias ``kind`` for
named records, then the fields)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

LEVELS = ("debug", "info", "warn", "error")
_RANK = {"debug": 10, "info": 20, "warn": 30, "error": 40}
_SEVERITY = {"debug": "DEBUG", "info": "INFO", "warn": "WARNING", "error": "ERROR"}


def _level_for(subsystem: str, level: str, levels: Mapping[str, str]) -> str:
    """The longest dotted prefix of ``subsystem`` named in ``levels`` wins, else ``level``."""
    best, length = level, -1
    for prefix, value in levels.items():
        if (subsystem == prefix or subsystem.startswith(prefix + ".")) and len(prefix) > length:
            best, length = value, len(prefix)
    return best


_last_iso: tuple[int, str] = (-1, "")


def _iso_now() -> str:
    # Under load many records share a millisecond: its text is made once.
    global _last_iso
    ms = int(time.time() * 1000)
    if ms != _last_iso[0]:
        seconds, millis = divmod(ms, 1000)
        _last_iso = (ms, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z")
    return _last_iso[1]


def _write_all(text: str) -> None:
    # Whole lines in one os.write: they reach the pipe whole even when pack code writes to stderr too.
    data = text.encode("utf-8", "replace")
    while data:
        written = os.write(2, data)
        data = data[written:]


class StderrLines:
    """Writes records to stderr. Once attached to the service's loop, the records of one loop turn go out
    in one write (a system call per ``call`` record was a measurable part of a small call's CPU time);
    records from other threads, and lifecycle records, are written at once."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = 0
        self._pending: list[str] = []

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._thread = threading.get_ident()

    def __call__(self, line: str) -> None:
        if self._loop is None or threading.get_ident() != self._thread:
            with contextlib.suppress(OSError):
                _write_all(line)
            return
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(line)

    def flush(self) -> None:
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            # A closed stderr (the supervisor is gone) must not stop a call, nor the drain.
            with contextlib.suppress(OSError):
                _write_all(text)


STDERR = StderrLines()


def _default(value: Any) -> Any:
    return str(value)


class PackLog:
    """A logger for one subsystem. ``pretty`` writes ``time LEVEL [subsystem] message`` lines instead."""

    def __init__(
        self,
        *,
        subsystem: str = "pack",
        level: str = "info",
        levels: Mapping[str, str] | None = None,
        pretty: bool = False,
        bound: Mapping[str, Any] | None = None,
        write: Callable[[str], None] | None = None,
    ) -> None:
        self.subsystem = subsystem
        self._level = level
        self._levels = dict(levels or {})
        self._threshold = _RANK[_level_for(subsystem, level, self._levels)]
        self._pretty = pretty
        self._bound = dict(bound or {})
        self._write = write or STDERR
        self._lock = threading.Lock()

    def enabled(self, level: str) -> bool:
        return _RANK[level] >= self._threshold

    def child(self, subsystem: str, fields: Mapping[str, Any]) -> PackLog:
        return PackLog(
            subsystem=subsystem,
            level=self._level,
            levels=self._levels,
            pretty=self._pretty,
            bound={**self._bound, **fields},
            write=self._write,
        )

    def line(self, level: str, message: str, fields: Mapping[str, Any] | None = None) -> None:
        """A plain line (``ctx.log``), filtered by level."""
        if self.enabled(level):
            self._emit(level, message, None, fields)

    def record(self, event: str, level: str, message: str, fields: Mapping[str, Any] | None = None) -> None:
        """A named record, filtered by level (``call``, ``env-dropped``…)."""
        if self.enabled(level):
            self._emit(level, message, event, fields)

    def lifecycle(self, event: str, level: str, message: str, fields: Mapping[str, Any] | None = None) -> None:
        """A lifecycle record (``listening``, ``boot-failed``…): written at any level, at once (a
        supervisor waits for it, and the process may exit next)."""
        self._emit(level, message, event, fields)
        STDERR.flush()

    def _emit(self, level: str, message: str, event: str | None, fields: Mapping[str, Any] | None) -> None:
        record: dict[str, Any] = {
            "time": _iso_now(),
            "level": level,
            "severity": _SEVERITY[level],
            "subsystem": self.subsystem,
            "message": message,
        }
        if event is not None:
            record["event"] = event
            record["kind"] = event
        for source in (self._bound, fields or {}):
            for key, value in source.items():
                if value is not None and key not in record:
                    record[key] = value
        if self._pretty:
            rest = {k: v for k, v in record.items() if k not in ("time", "level", "severity", "subsystem", "message")}
            text = f"{record['time']} {level.upper():<5} [{self.subsystem}] {message}"
            line = f"{text} {json.dumps(rest, default=_default)}\n" if rest else text + "\n"
        else:
            line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=_default) + "\n"
        # A closed stderr must not fail a call.
        with self._lock, contextlib.suppress(OSError):
            self._write(line)


def create_log(level: str = "info", levels: Mapping[str, str] | None = None, fmt: str = "auto") -> PackLog:
    """The service's root logger; ``auto`` is JSON unless stderr is a terminal."""
    pretty = fmt == "pretty" or (fmt == "auto" and sys.stderr.isatty())
    return PackLog(level=level, levels=levels, pretty=pretty)
