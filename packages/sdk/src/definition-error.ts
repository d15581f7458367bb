/** Which `defineX` function reported a problem. */
export type DefinitionSource =
  | 'defineTool'
  | 'defineGuardrail'
  | 'defineAgent'
  | 'defineFlow'
  | 'defineConfig'
  | 'defineBuildExtension'
  | 'prisma';

/**
 * An invalid definition. Thrown at module load by `defineX`, so a broken pack file fails with a clear
 * message naming the field (`defineTool: "id" must be …`) instead of misbehaving at call time.
 */
export class KindgiDefinitionError extends Error {
  override readonly name = 'KindgiDefinitionError';
  readonly code = 'definition-invalid' as const;
  /** The offending field as a dotted path (`action`, `scope.when`, `tools[2]`). */
  readonly field: string;
  readonly source: DefinitionSource;

  constructor(source: DefinitionSource, field: string, problem: string) {
    super(`${source}: ${problem}`);
    this.source = source;
    this.field = field;
  }
}
