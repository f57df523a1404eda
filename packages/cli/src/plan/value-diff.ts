/**
 * Readable old → new lines for the plan: JSON objects compared key by key down to what changed
 * (`value.pool.max: 10 → 20`), anything else as a whole; long values shortened.
 */
import { isDeepStrictEqual } from 'node:util';

const MAX_TEXT = 120;
const MAX_LINES = 20;

/** JSON text of a value for a plan line, shortened; `(none)` for undefined. */
export function show(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

/** Lines saying how `before` became `after`, under the name `label`. */
export function valueDiff(label: string, before: unknown, after: unknown): string[] {
  const lines: string[] = [];
  walk(label, before, after, lines);
  return lines.length > MAX_LINES
    ? [...lines.slice(0, MAX_LINES), `… and ${lines.length - MAX_LINES} more`]
    : lines;
}

function walk(label: string, before: unknown, after: unknown, lines: string[]): void {
  if (isDeepStrictEqual(before, after)) return;
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      const child = `${label}.${/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key)}`;
      walk(child, own(before, key), own(after, key), lines);
    }
    return;
  }
  lines.push(`${label}: ${show(before)} → ${show(after)}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `record[key]` when it is the record's own entry (never a prototype member). */
export function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
