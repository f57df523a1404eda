/**
 * The bytes of `GET /v1/stream`: `retry`, `resync`, `change` events and the keep-alive comment.
 * A view's diff is encoded here once; the same Buffer then goes to every stream of that view.
 */
import { parseItemId, type ItemChange } from '@svc/domain';

/** `: keep-alive`, written to every stream by one shared timer. */
export const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');

/** The reconnection delay hint sent once at the start of every stream. */
export function retryFrame(retryMs: number): Buffer {
  return Buffer.from(`retry: ${retryMs}\n\n`);
}

/** `event: resync`: the client syncs when `revision` differs from its own. */
export function resyncFrame(revision: number): Buffer {
  return Buffer.from(`event: resync\ndata: {"revision":${revision}}\n\n`);
}

/**
 * One `event: change` per changed item, each with `id:` = the view's revision, as one Buffer.
 * A secret's snapshot JSON (`{"value","type","version","file_name"?}`) is merged into the
 * event's top level; a delete carries no value.
 */
export function changeFrames(revision: number, changes: readonly ItemChange[]): Buffer {
  let text = '';
  for (const change of changes) {
    text += `event: change\nid: ${revision}\ndata: ${changeData(revision, change)}\n\n`;
  }
  // Outside the shared pool: a small Buffer kept in the history would pin a whole 8 KiB slab.
  const frames = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  frames.write(text, 'utf8');
  return frames;
}

/** The `data:` JSON of one changed item (always a single line). */
export function changeData(revision: number, change: ItemChange): string {
  const { kind, key } = parseItemId(change.id);
  const head = `{"revision":${revision},"kind":"${kind}","key":${JSON.stringify(key)},"op":"${change.op}"`;
  if (change.op === 'delete' || change.json === undefined) return `${head}}`;
  const json = singleLine(change.json);
  if (kind === 'secret') {
    // `{"value":…}` minus its opening brace continues the event object.
    return json.length > 2 ? `${head},${json.slice(1)}` : `${head}}`;
  }
  return `${head},"value":${json}}`;
}

/** SSE ends a `data:` line at CR or LF; JSON text from elsewhere may be pretty-printed. */
function singleLine(json: string): string {
  return json.includes('\n') || json.includes('\r') ? JSON.stringify(JSON.parse(json)) : json;
}
