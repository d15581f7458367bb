import { definedFields, describe, FieldChecker, isPlainObject } from './fields.js';
import { markPrimitive } from './marker.js';

/** A step of a flow. The runtime's flow kernel defines the node kinds; the SDK keeps them as data. */
export interface FlowNode {
  readonly id: string;
  readonly [field: string]: unknown;
}

/** A connection between two nodes (`from` and `to`, when given, must name nodes of the flow). */
export interface FlowEdge {
  readonly from?: string;
  readonly to?: string;
  readonly [field: string]: unknown;
}

/** What `defineFlow` takes. */
export interface FlowSpec {
  readonly id: string;
  readonly version?: string;
  readonly nodes: readonly FlowNode[];
  readonly edges: readonly FlowEdge[];
  readonly [extra: string]: unknown;
}

/** A flow as `defineFlow` returns it: plain, frozen data. */
export type FlowDefinition = FlowSpec;

/**
 * Defines a flow. Checks that node ids are unique and that an edge's `from`/`to` name nodes of the flow.
 * Throws `KindgiDefinitionError` naming the field when the definition is invalid.
 */
export function defineFlow<const Spec extends FlowSpec>(spec: Spec): Spec {
  const check: FieldChecker = new FieldChecker('defineFlow');
  const def = check.object(spec, 'a flow definition');
  check.namespacedId(def.id);
  check.optionalSemver(def.version);
  if (!Array.isArray(def.nodes)) check.fail('nodes', `"nodes" must be a list, got ${describe(def.nodes)}`);
  if (!Array.isArray(def.edges)) check.fail('edges', `"edges" must be a list, got ${describe(def.edges)}`);
  const ids = new Set<string>();
  def.nodes.forEach((node: unknown, index: number) => {
    const field = `nodes[${index}]`;
    if (!isPlainObject(node)) check.fail(field, `"${field}" must be an object with an "id", got ${describe(node)}`);
    const id = check.nonEmptyString(node.id, `${field}.id`);
    if (ids.has(id)) check.fail(`${field}.id`, `node id "${id}" is used twice`);
    ids.add(id);
  });
  def.edges.forEach((edge: unknown, index: number) => {
    const field = `edges[${index}]`;
    if (!isPlainObject(edge)) check.fail(field, `"${field}" must be an object {from, to}, got ${describe(edge)}`);
    for (const end of ['from', 'to'] as const) {
      if (edge[end] === undefined) continue;
      const id = check.nonEmptyString(edge[end], `${field}.${end}`);
      if (!ids.has(id))
        check.fail(`${field}.${end}`, `"${field}.${end}" names "${id}", which is not a node of this flow`);
    }
  });
  const nodes = Object.freeze([...def.nodes]);
  const edges = Object.freeze([...def.edges]);
  return markPrimitive(definedFields({ ...def, nodes, edges }), 'flow') as Spec;
}
