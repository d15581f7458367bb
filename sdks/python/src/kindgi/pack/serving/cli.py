"""``python -m kindgi.pack serve``: the pack service's process entry (specs/pack-protocol.schema.json,
``processContract``).

It reads the command line and settings, makes sure pack code runs in a process whose environment block
holds neither the token nor (filter on) an undeclared variable, re-executing itself with exactly that
environment when this one holds more, then boots and serves until SIGTERM."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from kindgi.pack.serving.argv import USAGE, read_argv
from kindgi.pack.serving.boot import fail, serve
from kindgi.pack.serving.index_file import read_index
from kindgi.pack.serving.isolate import isolated_env, report_dropped, run_isolated
from kindgi.pack.serving.log import create_log
from kindgi.pack.serving.settings import TOKEN_ENV_VAR, read_config


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kindgi")
    except PackageNotFoundError:
        return "0.0.0"


def main(argv: Sequence[str]) -> int:
    """Returns the exit code: 0 for --help/--version, 2 for a bad command line, 1 when it cannot start,
    or the isolated child's code. A service serving in this process exits from its drain instead."""
    first = read_argv(argv).first
    if first is not None:
        kind, message = first
        if kind == "help":
            sys.stdout.write(USAGE)
            return 0
        if kind == "version":
            sys.stdout.write(_version() + "\n")
            return 0
        sys.stderr.write(f"kindgi.pack serve: {message}\n\n{USAGE}")
        return 2
    # The environment block as this process got it: what /proc/self/environ keeps showing.
    block = dict(os.environ)
    config, problems = read_config(argv, block)
    os.environ.pop(TOKEN_ENV_VAR, None)
    if config is None:
        return fail(create_log(), "config-invalid", problems)
    log = create_log(config.log_level, config.log_levels, config.log_format)
    # An unreadable index is reported by the boot, before any pack code loads.
    index, _ = read_index(config.index_path)
    if index is not None:
        isolated = isolated_env(index.get("env"), block, config.env_filter)
        if isolated.must_re_exec:
            report_dropped(log, isolated.dropped)
            return run_isolated(argv, isolated.env, config.token, log)
    return serve(config, log)
