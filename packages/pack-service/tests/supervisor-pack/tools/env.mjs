import { existsSync, readFileSync } from 'node:fs';

// Reports the variables the child's process sees, to check the supervisor's environment: through
// process.env, and through the operating system's copy of its environment block (Linux).
export default async function env() {
  const names = Object.keys(process.env).sort();
  if (!existsSync('/proc/self/environ')) return { names, block: names };
  const block = readFileSync('/proc/self/environ', 'utf8')
    .split('\0')
    .filter((entry) => entry !== '')
    .map((entry) => entry.slice(0, entry.indexOf('=')))
    .sort();
  return { names, block };
}
