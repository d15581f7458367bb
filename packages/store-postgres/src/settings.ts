import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import type { Queryable } from './blobs/index.js';

/** Setting names are short identifiers; values are bounded so one row cannot grow without limit. */
const NAME_PATTERN = /^[a-z][a-z0-9-]{0,63}$/;
const MAX_VALUE_LENGTH = 4096;

/**
 * The value of setting `name`, storing `initial` first when no server has yet. Every server racing to start
 * gets the one value the first insert wrote (`ON CONFLICT DO NOTHING`, then a read).
 */
export async function readOrCreateSetting(
  db: Queryable,
  name: string,
  initial: string,
): Promise<Result<string, { code: 'bad-setting' | 'database-error'; message: string }>> {
  if (!NAME_PATTERN.test(name) || initial.length === 0 || initial.length > MAX_VALUE_LENGTH) {
    return err({ code: 'bad-setting', message: `setting ${JSON.stringify(name)}: bad name or value length` });
  }
  try {
    await db.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, initial]);
    const read = await db.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name]);
    const value = read.rows[0]?.value;
    if (value === undefined) return err({ code: 'database-error', message: `setting ${name} was not stored` });
    return ok(value);
  } catch (cause) {
    return err({ code: 'database-error', message: `setting ${name}: ${messageOf(cause)}` });
  }
}
