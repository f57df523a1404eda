/**
 * Patterns of identities (subjects, claims, ARNs): exact strings, or globs where `*` matches
 * any run of characters, `/` and `:` included (`role/checkout-*`,
 * `repo:acme/*:ref:refs/heads/main`). No other character is special.
 */

/**
 * Whether `text` matches `pattern`. Greedy, with one backtracking point (the last `*`), so the
 * cost is at most length × length, never exponential as a regular expression's can be.
 */
export function matchesPattern(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = t;
    } else if (star !== -1) {
      // Let the last `*` swallow one more character and try again from there.
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** Whether `text` matches any of `patterns`. */
export function matchesAny(patterns: readonly string[], text: string): boolean {
  return patterns.some((pattern) => matchesPattern(pattern, text));
}
