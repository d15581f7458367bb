"""Writing the index: validated against specs/pack-index.schema.json, then atomically (temp + rename)."""

from __future__ import annotations

import json
import os
import re
import tempfile
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema


@cache
def _index_validator() -> jsonschema.Draft202012Validator:
    text = resources.files("kindgi.pack").joinpath("specs/pack-index.schema.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def index_problems(index: Any) -> list[str]:
    """Why ``index`` does not match the index schema (empty when it does)."""
    errors = sorted(_index_validator().iter_errors(index), key=lambda e: list(e.absolute_path))
    return [f"{'/' + '/'.join(str(p) for p in e.absolute_path)} {e.message}" for e in errors]


def write_atomic(path: Path, text: str) -> None:
    """Writes ``text`` to a temp file beside ``path`` and renames it over ``path``, so a reader sees the
    old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def utc_day(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%d")


def next_artifact_version(output_path: Path, now: datetime) -> str:
    """``YYYYMMDD.N`` for the UTC day of ``now``: N one more than the existing index's when that index is
    from the same day, else 1."""
    day = utc_day(now)
    try:
        previous = json.loads(output_path.read_text(encoding="utf-8")).get("artifactVersion")
    except (OSError, ValueError, AttributeError):
        previous = None
    match = re.fullmatch(r"(\d{8})\.(\d+)", previous) if isinstance(previous, str) else None
    n = int(match.group(2)) + 1 if match and match.group(1) == day else 1
    return f"{day}.{n}"


_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$")


def parse_published_at(value: str | None) -> datetime | None:
    """An ISO 8601 time as the TypeScript indexer accepts it; ``None`` when it is not one."""
    if value is None:
        return datetime.now(UTC)
    if not _ISO.match(value):
        return None
    text = value.replace("Z", "+00:00")
    # fromisoformat takes at most 6 fraction digits; JavaScript keeps milliseconds anyway.
    text = re.sub(r"\.(\d{1,6})\d*", lambda m: "." + m.group(1), text)
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def iso_millis(moment: datetime) -> str:
    """``Date.prototype.toISOString``: UTC with milliseconds."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
