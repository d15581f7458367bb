/** Every generated file (name in src/generated/ to contents), from the schemas in `dir` (default: specs/). */
export function generateWire(dir?: string): Promise<Record<string, string>>;
