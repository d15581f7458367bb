"""``python -m kindgi.pack index|serve ...``: picks the command, importing only what it needs."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

# Lazy: `serve` must not pay for the indexer's imports, nor `index` for the HTTP stack.
_COMMANDS = {
    "index": "kindgi.pack.indexing.cli",
    "serve": "kindgi.pack.serving.cli",
}

_USAGE = """usage: python -m kindgi.pack <command> [options]

commands:
  index   write the pack's index.json (python -m kindgi.pack index --help)
  serve   run the pack service (python -m kindgi.pack serve --help)
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``argv[0]`` with the rest; exit code 2 for an unknown command, 0 for help."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        stream = sys.stdout if args else sys.stderr
        stream.write(_USAGE)
        return 0 if args else 2
    module_name = _COMMANDS.get(args[0])
    if module_name is None:
        sys.stderr.write(f"unknown command {args[0]!r}\n{_USAGE}")
        return 2
    module = importlib.import_module(module_name)
    code: int = module.main(args[1:])
    return code


if __name__ == "__main__":
    sys.exit(main())
