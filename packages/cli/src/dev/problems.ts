import { isAbsolute, relative } from 'node:path';

// `/abs/tools/greet/index.ts:34:10: ERROR: Unexpected ";"` (esbuild's form, inside the indexer's import
// failure) or `src/main/java/acme/Greet.java:12:5: ';' expected` (the server's Java compile problems).
const LOCATED = /((?:[A-Za-z]:)?[^\s:"'`()]+\.(?:[cm]?[jt]sx?|java|py)):(\d+)(?::(\d+))?:\s*(?:ERROR:\s*)?([^\n]*)/;

const MAX_PROBLEMS = 20;

function messageOfProblem(problem: unknown): string {
  if (typeof problem === 'string') return problem;
  if (typeof problem === 'object' && problem !== null) {
    const { message } = problem as { message?: unknown };
    if (typeof message === 'string') return message;
  }
  return String(problem);
}

/**
 * One line per problem, `file:line[:col]: message` with the file relative to the pack whenever the
 * problem's text names a place (duplicates dropped: a broken tool also fails every file importing it).
 */
export function locateProblems(packDir: string, problems: readonly unknown[]): string[] {
  const lines: string[] = [];
  for (const problem of problems.slice(0, MAX_PROBLEMS)) {
    const text = messageOfProblem(problem);
    const match = LOCATED.exec(text);
    let line = text.split('\n')[0]?.trim() ?? '';
    if (match) {
      const [, path = '', row, column, rest = ''] = match;
      const file = isAbsolute(path) ? relative(packDir, path) : path;
      line = `${file}:${row}${column ? `:${column}` : ''}: ${rest.trim()}`;
    }
    if (line !== '' && !lines.includes(line)) lines.push(line);
  }
  return lines;
}
