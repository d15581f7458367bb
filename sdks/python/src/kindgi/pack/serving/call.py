"""One admitted ``POST /v1/invoke``, from its body to its reply. Exactly one of the run finishing, the
deadline passing and the caller leaving settles the call; the run keeps going after the other two
(a late finish is logged) but is told: its context's cancel flag and event are set, and an async
handler's task is cancelled."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from kindgi.pack.definitions import Cancellation, CheckContext, RunTrace, Secrets, ToolContext, ToolLogger
from kindgi.pack.serving.call_log import CallTrace, ToolLogSink, log_call, log_late, log_secrets_dropped
from kindgi.pack.serving.runner import prepare_check, prepare_tool, run_async
from kindgi.pack.serving.service import MAX_BODY_BYTES, error_body, json_bytes, timeout_ms
from kindgi.pack.serving.wire import WireError, pack_error, parse_request

if TYPE_CHECKING:
    from kindgi.pack.serving.http import Reply, Request
    from kindgi.pack.serving.service import PackService

_KNOWN_CTX = {"tenantId", "runId", "requestId", "projectId", "orgId", "idempotencyKey", "settings", "env", "config"}


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class InvokeCall:
    __slots__ = (
        "_admitted",
        "_cancellation",
        "_chunks",
        "_ended",
        "_id",
        "_ids",
        "_meta",
        "_reply",
        "_request",
        "_service",
        "_settled",
        "_size",
        "_started",
        "_stopped_at",
        "_target",
        "_task",
        "_timer",
        "_trace",
    )

    def __init__(self, service: PackService, request: Request, reply: Reply, admitted: float) -> None:
        self._service = service
        self._request = request
        self._reply = reply
        self._admitted = admitted
        self._meta = (service.pack_id, service.artifact_version)
        self._chunks: list[bytes] = []
        self._size = 0
        self._started = False
        self._settled = False
        self._ended = False
        self._target = "tool"
        self._id = ""
        self._ids: dict[str, Any] = {}
        self._trace: CallTrace | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Future[Any] | None = None
        self._cancellation: Cancellation | None = None
        self._stopped_at = 0.0

    # the body (BodySink)
    def on_body(self, chunk: bytes) -> None:
        self._size += len(chunk)
        if self._size <= MAX_BODY_BYTES:
            self._chunks.append(chunk)
        else:
            self._chunks.clear()

    def on_complete(self) -> None:
        try:
            self._begin()
        except Exception as error:
            self._service.log.record(
                "service-error", "error", f"The pack service failed while handling a call: {error}"
            )
            self._reply.send(500, error_body(str(error)))
            self._end()

    def on_disconnect(self) -> None:
        if self._started:
            self.stop("cancelled")
        else:
            self._end()  # The caller left before its body was read.

    # the run
    def _elapsed_ms(self) -> float:
        return (time.perf_counter() - self._admitted) * 1000

    def _send(self, message: dict[str, Any]) -> None:
        headers = [
            (b"kindgi-duration-ms", b"%d" % int(self._elapsed_ms() + 0.5)),
            (b"kindgi-artifact-version", self._service.artifact_header),
        ]
        self._reply.send(200, json_bytes(message), headers)

    def _begin(self) -> None:
        _service, request = self._service, self._request
        if self._size > MAX_BODY_BYTES:
            self._reply.send(413, error_body("Request body too large"))
            return self._end()
        body = self._chunks[0] if len(self._chunks) == 1 else b"".join(self._chunks)
        self._chunks = []
        try:
            message = parse_request(body)
        except WireError as error:
            self._send(error.message)
            return self._end()
        self._trace = CallTrace(request.headers.get("traceparent"))
        invoke = message["kind"] == "invoke"
        self._target = "tool" if invoke else "check"
        self._id = message["tool"]["id"] if invoke else message["check"]["id"]
        headers = request.headers
        self._ids = (
            message["ctx"]
            if invoke
            else {"runId": headers.get("kindgi-run-id"), "requestId": headers.get("kindgi-request-id")}
        )
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(timeout_ms(headers.get("kindgi-timeout-ms")) / 1000, self.stop, "deadline")
        self._cancellation = Cancellation()
        self._started = True
        try:
            self._start_tool(message) if invoke else self._start_check(message)
        except WireError as error:
            return self._finish(error.message)
        if self._reply.closed:
            self.stop("cancelled")
        return None

    def _start_tool(self, message: dict[str, Any]) -> None:
        service = self._service
        found = service.catalog.find_tool(message["tool"])
        run, converted = prepare_tool(service.modules, found.entry, found.module_path, message["input"])
        wire_ctx: dict[str, Any] = message["ctx"]
        sent = wire_ctx.get("secrets")
        secrets = sent if isinstance(sent, dict) else {}
        dropped = sorted(name for name in secrets if name not in found.secrets)
        if dropped:
            log_secrets_dropped(service.log, self._meta, self._id, dropped)
            secrets = {name: value for name, value in secrets.items() if name in found.secrets}
        assert self._trace is not None and self._cancellation is not None
        visible = {key: value for key, value in wire_ctx.items() if key != "secrets"}
        ctx = ToolContext(
            tenant_id=wire_ctx["tenantId"],
            run_id=wire_ctx["runId"],
            request_id=_str_or_none(wire_ctx.get("requestId")),
            project_id=_str_or_none(wire_ctx.get("projectId")),
            org_id=_str_or_none(wire_ctx.get("orgId")),
            idempotency_key=_str_or_none(wire_ctx.get("idempotencyKey")),
            settings=wire_ctx.get("settings"),
            env=wire_ctx.get("env"),
            config=wire_ctx.get("config"),
            extra={key: value for key, value in visible.items() if key not in _KNOWN_CTX},
            secrets=Secrets(secrets),
            log=ToolLogger(ToolLogSink(service.log, wire_ctx, self._id, self._trace)),
            cancellation=self._cancellation,
            wire=visible,
        )
        if run.definition.is_async:
            self._watch(asyncio.ensure_future(run_async(lambda: run.definition.invoke(converted, ctx), run)))
        else:
            self._watch(asyncio.get_running_loop().run_in_executor(service.pool, run.run_sync, converted, ctx))

    def _start_check(self, message: dict[str, Any]) -> None:
        service = self._service
        found = service.catalog.find_check(self._id)
        run, config = prepare_check(service.modules, self._id, found.entry, found.module_path, message["config"])
        assert self._cancellation is not None
        ctx = CheckContext(
            cancellation=self._cancellation,
            run_id=_str_or_none(self._ids.get("runId")),
            request_id=_str_or_none(self._ids.get("requestId")),
        )
        trace = RunTrace(message["trace"])
        if run.definition.is_async:
            self._watch(asyncio.ensure_future(run_async(lambda: run.definition.evaluate(config, trace, ctx), run)))
        else:
            self._watch(asyncio.get_running_loop().run_in_executor(service.pool, run.run_sync, config, trace, ctx))

    def _watch(self, task: asyncio.Future[Any]) -> None:
        self._task = task
        task.add_done_callback(self._on_run_done)

    def _on_run_done(self, task: asyncio.Future[Any] | Future[Any]) -> None:
        if self._settled:
            log_late(
                self._service.log,
                self._meta,
                self._target,
                self._id,
                int((time.perf_counter() - self._stopped_at) * 1000 + 0.5),
            )
            return
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            # The runner answers every failure of pack code itself: this is the service's own.
            self._service.log.record("service-error", "error", f"The pack service failed while running a call: {error}")
            self._settled = True
            self._cancel_timer()
            self._reply.send(500, error_body(str(error)))
            return self._end()
        self._finish(task.result())

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _finish(self, message: dict[str, Any]) -> None:
        if self._settled:
            return
        self._settled = True
        self._cancel_timer()
        try:
            body = json_bytes(message)
        except (TypeError, ValueError) as error:
            message = pack_error(
                "output-validation-failed",
                f"The result of `{self._id}` cannot be sent as JSON: {error}",
                **self._subject(),
            )
            body = json_bytes(message)
        limit = self._service.settings.max_output_bytes
        if len(body) > limit:
            text = f"The result of `{self._id}` is {len(body)} bytes, over this service's limit of {limit} bytes"
            message = pack_error("output-too-large", text, **self._subject())
            body = json_bytes(message)
        headers = [
            (b"kindgi-duration-ms", b"%d" % int(self._elapsed_ms() + 0.5)),
            (b"kindgi-artifact-version", self._service.artifact_header),
        ]
        self._reply.send(200, body, headers)
        outcome = message["code"] if message["kind"] == "error" else "ok"
        self._log_call(outcome)
        self._end()

    def _subject(self) -> dict[str, str]:
        return {"toolId" if self._target == "tool" else "checkId": self._id}

    def _log_call(self, outcome: str) -> None:
        assert self._trace is not None
        log_call(
            self._service.log, self._meta, self._target, self._id, self._ids, self._trace, outcome, self._elapsed_ms()
        )

    def stop(self, reason: str) -> None:
        """The deadline passed (answered ``deadline-exceeded``) or the caller left (nothing is written)."""
        if self._settled or not self._started:
            return
        self._settled = True
        self._cancel_timer()
        self._stopped_at = time.perf_counter()
        assert self._cancellation is not None
        self._cancellation.cancel("deadline" if reason == "deadline" else "disconnect")
        if isinstance(self._task, asyncio.Task):
            self._task.cancel()
        if reason == "deadline":
            message = pack_error("deadline-exceeded", f"`{self._id}` passed its deadline", **self._subject())
            self._send(message)
        else:
            message = pack_error("cancelled", f"`{self._id}` was cancelled", **self._subject())
            self._reply.drop()
        self._log_call(message["code"])
        self._end()

    def _end(self) -> None:
        if self._ended:
            return
        self._ended = True
        self._reply.release(self)
        self._service.call_ended()
