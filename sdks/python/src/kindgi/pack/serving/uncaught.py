"""Exceptions nothing caught. One thrown by pack code outside any call (a callback it scheduled, a
thread it started) is logged as ``pack-uncaught`` and the service keeps serving; one whose traceback
passes through the service's own code means its state is unknown: logged with ``fatal: true``, then the
service drains and exits 70 (EX_SOFTWARE) to be restarted."""

from __future__ import annotations

import asyncio
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kindgi.pack.serving.log import PackLog

UNCAUGHT_EXIT_CODE = 70
_OWN_DIR = str(Path(__file__).resolve().parent)


def is_service_fault(error: BaseException) -> bool:
    """True when a frame of the service's own code is on the exception's traceback."""
    return any(frame.filename.startswith(_OWN_DIR) for frame in traceback.extract_tb(error.__traceback__))


def _report(log: PackLog, error: BaseException, on_fatal: Callable[[], None]) -> None:
    fatal = is_service_fault(error)
    what = f"{type(error).__name__}: {error}"
    message = (
        f"An exception went uncaught through the pack service's own code: {what} (stopping, to be restarted)"
        if fatal
        else f"Pack code threw outside any call: {what} (the service keeps serving)"
    )
    stack = "".join(traceback.format_exception(error)).rstrip("\n")
    log.lifecycle("pack-uncaught", "error", message, {"fatal": fatal, "stack": stack})
    if fatal:
        on_fatal()


def contain_uncaught(loop: asyncio.AbstractEventLoop, log: PackLog, on_fatal: Callable[[], None]) -> None:
    def on_loop_error(_loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, BaseException):
            _report(log, error, on_fatal)
        else:
            log.record("loop-error", "warn", str(context.get("message", "asyncio reported an error")))

    def on_thread_error(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None and not isinstance(args.exc_value, SystemExit):
            loop.call_soon_threadsafe(_report, log, args.exc_value, on_fatal)

    loop.set_exception_handler(on_loop_error)
    threading.excepthook = on_thread_error
