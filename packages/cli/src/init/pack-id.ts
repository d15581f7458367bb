import { isPackId } from '@kindgi/protocol';

// A pack id names folders, a Maven groupId and every primitive id: long ones help nobody.
export const MAX_PACK_ID_LENGTH = 64;

/** Why a pack id was refused, or undefined when it is one (the protocol's rule, plus a length cap). */
export function packIdProblem(id: string): string | undefined {
  if (id.length > MAX_PACK_ID_LENGTH)
    return `the pack id "${id.slice(0, 20)}…" is over ${MAX_PACK_ID_LENGTH} characters`;
  if (!isPackId(id)) {
    return `"${id}" is not a pack id: lowercase letters and digits in kebab-case, dot-separated segments allowed (like "acme" or "acme-legal")`;
  }
  return undefined;
}

const JAVA_KEYWORDS = new Set(
  (
    'abstract assert boolean break byte case catch char class const continue default do double else enum extends ' +
    'false final finally float for goto if implements import instanceof int interface long native new null ' +
    'package private protected public return short static strictfp super switch synchronized this throw throws ' +
    'transient true try void volatile while _'
  ).split(' '),
);

/** The Java package a pack's classes live in: `acme-legal` → `acme_legal`, `acme.tools2` → `acme.tools2`. */
export function javaPackageOf(packId: string): string {
  return packId
    .split('.')
    .map((segment) => {
      const name = segment.replace(/-/g, '_');
      if (/^\d/.test(name)) return `p${name}`;
      return JAVA_KEYWORDS.has(name) ? `${name}_` : name;
    })
    .join('.');
}
