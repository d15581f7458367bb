"""``define_flow``: a flow, as data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kindgi.pack.definitions import FlowDefinition
from kindgi.pack.fields import FieldChecker, caller_file, describe

_INDEX_FIELDS = frozenset({"id", "version", "nodes", "edges", "kernelPayloadVersion", "modulePath"})


def define_flow(
    *,
    id: str,
    nodes: Sequence[Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
    version: str | None = None,
    **extra: Any,
) -> FlowDefinition:
    """Defines a flow; bind the result to a module-level name in a file under ``flows/``. Node ids must
    be unique and an edge's ``from``/``to`` must name nodes of the flow. Other keyword arguments are
    written to the index as given. Raises ``DefinitionError`` naming the field."""
    check = FieldChecker("define_flow")
    check.namespaced_id(id)
    check.optional_semver(version)
    for field, value in (("nodes", nodes), ("edges", edges)):
        if isinstance(value, str | Mapping) or not isinstance(value, Sequence):
            check.fail(field, f'"{field}" must be a list, got {describe(value)}')
    ids: set[str] = set()
    checked_nodes: list[Mapping[str, Any]] = []
    for index, node in enumerate(nodes):
        field = f"nodes[{index}]"
        if not isinstance(node, Mapping):
            check.fail(field, f'"{field}" must be a dict with an "id", got {describe(node)}')
        node_id = check.non_empty_string(node.get("id"), f"{field}.id")
        if node_id in ids:
            check.fail(f"{field}.id", f'node id "{node_id}" is used twice')
        ids.add(node_id)
        checked_nodes.append(check.json_object(node, field))
    checked_edges: list[Mapping[str, Any]] = []
    for index, edge in enumerate(edges):
        field = f"edges[{index}]"
        if not isinstance(edge, Mapping):
            check.fail(field, f'"{field}" must be a dict {{from, to}}, got {describe(edge)}')
        for end in ("from", "to"):
            if edge.get(end) is None:
                continue
            target = check.non_empty_string(edge[end], f"{field}.{end}")
            if target not in ids:
                check.fail(f"{field}.{end}", f'"{field}.{end}" names "{target}", which is not a node of this flow')
        checked_edges.append(check.json_object(edge, field))
    return FlowDefinition(
        id=id,
        nodes=tuple(checked_nodes),
        edges=tuple(checked_edges),
        version=version,
        extra=check.extra(extra, _INDEX_FIELDS),
        defined_in=caller_file(1),
    )
