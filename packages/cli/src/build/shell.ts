// Quoting for the two languages a Containerfile line speaks: POSIX sh (RUN) and the Dockerfile's own
// (ENV, COPY's JSON form).

/** POSIX single quotes, left off for plain words: a value reaches `sh` as exactly one word. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./=:@+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** An ENV value in double quotes; `$` escaped so the Dockerfile substitutes nothing in it. */
export function envValue(text: string): string {
  return `"${text.replace(/[\\"$]/g, '\\$&')}"`;
}

/** COPY's JSON (exec) form, which takes any path, spaces included. */
export function copyArgs(sources: readonly string[], destination: string, from?: string): string {
  const flag = from === undefined ? '' : `--from=${from} `;
  return `${flag}${JSON.stringify([...sources, destination])}`;
}

/**
 * `RUN` arguments for a step that may need the image's build secrets. Each secret is a BuildKit secret
 * mount, read into the environment of this one shell only: never an ARG, an ENV or a file in a layer
 * (BuildKit mounts it for the step and leaves nothing behind).
 */
export function withSecrets(secretEnv: readonly string[], command: string): string {
  if (secretEnv.length === 0) return command;
  const mounts = secretEnv.map((name) => `--mount=type=secret,id=${name},required=true`).join(' ');
  const exports = secretEnv.map((name) => `export ${name}="$(cat /run/secrets/${name})"`).join(' && ');
  return `${mounts} ${exports} && ${command}`;
}

/** A command whose failure prints which part of the pack's config it came from, then fails the build. */
export function namedFailure(command: string, what: string): string {
  return `${command} || { echo ${shellQuote(`kindgi build: ${what} failed`)} >&2; exit 1; }`;
}

/** `${NAME}`: a Containerfile variable reference (ARG/ENV substitution, or the shell's in a RUN line). */
export function ref(name: string): string {
  return `$${'{'}${name}}`;
}
