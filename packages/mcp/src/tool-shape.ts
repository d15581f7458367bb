import type { ToolDescriptor } from '@kindgi/bindings';
import type { JsonSchema } from '@kindgi/protocol';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';

/**
 * A tool as MCP lists it, and how its arguments and output travel. MCP requires object schemas for a tool's
 * input and output: a tool whose schema is not an object is offered with its value under `input` (arguments)
 * or `result` (output), and unwrapped on the way to the pack.
 */
export interface McpToolShape {
  readonly tool: Tool;
  /** The pack's input is `arguments.input`, not the arguments object itself. */
  readonly wrapsInput: boolean;
  /** The pack's output is sent as `{ result: output }`. */
  readonly wrapsOutput: boolean;
}

function isObjectSchema(schema: JsonSchema): boolean {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'object';
}

function wrapped(name: 'input' | 'result', schema: JsonSchema): Tool['inputSchema'] {
  return {
    type: 'object',
    properties: { [name]: schema as NonNullable<Tool['inputSchema']['properties']>[string] },
    required: [name],
  };
}

/** True when every effect the index lists sets `field` (a boolean), the value combined with `combine`. */
function effectFlag(effects: unknown[] | undefined, field: string, combine: 'any' | 'all'): boolean | undefined {
  if (!effects || effects.length === 0) return undefined;
  const values = effects.map((effect) =>
    typeof effect === 'object' && effect !== null ? (effect as Record<string, unknown>)[field] : undefined,
  );
  const flags = values.filter((value): value is boolean => typeof value === 'boolean');
  if (combine === 'any') return flags.length === 0 ? undefined : flags.some(Boolean);
  return flags.length === values.length ? flags.every(Boolean) : undefined;
}

/**
 * The hints the index supports: `readOnlyHint` from `mutating`; `destructiveHint` when an effect says
 * `destructive`; `idempotentHint` when every effect says `idempotent`. Nothing is guessed.
 */
function annotationsOf(descriptor: ToolDescriptor): ToolAnnotations | undefined {
  const annotations: ToolAnnotations = {};
  if (descriptor.mutating !== undefined) annotations.readOnlyHint = !descriptor.mutating;
  if (descriptor.mutating !== false) {
    const destructive = effectFlag(descriptor.effects, 'destructive', 'any');
    const idempotent = effectFlag(descriptor.effects, 'idempotent', 'all');
    if (destructive !== undefined) annotations.destructiveHint = destructive;
    if (idempotent !== undefined) annotations.idempotentHint = idempotent;
  }
  return Object.keys(annotations).length === 0 ? undefined : annotations;
}

// Descriptors are the registry's own objects, rebuilt only when indexes change: a shape is built once each.
const shapes = new WeakMap<ToolDescriptor, McpToolShape>();

/** The MCP view of a registry tool (cached per descriptor object). */
export function shapeOf(descriptor: ToolDescriptor): McpToolShape {
  const known = shapes.get(descriptor);
  if (known) return known;
  const wrapsInput = !isObjectSchema(descriptor.inputSchema);
  const wrapsOutput = !isObjectSchema(descriptor.outputSchema);
  const tool: Tool = {
    name: descriptor.id,
    inputSchema: wrapsInput
      ? wrapped('input', descriptor.inputSchema)
      : (descriptor.inputSchema as unknown as Tool['inputSchema']),
    outputSchema: wrapsOutput
      ? wrapped('result', descriptor.outputSchema)
      : (descriptor.outputSchema as unknown as NonNullable<Tool['outputSchema']>),
  };
  if (descriptor.description !== undefined) tool.description = descriptor.description;
  const annotations = annotationsOf(descriptor);
  if (annotations) tool.annotations = annotations;
  const shape = { tool, wrapsInput, wrapsOutput };
  shapes.set(descriptor, shape);
  return shape;
}
