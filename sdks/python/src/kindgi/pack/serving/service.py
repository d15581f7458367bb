"""The pack service's routes and statuses, in the published order: 404, 405, 401, 503, 415, 413, then
every outcome of pack code as HTTP 200 with a protocol message."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from kindgi.pack.serving.catalog import Catalog
from kindgi.pack.serving.http import Reply, Request
from kindgi.pack.serving.log import PackLog
from kindgi.pack.serving.platform_env import missing_env
from kindgi.pack.serving.runner import Modules

MAX_BODY_BYTES = 10 * 1024 * 1024
DEFAULT_TIMEOUT_MS = 120_000
_MAX_TIMER_MS = 2**31 - 1
_RETRY = [(b"retry-after", b"1")]
_ROUTES = {"/v1/invoke": "POST", "/v1/info": "GET", "/v1/index": "GET", "/healthz": "GET", "/readyz": "GET"}


def json_bytes(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def error_body(error: str, **extra: Any) -> bytes:
    return json_bytes({"error": error, **extra})


def timeout_ms(header: str | None) -> int:
    """``kindgi-timeout-ms``: a positive integer of milliseconds (capped), else the default."""
    text = (header or "").split(",")[0].strip()
    if not text.isdigit() or int(text) <= 0:
        return DEFAULT_TIMEOUT_MS
    return min(int(text), _MAX_TIMER_MS)


@dataclass
class ServiceSettings:
    token: str
    max_concurrency: int
    max_output_bytes: int
    env_check: str


class PackService:
    """Routes requests; the calls themselves are ``InvokeCall``'s (kindgi.pack.serving.call)."""

    def __init__(
        self,
        index: dict[str, Any],
        catalog: Catalog,
        modules: Modules,
        settings: ServiceSettings,
        log: PackLog,
        env: Any,
        pool: ThreadPoolExecutor,
    ) -> None:
        self.index = index
        self.catalog = catalog
        self.modules = modules
        self.settings = settings
        self.log = log
        self.env = env
        self.pool = pool
        self.pack_id: str = index["packId"]
        self.artifact_version: str = index["artifactVersion"]
        self.artifact_header = self.artifact_version.encode()
        self._token_digest = hashlib.sha256(settings.token.encode()).digest()
        self._has_required = bool((index.get("env") or {}).get("required"))
        self.prewarmed = False
        self.draining = False
        self.in_flight = 0
        self._info_cache: bytes | None = None
        self._index_body = json_bytes(index)

    # state
    def missing_env(self) -> list[str]:
        return missing_env(self.index.get("env"), self.env)

    def is_ready(self) -> bool:
        return self.prewarmed and not self.draining and (self.settings.env_check == "warn" or not self.missing_env())

    def info(self) -> dict[str, Any]:
        tools = [
            {"id": t.entry["id"], "version": t.entry["version"]} if "version" in t.entry else {"id": t.entry["id"]}
            for t in self.catalog.tools
        ]
        return {
            "protocol": 2,
            "packId": self.pack_id,
            "packVersion": self.index["packVersion"],
            "artifactVersion": self.artifact_version,
            "tools": tools,
            "checks": [check.check_id for check in self.catalog.checks],
            "missingEnv": self.missing_env(),
        }

    def token_matches(self, presented: str | None) -> bool:
        if presented is None:
            return False
        return hmac.compare_digest(hashlib.sha256(presented.encode("latin-1")).digest(), self._token_digest)

    def _unavailable(self, reply: Reply, check_load: bool) -> bool:
        """Answers the 503 that applies now, in the published order."""
        if self.draining:
            reply.send(503, error_body("draining"), _RETRY)
            return True
        if self.settings.env_check == "strict" and self._has_required:
            missing = self.missing_env()
            if missing:
                reply.send(503, error_body("missing env", missingEnv=missing), _RETRY)
                return True
        if not self.prewarmed:
            reply.send(503, error_body("not ready"), _RETRY)
            return True
        if check_load and self.in_flight >= self.settings.max_concurrency:
            reply.send(503, error_body("overloaded"), _RETRY)
            return True
        return False

    # routing (Handler)
    def open(self, request: Request, reply: Reply) -> Any:
        try:
            return self._route(request, reply)
        except Exception as error:  # The service's own failure: a 500 naming it.
            self.log.record("service-error", "error", f"The pack service failed while handling a request: {error}")
            reply.send(500, error_body(str(error)))
            return None

    def _route(self, request: Request, reply: Reply) -> Any:
        path = request.path
        method = _ROUTES.get(path)
        if method is None:
            reply.send(404, error_body(f"No route {request.url}"))
        elif request.method != method:
            reply.send(405, error_body(f"Use {method}"))
        elif path == "/healthz":
            reply.send(200, b'{"status":"ok"}')
        elif path == "/readyz":
            if not self._unavailable(reply, False):
                reply.send(200, b'{"status":"ready"}')
        elif not self.token_matches(request.headers.get("kindgi-pack-token")):
            reply.send(401, error_body("Bad pack token"))
        elif path == "/v1/info":
            reply.send(200, json_bytes(self.info()))
        elif path == "/v1/index":
            reply.send(200, self._index_body)
        else:
            return self._invoke(request, reply)
        return None

    def _invoke(self, request: Request, reply: Reply) -> Any:
        if self._unavailable(reply, True):
            return None
        if "application/json" not in request.headers.get("content-type", "").lower():
            reply.send(415, error_body("Content-Type must be application/json"))
            return None
        from kindgi.pack.serving.call import InvokeCall

        self.in_flight += 1
        return InvokeCall(self, request, reply, time.perf_counter())

    def call_ended(self) -> None:
        self.in_flight -= 1

    # lifecycle
    def prewarm(self) -> list[str]:
        """Imports every module once; lists every failure as ``<id>: <message>``."""
        problems = []
        for module_path, owner in self.catalog.module_paths():
            try:
                self.modules.load(module_path)
            except Exception as error:
                problems.append(f"{owner}: {type(error).__name__}: {error}")
        missing = self.missing_env()
        if missing:
            self.log.record(
                "missing-env",
                "warn",
                f"The pack's env.required names have no value: {', '.join(missing)}",
                {"check": self.settings.env_check, "names": missing},
            )
        self.prewarmed = not problems
        return problems

    async def drain(self, seconds: float) -> bool:
        self.draining = True
        until = time.monotonic() + seconds
        while self.in_flight > 0 and time.monotonic() < until:
            await asyncio.sleep(0.025)
        return self.in_flight == 0
