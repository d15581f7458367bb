"""Keeping the token and undeclared variables out of pack code's environment block.

Deleting from ``os.environ`` does not change ``/proc/self/environ``, so when this process's own
environment holds anything pack code must not see, the service runs in a child started with exactly the
environment pack code may see, the token handed over on a pipe (``--token-fd``). The parent relays
SIGTERM/SIGINT/SIGHUP, gives the child a stdin pipe (its end closes if the parent dies, even by SIGKILL:
the child then drains), and exits with the child's code."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from kindgi.pack.serving.argv import read_argv
from kindgi.pack.serving.log import PackLog
from kindgi.pack.serving.platform_env import undeclared_env
from kindgi.pack.serving.settings import TOKEN_ENV_VAR

_RELAYED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


@dataclass
class IsolatedEnv:
    env: dict[str, str]
    dropped: list[str]
    must_re_exec: bool


def isolated_env(declaration: Mapping[str, object] | None, env: Mapping[str, str], env_filter: str) -> IsolatedEnv:
    dropped = undeclared_env(declaration, env) if env_filter == "on" else []
    gone = {*dropped, TOKEN_ENV_VAR}
    kept = {name: value for name, value in env.items() if name not in gone}
    return IsolatedEnv(kept, dropped, bool(dropped) or TOKEN_ENV_VAR in env)


def report_dropped(log: PackLog, dropped: Sequence[str]) -> None:
    """Names only, never values, once, before pack code loads."""
    if not dropped:
        return
    log.record(
        "env-dropped",
        "warn",
        f"Dropped {len(dropped)} variables the pack doesn't declare: {', '.join(dropped)} "
        "(declare them in the pack's env, or set KINDGI_PACK_ENV_FILTER=off)",
        {"names": list(dropped)},
    )


def _child_args(argv: Sequence[str], fd: int) -> list[str]:
    values = read_argv(argv).values
    args = [f"--{name}={value}" for name, value in values.items() if name != "token-fd"]
    return [*args, "--token-fd", str(fd)]


def run_isolated(argv: Sequence[str], env: dict[str, str], token: str, log: PackLog) -> int:
    """Runs ``python -m kindgi.pack serve`` again with ``env``; returns its exit code (128 + the signal
    number when a signal ended it)."""
    read_end, write_end = os.pipe()
    os.write(write_end, token.encode())
    os.close(write_end)
    command = [sys.executable, "-m", "kindgi.pack", "serve", *_child_args(argv, read_end)]
    try:
        child = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, pass_fds=(read_end,))
    except OSError as error:
        log.lifecycle(
            "boot-failed", "error", f"Cannot start the isolated pack service: {error}", {"problems": [str(error)]}
        )
        return 1
    finally:
        os.close(read_end)
    for signum in _RELAYED:
        signal.signal(signum, lambda s, _f: child.send_signal(s))
    watch_own_stdin(lambda: child.send_signal(signal.SIGTERM))
    while True:
        try:
            code = child.wait()
            break
        except InterruptedError:
            continue
    return 128 - code if code < 0 else code


def watch_own_stdin(on_gone: Callable[[], None]) -> None:
    """When this process's stdin is a pipe (a supervisor's), its close means the supervisor is gone."""
    import stat

    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return

    def watch() -> None:
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        on_gone()

    threading.Thread(target=watch, name="kindgi-stdin-watch", daemon=True).start()
