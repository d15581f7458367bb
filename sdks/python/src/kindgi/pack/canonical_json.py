"""The canonical text of a JSON document, byte for byte what the TypeScript indexer writes with
``JSON.stringify(sortKeys(value), null, 2) + "\\n"``: keys sorted by UTF-16 code unit, two-space indent,
numbers and strings as JavaScript writes them (``1.0`` → ``1``, ``1e21`` → ``1e+21``, non-ASCII as is,
lone surrogates escaped)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def canonical_json(value: Any) -> str:
    """The canonical text of ``value`` (dicts, lists/tuples, str, int, float, bool, None), with a final
    newline. Raises ``TypeError`` for anything else and ``ValueError`` for a key that is not a string."""
    parts: list[str] = []
    _write(value, "", parts)
    parts.append("\n")
    return "".join(parts)


def utf16_key(text: str) -> bytes:
    """A sort key ordering strings by UTF-16 code unit, as JavaScript's ``<`` does."""
    return text.encode("utf-16-be", "surrogatepass")


def js_string(text: str) -> str:
    """``JSON.stringify`` of a string."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def js_number(value: int | float) -> str:
    """``JSON.stringify`` of a number (ECMAScript ``Number::toString``); NaN and infinities are ``null``."""
    if isinstance(value, int):
        if abs(value) <= 2**53:
            return str(value)
        value = float(value)
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    # n: where the decimal point sits relative to the digits (value = 0.digits × 10^n).
    n = (
        len(whole.lstrip("0")) + int(exp_text or 0)
        if whole.strip("0")
        else int(exp_text or 0) - (len(frac) - len(frac.lstrip("0")))
    )
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    exponent = n - 1
    tail = ("." + digits[1:]) if k > 1 else ""
    return f"{sign}{digits[0]}{tail}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _write(value: Any, indent: str, parts: list[str]) -> None:
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, str):
        parts.append(js_string(value))
    elif isinstance(value, int | float):
        parts.append(js_number(value))
    elif isinstance(value, list | tuple):
        _write_list(value, indent, parts)
    elif isinstance(value, Mapping):
        _write_object(value, indent, parts)
    else:
        raise TypeError(f"{type(value).__name__} is not a JSON value")


def _write_list(value: list[Any] | tuple[Any, ...], indent: str, parts: list[str]) -> None:
    if not value:
        parts.append("[]")
        return
    inner = indent + "  "
    parts.append("[\n")
    for index, item in enumerate(value):
        parts.append(inner)
        _write(item, inner, parts)
        parts.append(",\n" if index < len(value) - 1 else "\n")
    parts.append(indent + "]")


def _write_object(value: Mapping[Any, Any], indent: str, parts: list[str]) -> None:
    for key in value:
        if not isinstance(key, str):
            raise ValueError(f"object keys must be strings, got {key!r}")
    keys = sorted(value, key=utf16_key)
    if not keys:
        parts.append("{}")
        return
    inner = indent + "  "
    parts.append("{\n")
    for index, key in enumerate(keys):
        parts.append(f"{inner}{js_string(key)}: ")
        _write(value[key], inner, parts)
        parts.append(",\n" if index < len(keys) - 1 else "\n")
    parts.append(indent + "}")
