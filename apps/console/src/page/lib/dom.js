// @ts-check
/**
 * DOM helpers. Whatever comes from the API or the operator is written as text (`h()` appends
 * text nodes, never HTML).
 */

/** @param {string} id @returns {any} */
export const byId = (id) => document.getElementById(id);
/** @param {HTMLFormElement} form @param {string} name @returns {any} */
export const input = (form, name) => form.elements.namedItem(name);
/** A path segment. */
export const enc = encodeURIComponent;
/** ISO time as `YYYY-MM-DD HH:MM:SS` (UTC). @param {string | null} iso */
export const when = (iso) => (iso ? iso.replace('T', ' ').slice(0, 19) : '—');

/**
 * An element with properties (`textContent`, `checked`, …), `on*` listeners, dashed names as
 * attributes (`aria-label`), and children appended as nodes or as text.
 * @param {string} tag @param {Record<string, any>} [props] @param {...any} children @returns {any}
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name.includes('-')) node.setAttribute(name, String(value));
    else Object.assign(node, { [name]: value });
  }
  node.append(...children.flat().map((c) => (c instanceof Node ? c : String(c ?? ''))));
  return node;
}

/** A table row; a cell is a `td` as it is, or content to wrap in one. @param {string} className @param {...any} cells */
export const row = (className, ...cells) =>
  h('tr', { className }, ...cells.map((c) => (c?.tagName === 'TD' ? c : h('td', {}, c))));
/** @param {string} text @param {() => void} onclick @param {string} [className] */
export const button = (text, onclick, className = '') =>
  h('button', { type: 'button', className, onclick }, text);
/** @param {string} label @param {boolean} checked */
export const checkbox = (label, checked) =>
  h('input', { type: 'checkbox', checked, 'aria-label': label });
/** A cell of row buttons. @param {...any} buttons */
export const actions = (...buttons) => h('td', { className: 'actions' }, buttons);

/** Fills a table body, or says it is empty. @param {string} id @param {any[]} rows @param {string} empty @param {number} columns */
export function fill(id, rows, empty, columns) {
  const none = row('', h('td', { colSpan: columns, className: 'empty' }, empty));
  byId(id).replaceChildren(...(rows.length ? rows : [none]));
}
