/**
 * A place in the workspace file, written as the issue and the editor show it: map keys joined by
 * dots (a dot inside a key escaped: `flags.checkout\.v2.rollout_percentage`), list positions in
 * brackets (`rules[0]`).
 */
export type FilePath = readonly PropertyKey[];

export function formatPath(path: FilePath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') {
      text += `[${segment}]`;
      continue;
    }
    const key = String(segment).replace(/[\\.]/g, (c) => `\\${c}`);
    text += text === '' ? key : `.${key}`;
  }
  return text;
}
