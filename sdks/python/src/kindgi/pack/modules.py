"""Loading a pack's Python files and finding the definitions in them: one rule for the indexer and the
service, so what the index lists is what the service finds."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from kindgi.pack.definitions import (
    AgentDefinition,
    Definition,
    FlowDefinition,
    GuardrailDefinition,
    ToolDefinition,
)

_DEFINITION_TYPES = (ToolDefinition, GuardrailDefinition, AgentDefinition, FlowDefinition)


def module_name_for(module_path: str) -> str:
    """A module name of its own for a pack file (``tools/echo.py`` → ``_kindgi_pack_tools_echo_<hash>``),
    so two files with the same stem never share a ``sys.modules`` entry."""
    stem = "".join(ch if ch.isalnum() else "_" for ch in module_path.removesuffix(".py"))
    digest = hashlib.sha256(module_path.encode()).hexdigest()[:8]
    return f"_kindgi_pack_{stem}_{digest}"


def load_pack_module(root: Path, module_path: str) -> ModuleType:
    """Imports ``root/module_path`` (forward slashes, relative) under ``module_name_for``, with ``root``
    on ``sys.path`` so a pack's files may import its own helpers (``from lib import x``). What the file
    raises propagates; a failed import leaves no ``sys.modules`` entry."""
    root_text = str(root.resolve())
    if root_text not in sys.path:
        sys.path.insert(0, root_text)
    file = root.resolve() / module_path
    name = module_name_for(module_path)
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {module_path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


_KIND_FOLDERS = frozenset({"tools", "guardrails", "agents", "flows"})


def definitions_in(module: ModuleType, pack_root: Path | None = None) -> list[tuple[str, Definition]]:
    """The definitions a module holds as module-level attributes, as ``(attribute name, definition)``,
    in attribute order. One definition bound to two names counts once (the first name).

    A definition counts when the module's own file defined it, or (with ``pack_root``) when it was
    defined outside the pack's ``tools/``, ``guardrails/``, ``agents/`` and ``flows/`` folders (a factory
    in a helper module). One a module imports from another pack file is that file's, not this one's."""
    seen: set[int] = set()
    found: list[tuple[str, Definition]] = []
    own_file = os.path.abspath(module.__file__) if module.__file__ else None
    for name, value in vars(module).items():
        if not isinstance(value, _DEFINITION_TYPES) or not _owned(value.defined_in, own_file, pack_root):
            continue
        if id(value) not in seen:
            seen.add(id(value))
            found.append((name, value))
    return found


def _owned(defined_in: str | None, own_file: str | None, pack_root: Path | None) -> bool:
    if defined_in is None or defined_in == own_file:
        return True
    if pack_root is None:
        return False
    try:
        relative = Path(defined_in).resolve().relative_to(pack_root.resolve())
    except ValueError:
        return True
    return not any(part in _KIND_FOLDERS for part in relative.parts[:-1])
