"""``python -m kindgi.pack index``: the Python counterpart of ``kindgi-index``, same flags and exit codes
(0 indexed, 1 indexing failed and nothing was written, 2 bad arguments)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import NoReturn

from kindgi.pack.indexing.errors import IndexerError
from kindgi.pack.indexing.run import RunOptions, run_indexer

USAGE = """Usage: python -m kindgi.pack index --pack-dir <path> [options]

Writes a Python pack's index.json: the tools, guardrails, agents and flows its pack service serves.
Path options resolve against the working directory.

Options:
  --pack-dir <path>          the pack root (required)
  --config <path>            the pyproject.toml to read (default: <pack-dir>/pyproject.toml)
  --output <path>            where to write the index (default: <pack-dir>/dist/index.json)
  --artifact-version <str>   pin the artifact version (default: YYYYMMDD.N, UTC)
  --published-at <iso>       pin the publication time (default: now; SOURCE_DATE_EPOCH if set)
  --json                     print the report (or the error) as JSON on stdout
  -h, --help                 print this help
  --version                  print the indexer's version

Exit codes: 0 indexed, 1 indexing failed (any file that fails: nothing is written), 2 bad arguments.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"kindgi-index: {message}\n\n{USAGE}")
        raise SystemExit(2)


def _version() -> str:
    try:
        return metadata.version("kindgi")
    except metadata.PackageNotFoundError:
        return "unknown"


def _published_at_from_env() -> str | None:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None or not epoch.isdigit():
        return None
    return datetime.fromtimestamp(int(epoch), UTC).isoformat().replace("+00:00", "Z")


def main(argv: Sequence[str]) -> int:
    parser = _Parser(prog="python -m kindgi.pack index", add_help=False)
    for flag in ("--pack-dir", "--config", "--output", "--artifact-version", "--published-at"):
        parser.add_argument(flag)
    for flag in ("--json", "--help", "--version", "--strict"):
        parser.add_argument(flag, action="store_true")
    parser.add_argument("-h", dest="help", action="store_true")
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if args.help:
        sys.stdout.write(USAGE)
        return 0
    if args.version:
        sys.stdout.write(f"{_version()}\n")
        return 0
    if not args.pack_dir:
        sys.stderr.write(f"kindgi-index: --pack-dir is required\n\n{USAGE}")
        return 2
    options = RunOptions(
        pack_dir=Path(args.pack_dir).resolve(),
        config_path=Path(args.config).resolve() if args.config else None,
        output_path=Path(args.output).resolve() if args.output else None,
        artifact_version=args.artifact_version,
        published_at=args.published_at or _published_at_from_env(),
    )
    outcome = run_indexer(options)
    if isinstance(outcome, IndexerError):
        return _report_error(outcome, args.json)
    if args.json:
        sys.stdout.write(json.dumps({"ok": True, **outcome.to_json()}, indent=2, ensure_ascii=False) + "\n")
    for warning in outcome.warnings:
        sys.stderr.write(f"kindgi-index: warning {warning['code']}: {warning['message']}\n")
    if not args.json:
        c = outcome.counts
        sys.stdout.write(
            f"Indexed {c['tools']} tools, {c['guardrails']} guardrails, {c['agents']} agents, {c['flows']} flows into {outcome.output_path}\n"
        )
    return 0


def _report_error(error: IndexerError, as_json: bool) -> int:
    if as_json:
        sys.stdout.write(json.dumps({"ok": False, "error": error.to_json()}, indent=2, ensure_ascii=False) + "\n")
    for failure in error.file_errors:
        sys.stderr.write(f"kindgi-index: {failure.code}: {failure.message}\n")
    if error.file_errors:
        sys.stderr.write(f"kindgi-index: {len(error.file_errors)} file(s) could not be indexed; no index was written\n")
    else:
        sys.stderr.write(f"kindgi-index: {error.code}: {error.message}\n")
    return 2 if error.code == "options-invalid" else 1
