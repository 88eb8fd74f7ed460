import { ObservatoryError, quoteInput } from '../../core/index.ts';
import { changeHistory, HISTORY_INSTANT, historyInstant } from './change-history.ts';
import type { ChangeHistory } from './types.ts';

function bad(file: string, line: number, expected: string): ObservatoryError {
  return new ObservatoryError('invalid_input', `${file}:${line}: expected ${expected}`);
}

function instant(value: unknown, file: string, line: number, what: string): number {
  const ms = historyInstant(value);
  if (ms === null) throw bad(file, line, `${what} as ${HISTORY_INSTANT}, got ${quoteInput(value)}`);
  return ms;
}

/**
 * Parses change histories in JSON Lines, one document a line:
 * `{"id": ..., "changes": [ISO timestamps], "start": ISO, "end": ISO}`. start and end default to
 * the first and last change (so a history without changes needs both); blank lines are skipped.
 */
export function parseHistoriesJsonl(text: string, file: string): ChangeHistory[] {
  const docs: ChangeHistory[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const n = i + 1;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw bad(file, n, 'one JSON object per line');
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw bad(file, n, 'a JSON object {"id", "changes", "start", "end"}');
    }
    const r = record as Record<string, unknown>;
    if (typeof r.id !== 'string' && typeof r.id !== 'number')
      throw bad(file, n, '"id" as a string or number');
    if (!Array.isArray(r.changes)) throw bad(file, n, '"changes" as an array of ISO 8601 timestamps');
    const changes = r.changes.map((c, k) => instant(c, file, n, `changes[${k}]`));
    const first = changes.length > 0 ? Math.min(...changes) : undefined;
    const last = changes.length > 0 ? Math.max(...changes) : undefined;
    if (r.start === undefined && first === undefined)
      throw bad(file, n, '"start" and "end" when "changes" is empty');
    const start = r.start === undefined ? first! : instant(r.start, file, n, '"start"');
    const end = r.end === undefined ? (last ?? start) : instant(r.end, file, n, '"end"');
    if (end < start) throw bad(file, n, '"end" not before "start"');
    docs.push(changeHistory(String(r.id), start, end, changes));
  }
  return docs;
}

/** Writes histories as JSON Lines, the format parseHistoriesJsonl reads back. */
export function historiesToJsonl(docs: readonly ChangeHistory[]): string {
  const iso = (ms: number) => new Date(ms).toISOString();
  return docs
    .map(
      (d) =>
        `${JSON.stringify({ id: d.id, start: iso(d.start), end: iso(d.end), changes: Array.from(d.changes, iso) })}\n`,
    )
    .join('');
}
