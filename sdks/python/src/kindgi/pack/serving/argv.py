"""The service's command line, read by the rules every pack service keeps: ``--flag value`` or
``--flag=value``; a value flag followed by another value flag has no value; ``-h``/``--help`` and
``--version`` as written; anything else is an unknown argument, named as given."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

VALUE_FLAGS = {
    "index": "a path",
    "module-root": "a directory",
    "bundle-map": "a path",
    "host": "an address",
    "token-fd": "a file descriptor number",
}

USAGE = """Usage: python -m kindgi.pack serve [--index <path>] [--module-root <dir>] [--bundle-map <path>] \
[--host <address>] [--token-fd <n>]

Serves a Python pack's tools and guardrail checks over pack protocol v2 (HTTP).

Options (relative paths resolve against the working directory):
  --index <path>        the pack's index.json (else KINDGI_PACK_INDEX, else /app/index.json)
  --module-root <dir>   where the index's module paths resolve (default: the index's directory)
  --bundle-map <path>   a map of the index's module paths to the files to load instead
  --host <address>      listen on one address (default: every interface)
  --token-fd <n>        read the pack token from inherited file descriptor n (n >= 3) instead of
                        KINDGI_PACK_SERVICE_TOKEN
  -h, --help            print this help and exit
  --version             print the version and exit

Environment:
  KINDGI_PACK_SERVICE_TOKEN              the token callers send as kindgi-pack-token (unless --token-fd)
  PORT                                   listen port (default 8080; 0 = any free port)
  KINDGI_PACK_SERVICE_MAX_CONCURRENCY    calls in flight before 503 overloaded (default 32)
  KINDGI_PACK_SERVICE_MAX_OUTPUT_BYTES   largest reply; bigger results answer output-too-large (default 10485760)
  KINDGI_PACK_SERVICE_THREADS            worker threads for sync handlers and checks (default 32)
  KINDGI_PACK_ENV_CHECK                  strict (default) or warn: a missing required env name
  KINDGI_PACK_ENV_FILTER                 on (default): pack code sees only declared and platform variables
  KINDGI_LOG_LEVEL, KINDGI_LOG_LEVELS, KINDGI_LOG_FORMAT   logging (JSON lines on stderr)

Exit codes: 0 after a SIGTERM drain, 1 when it cannot start, 2 for a bad command line,
70 when an exception went uncaught through the service's own code.
"""


@dataclass
class Argv:
    """What the command line says: the first of help/version/unknown, each flag's last value, problems."""

    first: tuple[str, str] | None = None
    values: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def read_argv(argv: Sequence[str]) -> Argv:
    reading = Argv()
    at = 0
    while at < len(argv):
        raw = argv[at]
        at += 1
        name, eq, inline = raw[2:].partition("=") if raw.startswith("--") else ("", "", "")
        if name in VALUE_FLAGS:
            needs = f"--{name} needs {VALUE_FLAGS[name]}"
            if eq:
                value: str | None = inline
            elif at < len(argv) and argv[at][2:].partition("=")[0] in VALUE_FLAGS and argv[at].startswith("--"):
                value = None  # The next argument is another value flag: this one was given none.
            elif at < len(argv):
                value = argv[at]
                at += 1
            else:
                value = None
            if value is None or value.strip() == "":
                reading.problems.append(needs)
            else:
                reading.values[name] = value
            continue
        if reading.first is None:
            if raw in ("-h", "--help"):
                reading.first = ("help", "")
            elif raw == "--version":
                reading.first = ("version", "")
        message = f"Unknown argument {_json_string(raw)}"
        if reading.first is None:
            reading.first = ("unknown", message)
        reading.problems.append(message)
    return reading


def _json_string(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)
