"""The service's settings from its command line and environment. Every problem is collected, so one
failed start lists them all (a ``config-invalid`` record, exit 1)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kindgi.pack.serving.argv import read_argv
from kindgi.pack.serving.log import LEVELS

DEFAULT_INDEX_PATH = "/app/index.json"
DEFAULT_PORT = 8080
DEFAULT_MAX_CONCURRENCY = 32
DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024
DEFAULT_THREADS = 32
TOKEN_ENV_VAR = "KINDGI_PACK_SERVICE_TOKEN"
_TOKEN_RULE = (
    "may hold only printable ASCII without spaces (it travels in an HTTP header). "
    "Use a random value such as `openssl rand -hex 32`."
)
_PRINTABLE = re.compile(r"^[\x21-\x7e]+$")


@dataclass
class ServiceConfig:
    index_path: Path
    module_root: Path
    port: int
    token: str
    token_source: str
    host: str | None = None
    bundle_map_path: Path | None = None
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES
    threads: int = DEFAULT_THREADS
    env_check: str = "strict"
    env_filter: str = "on"
    log_level: str = "info"
    log_levels: dict[str, str] = field(default_factory=dict)
    log_format: str = "auto"


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _read_token_fd(raw: str, problems: list[str]) -> str | None:
    fd = int(raw) if raw.isdigit() else -1
    if fd < 3:
        problems.append(f"--token-fd must be a file descriptor number of 3 or more, got {_quoted(raw)}")
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        os.close(fd)
    except OSError as error:
        problems.append(f"Cannot read the token from file descriptor {fd}: {error.strerror or error}")
        return None
    return b"".join(chunks).decode("utf-8", "replace")


def _positive(env: Mapping[str, str], name: str, default: int, problems: list[str]) -> int:
    raw = env.get(name, "")
    if raw == "":
        return default
    text = raw.strip()
    if not text.isdigit() or int(text) < 1:
        problems.append(f"{name} must be a positive integer, got {_quoted(raw)}")
        return default
    return int(text)


def _choice(env: Mapping[str, str], name: str, choices: tuple[str, str], problems: list[str]) -> str:
    raw = env.get(name, "")
    if raw == "":
        return choices[0]
    if raw not in choices:
        problems.append(f"{name} must be `{choices[0]}` or `{choices[1]}`, not {_quoted(raw)}")
        return choices[0]
    return raw


def _port(env: Mapping[str, str], problems: list[str]) -> int:
    raw = env.get("PORT", "")
    if raw == "":
        return DEFAULT_PORT
    if not re.fullmatch(r"\d{1,5}", raw) or int(raw) > 65535:
        problems.append(f"PORT must be a port number, got {_quoted(raw)}")
        return DEFAULT_PORT
    return int(raw)


def _token(raw: str | None, source: str, problems: list[str]) -> str:
    name, missing = (
        (TOKEN_ENV_VAR, f"{TOKEN_ENV_VAR} is required")
        if source == "env"
        else (f"The token on file descriptor {source}", f"The token on file descriptor {source} is empty")
    )
    token = (raw or "").strip()
    if token == "":
        problems.append(missing)
    elif not _PRINTABLE.match(token):
        problems.append(f"{name} {_TOKEN_RULE}")
    return token


def _log_settings(env: Mapping[str, str], config: ServiceConfig, problems: list[str]) -> None:
    level = env.get("KINDGI_LOG_LEVEL", "").strip().lower()
    if level and level not in LEVELS:
        problems.append(f"KINDGI_LOG_LEVEL must be one of {', '.join(LEVELS)}, not {_quoted(env['KINDGI_LOG_LEVEL'])}")
    elif level:
        config.log_level = level
    for entry in env.get("KINDGI_LOG_LEVELS", "").split(","):
        if entry.strip() == "":
            continue
        subsystem, _, value = (part.strip().lower() for part in entry.partition("="))
        if not subsystem or value not in LEVELS:
            problems.append(
                f"KINDGI_LOG_LEVELS takes subsystem=level pairs (levels: {', '.join(LEVELS)}), not {_quoted(entry)}"
            )
            continue
        config.log_levels[subsystem] = value
    fmt = env.get("KINDGI_LOG_FORMAT", "").strip().lower()
    if fmt and fmt not in ("auto", "json", "pretty"):
        problems.append(
            f"KINDGI_LOG_FORMAT must be `auto`, `json` or `pretty`, not {_quoted(env['KINDGI_LOG_FORMAT'])}"
        )
    elif fmt:
        config.log_format = fmt


def read_config(
    argv: Sequence[str], env: Mapping[str, str], cwd: Path | None = None
) -> tuple[ServiceConfig | None, list[str]]:
    """``(config, [])`` or ``(None, problems)``. Reads ``--token-fd`` (and closes it) when given."""
    here = cwd or Path.cwd()
    reading = read_argv(argv)
    problems = list(reading.problems)
    args = reading.values
    fd = args.get("token-fd")
    from_fd = _read_token_fd(fd, problems) if fd is not None else None
    port = _port(env, problems)
    token = ""
    if fd is None:
        token = _token(env.get(TOKEN_ENV_VAR), "env", problems)
    elif from_fd is not None:
        token = _token(from_fd.split("\n")[0], fd, problems)
    index_path = (here / (args.get("index") or env.get("KINDGI_PACK_INDEX") or DEFAULT_INDEX_PATH)).resolve()
    config = ServiceConfig(
        index_path=index_path,
        module_root=(here / args["module-root"]).resolve() if "module-root" in args else index_path.parent,
        port=port,
        token=token,
        token_source="env" if fd is None else "fd",
        host=args.get("host"),
        bundle_map_path=(here / args["bundle-map"]).resolve() if "bundle-map" in args else None,
        max_concurrency=_positive(env, "KINDGI_PACK_SERVICE_MAX_CONCURRENCY", DEFAULT_MAX_CONCURRENCY, problems),
        max_output_bytes=_positive(env, "KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES", DEFAULT_MAX_OUTPUT_BYTES, problems),
        threads=_positive(env, "KINDGI_PACK_SERVICE_THREADS", DEFAULT_THREADS, problems),
        env_check=_choice(env, "KINDGI_PACK_ENV_CHECK", ("strict", "warn"), problems),
        env_filter=_choice(env, "KINDGI_PACK_ENV_FILTER", ("on", "off"), problems),
    )
    _log_settings(env, config, problems)
    return (None, problems) if problems else (config, [])
