// @ts-check
/**
 * The panels of the page, each in its own module under `panels/`, register here with the level
 * whose choice they show: `workspace` panels load when a workspace is chosen, `project` panels
 * when a project is, `scope` panels also when the scope (project level or a service) changes.
 * A new panel registers itself and is imported by console.js; nothing else changes.
 */

/** @typedef {'workspace' | 'project' | 'scope'} Level */
/** @typedef {{ level: Level, load: () => Promise<unknown>, reset?: () => void }} Panel */

/** @type {Panel[]} */
const panels = [];
/** @type {Array<() => Promise<unknown>>} */
const writeListeners = [];

/** @param {Panel} panel */
export function registerPanel(panel) {
  panels.push(panel);
}

/** Loads every panel of these levels. @param {...Level} levels */
export function loadPanels(...levels) {
  return Promise.all(panels.filter((p) => levels.includes(p.level)).map((p) => p.load()));
}

/** Forgets what the panels of these levels show. @param {...Level} levels */
export function resetPanels(...levels) {
  for (const p of panels) if (levels.includes(p.level)) p.reset?.();
}

/** Runs `listener` after every write (the audit log reloads). @param {() => Promise<unknown>} listener */
export function onWrite(listener) {
  writeListeners.push(listener);
}

export function afterWrite() {
  return Promise.all(writeListeners.map((listener) => listener()));
}
