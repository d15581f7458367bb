"""Protocol v2 messages as they travel: parsing a request in the published order, building error
messages, and JSON text the way the TypeScript service writes it."""

from __future__ import annotations

import json
import traceback
from typing import Any

PROTOCOL_VERSION = 2
MAX_JSON_DEPTH = 256
"""The deepest nesting of arrays and objects a request may have (every Kindgi JSON surface's limit)."""


class WireError(Exception):
    """A request the service answers with an ``error`` message instead of running anything."""

    def __init__(self, message: dict[str, Any]) -> None:
        super().__init__(message["message"])
        self.message = message


def pack_error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """A v2 ``error`` message; extra fields that are ``None`` are left out, except ``cause``."""
    out: dict[str, Any] = {"v": PROTOCOL_VERSION, "kind": "error", "code": code, "message": message}
    for key in ("toolId", "checkId"):
        if extra.get(key) is not None:
            out[key] = extra[key]
    if "cause" in extra:
        out["cause"] = extra["cause"]
    if extra.get("issues") is not None:
        out["issues"] = extra["issues"]
    return out


def dumps(value: Any) -> str:
    """Compact JSON as ``JSON.stringify`` writes it (non-ASCII kept as is)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def show(value: Any, *, missing: bool = False) -> str:
    """A value in a message, as the TypeScript service shows it (``undefined`` when absent)."""
    if missing:
        return "undefined"
    try:
        text = dumps(value)
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= 200 else text[:200] + "…"


def _is_number(value: Any, equals: int) -> bool:
    return type(value) in (int, float) and value == equals


def _exceeds_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when ``value`` nests arrays/objects more than ``limit`` deep (iterative: no recursion)."""
    if not isinstance(value, dict | list):
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        children = current.values() if isinstance(current, dict) else current
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def _malformed(message: str) -> WireError:
    return WireError(pack_error("malformed-message", message))


def _check_invoke(value: dict[str, Any]) -> None:
    tool = value.get("tool")
    if not isinstance(tool, dict) or not isinstance(tool.get("id"), str) or tool["id"] == "":
        raise _malformed("`tool.id` is required")
    if "version" in tool and not isinstance(tool["version"], str):
        raise _malformed("`tool.version` must be a string")
    ctx = value.get("ctx")
    if not isinstance(ctx, dict) or not isinstance(ctx.get("tenantId"), str) or not isinstance(ctx.get("runId"), str):
        raise _malformed("`ctx` needs string `tenantId` and `runId`")
    if "input" not in value:
        raise _malformed("`input` is required")
    _check_ctx_fields(ctx)


# The optional ctx fields' types (specs/pack-protocol.schema.json#/$defs/callContext).
_CTX_OBJECTS = ("env", "secrets", "config", "settings")


def _check_ctx_fields(ctx: dict[str, Any]) -> None:
    for name in ("projectId", "orgId"):
        if name in ctx and ctx[name] is not None and not isinstance(ctx[name], str):
            raise _malformed(f"`ctx.{name}` must be string,null")
    for name in ("requestId", "idempotencyKey"):
        if name in ctx and not isinstance(ctx[name], str):
            raise _malformed(f"`ctx.{name}` must be string")
    for name in _CTX_OBJECTS:
        if name in ctx and not isinstance(ctx[name], dict):
            raise _malformed(f"`ctx.{name}` must be object")
    for name, text in ctx.get("env", {}).items():
        if not isinstance(text, str):
            raise _malformed(f"`ctx.env.{name}` must be string")
    for name, block in ctx.get("settings", {}).items():
        if not isinstance(block, dict):
            raise _malformed(f"`ctx.settings.{name}` must be object")


def _check_check_invoke(value: dict[str, Any]) -> None:
    check = value.get("check")
    if not isinstance(check, dict) or not isinstance(check.get("id"), str) or check["id"] == "":
        raise _malformed("`check.id` is required")
    if not isinstance(value.get("config"), dict):
        raise _malformed("`config` must be an object")
    if "trace" not in value:
        raise _malformed("`trace` is required")
    if not isinstance(value["trace"], dict):
        raise _malformed("`trace` must be object")


def parse_request(body: bytes) -> dict[str, Any]:
    """Decodes and checks a request body in the published order: JSON, an object, ``v``, a known
    ``kind``, that kind's fields, then the depth limit. Raises ``WireError`` with the reply to send."""
    try:
        value = json.loads(body)
    except RecursionError:
        raise _malformed(f"Message nests arrays and objects deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:
        raise _malformed("Request body is not valid JSON") from None
    if not isinstance(value, dict):
        raise _malformed("Message must be a JSON object")
    if not _is_number(value.get("v"), PROTOCOL_VERSION):
        shown = show(value.get("v"), missing="v" not in value)
        raise WireError(pack_error("unknown-protocol-version", f"Expected protocol v2, got {shown}"))
    kind = value.get("kind")
    if kind == "invoke":
        _check_invoke(value)
    elif kind == "check-invoke":
        _check_check_invoke(value)
    else:
        shown = show(kind, missing="kind" not in value)
        raise WireError(pack_error("unexpected-message-kind", f"Unknown request kind {shown}"))
    # Checked last, and only for a body long enough to nest that deep.
    if len(body) >= 2 * (MAX_JSON_DEPTH + 1) and _exceeds_depth(value):
        raise _malformed(f"Message nests arrays and objects deeper than {MAX_JSON_DEPTH} levels")
    return value


def describe_thrown(thrown: BaseException) -> str:
    """``Name: message`` as the other services print a thrown error."""
    return f"{_error_name(thrown)}: {thrown}"


def _error_name(thrown: BaseException) -> str:
    # Python's plain ``Exception`` is the other languages' plain ``Error``.
    return "Error" if type(thrown) is Exception else type(thrown).__name__


def wire_cause(thrown: BaseException) -> dict[str, Any]:
    """A raised exception's wire form: ``{name, message, stack}``."""
    stack = "".join(traceback.format_exception(thrown)).rstrip("\n")
    return {"name": _error_name(thrown), "message": str(thrown), "stack": stack}
