/** One Containerfile instruction: its keyword and its arguments as written. */
export interface Step {
  readonly instruction: 'ARG' | 'ENV' | 'WORKDIR' | 'COPY' | 'RUN' | 'USER' | 'EXPOSE' | 'CMD';
  readonly args: string;
  /** What the layer list says for it (defaults to the arguments). */
  readonly summary?: string;
}

/** One `FROM … AS name` stage. */
export interface Stage {
  readonly name: string;
  readonly from: string;
  /** One line saying what the stage holds, written above its FROM. */
  readonly comment: string;
  readonly steps: readonly Step[];
}

/** A whole image: header comments, the global ARGs (base images, pins) and the stages in order. */
export interface ImagePlan {
  readonly header: readonly string[];
  readonly args: readonly Step[];
  readonly stages: readonly Stage[];
}

/** The layer list `--dry-run` and `--json` print: each stage, its base, and what each step copies or runs. */
export interface LayerList {
  readonly stages: readonly {
    readonly name: string;
    readonly from: string;
    readonly steps: readonly { readonly instruction: Step['instruction']; readonly what: string }[];
  }[];
}

function stepLine(step: Step): string {
  return `${step.instruction} ${step.args}`;
}

/** The Containerfile's text: the same plan always gives the same bytes (LF, one trailing newline). */
export function renderContainerfile(plan: ImagePlan): string {
  const lines: string[] = plan.header.map((text) => (text === '' ? '#' : `# ${text}`));
  lines.push(...plan.args.map(stepLine));
  for (const stage of plan.stages) {
    lines.push('', `# ${stage.name}: ${stage.comment}`, `FROM ${stage.from} AS ${stage.name}`);
    lines.push(...stage.steps.map(stepLine));
  }
  return `${lines.join('\n')}\n`;
}

/** The stages and what each step copies or runs (ARG/ENV lines show names, as the Containerfile does). */
export function layerList(plan: ImagePlan): LayerList {
  return {
    stages: plan.stages.map((stage) => ({
      name: stage.name,
      from: stage.from,
      steps: stage.steps.map((step) => ({ instruction: step.instruction, what: step.summary ?? step.args })),
    })),
  };
}

/** The layer list for people: one line per stage, one indented line per step. */
export function formatLayerList(list: LayerList): string {
  const lines: string[] = [];
  for (const stage of list.stages) {
    lines.push(`${stage.name} (FROM ${stage.from})`);
    for (const step of stage.steps) lines.push(`  ${step.instruction.padEnd(7)} ${step.what}`);
  }
  return `${lines.join('\n')}\n`;
}
