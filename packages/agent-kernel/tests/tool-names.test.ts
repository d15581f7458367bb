import { describe, expect, it } from 'vitest';
import { createToolNameMap, FUNCTION_NAME_PATTERN } from '../src/index.js';

describe('tool ids as function names', () => {
  it('maps dots away and back', () => {
    const names = createToolNameMap(['acme.lookup-case', 'acme.send']);
    expect(names.nameOf('acme.lookup-case')).toBe('acme_lookup-case');
    expect(names.toolIdOf('acme_lookup-case')).toBe('acme.lookup-case');
    expect(names.toolIdOf('acme_unknown')).toBeUndefined();
  });

  it('keeps ids that would share a name apart, and shortens long ids, always within the pattern', () => {
    const ids = ['acme.a_b', 'acme_a.b', `acme.${'x'.repeat(80)}`, `acme.${'x'.repeat(80)}y`, 'acme.ok'];
    const names = createToolNameMap(ids);
    const given = ids.map((id) => names.nameOf(id));
    expect(new Set(given).size).toBe(ids.length);
    for (const name of given) expect(name).toMatch(FUNCTION_NAME_PATTERN);
    for (const id of ids) expect(names.toolIdOf(names.nameOf(id))).toBe(id);
    expect(names.nameOf('acme.ok')).toBe('acme_ok');
  });

  it('gives the same names for the same ids in any order', () => {
    const a = createToolNameMap(['acme.a_b', 'acme_a.b', 'z.z']);
    const b = createToolNameMap(['z.z', 'acme_a.b', 'acme.a_b']);
    expect(['acme.a_b', 'acme_a.b', 'z.z'].map(a.nameOf)).toEqual(['acme.a_b', 'acme_a.b', 'z.z'].map(b.nameOf));
  });
});
