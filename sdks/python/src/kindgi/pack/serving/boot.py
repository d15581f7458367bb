"""Booting the service in this process: the index, the modules, the env filter, prewarm, listen; then
serving until SIGTERM (drain up to 8 s, exit 0)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kindgi.pack.serving.catalog import Catalog
from kindgi.pack.serving.http import Connection
from kindgi.pack.serving.index_file import read_bundle_map, read_index
from kindgi.pack.serving.isolate import report_dropped, watch_own_stdin
from kindgi.pack.serving.log import STDERR, PackLog
from kindgi.pack.serving.platform_env import undeclared_env
from kindgi.pack.serving.runner import Modules
from kindgi.pack.serving.service import PackService, ServiceSettings
from kindgi.pack.serving.settings import ServiceConfig
from kindgi.pack.serving.uncaught import UNCAUGHT_EXIT_CODE, contain_uncaught

DRAIN_SECONDS = 8.0
"""Sized for Cloud Run's 10 s from SIGTERM to SIGKILL."""


def fail(log: PackLog, event: str, problems: list[str]) -> int:
    what = "The pack service failed to boot" if event == "boot-failed" else "The pack service settings are invalid"
    log.lifecycle(event, "error", f"{what}: {'; '.join(problems)}", {"problems": problems})
    return 1


def _resolver(config: ServiceConfig, paths: list[str]) -> tuple[Any, list[str]]:
    bundles: dict[str, str] = {}
    if config.bundle_map_path is not None:
        read, problems = read_bundle_map(config.bundle_map_path)
        if read is None:
            return None, problems
        bundles = read

    def resolve(module_path: str) -> str:
        return bundles.get(module_path, module_path)

    missing = sorted(
        {str(config.module_root / resolve(p)) for p in paths if not (config.module_root / resolve(p)).is_file()}
    )
    return resolve, [f"Missing module: {path}" for path in missing]


def _build(config: ServiceConfig, log: PackLog) -> tuple[PackService | None, list[str]]:
    index, problems = read_index(config.index_path)
    if index is None:
        return None, problems
    paths = [t["modulePath"] for t in index["tools"] if "spec" not in t] + [
        g["checkModulePath"] for g in index["guardrails"]
    ]
    resolve, problems = _resolver(config, paths)
    if problems:
        return None, problems
    if config.env_filter == "on":
        dropped = undeclared_env(index.get("env"), os.environ)
        for name in dropped:
            del os.environ[name]
        report_dropped(log, dropped)
    settings = ServiceSettings(config.token, config.max_concurrency, config.max_output_bytes, config.env_check)
    pool = ThreadPoolExecutor(max_workers=config.threads, thread_name_prefix="kindgi-pack")
    service = PackService(index, Catalog(index, resolve), Modules(config.module_root), settings, log, os.environ, pool)
    problems = service.prewarm()
    return (None, problems) if problems else (service, [])


def _use_uvloop() -> None:
    try:
        import uvloop
    except ImportError:
        return  # Not installed (or not on this platform): the standard loop serves, somewhat slower.
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


def serve(config: ServiceConfig, log: PackLog) -> int:
    """Boots and serves. Returns 1 when it cannot start; otherwise the process exits from its drain."""
    service, problems = _build(config, log)
    if service is None:
        return fail(log, "boot-failed", problems)
    _use_uvloop()
    return asyncio.run(_serve(service, config, log))


async def _serve(service: PackService, config: ServiceConfig, log: PackLog) -> int:
    loop = asyncio.get_running_loop()
    STDERR.attach(loop)
    connections: set[Connection] = set()

    def connection() -> Connection:
        conn = Connection(service, connections.discard)
        connections.add(conn)
        return conn

    try:
        server = await loop.create_server(connection, config.host, config.port, reuse_address=True)
    except OSError as error:
        return fail(log, "boot-failed", [f"Cannot listen on port {config.port}: {error.strerror or error}"])
    port = server.sockets[0].getsockname()[1]
    stopped = asyncio.Event()
    exit_code = 0

    async def drain(why: str, code: int) -> None:
        nonlocal exit_code
        if service.draining:
            return
        exit_code = code
        service.draining = True
        try:
            log.lifecycle(
                "draining",
                "info",
                f"{why}: draining {service.in_flight} calls in flight",
                {"inFlight": service.in_flight},
            )
            await service.drain(DRAIN_SECONDS)
            server.close()
            for conn in list(connections):
                conn.close()
            log.lifecycle("stopped", "info", "Stopped")
        finally:
            # Whatever failed on the way, the process must still exit.
            stopped.set()

    draining: set[asyncio.Task[None]] = set()

    def start_drain(why: str, code: int) -> None:
        task = loop.create_task(drain(why, code))
        draining.add(task)  # The loop keeps only a weak reference to a task.

    def supervisor_gone() -> None:
        loop.call_soon_threadsafe(start_drain, "The supervisor is gone (stdin closed)", 0)

    contain_uncaught(
        loop, log, lambda: start_drain("The service state is unknown after an uncaught exception", UNCAUGHT_EXIT_CODE)
    )
    loop.add_signal_handler(signal.SIGTERM, start_drain, "SIGTERM", 0)
    watch_own_stdin(supervisor_gone)
    # Announced once SIGTERM drains: a supervisor may stop the service as soon as it reads this.
    log.lifecycle(
        "listening",
        "info",
        f"Listening on port {port}",
        {"port": port, "packId": service.pack_id, "artifactVersion": service.artifact_version},
    )
    await stopped.wait()
    STDERR.flush()
    sys.stdout.flush()
    # Handlers still running in worker threads past the grace must not keep the process alive.
    os._exit(exit_code)
