/**
 * Semantic versions for the `semver_*` operators: `MAJOR.MINOR.PATCH[-pre]` exactly as
 * SemVer 2.0.0 writes them. No leading `v`, no build metadata (`+…`), no leading zeros in
 * numeric parts, no surrounding spaces: anything else is not a version and never matches.
 */

export interface Semver {
  /** MAJOR, MINOR, PATCH as decimal digit strings without leading zeros (any size). */
  core: [string, string, string];
  /** Pre-release identifiers (`rc.1` -> `['rc', '1']`); empty for a release. */
  pre: string[];
}

const NUMBER = '0|[1-9]\\d*';
const PRE_IDENTIFIER = `(?:${NUMBER}|\\d*[A-Za-z-][0-9A-Za-z-]*)`;
const SEMVER_PATTERN = new RegExp(
  `^(${NUMBER})\\.(${NUMBER})\\.(${NUMBER})(?:-(${PRE_IDENTIFIER}(?:\\.${PRE_IDENTIFIER})*))?$`,
);
const NUMERIC = /^\d+$/;

/** Parses `MAJOR.MINOR.PATCH[-pre]`; undefined for anything else. */
export function parseSemver(text: string): Semver | undefined {
  const match = SEMVER_PATTERN.exec(text);
  if (!match) return undefined;
  const [, major = '', minor = '', patch = '', pre] = match;
  return { core: [major, minor, patch], pre: pre === undefined ? [] : pre.split('.') };
}

/** Compares digit strings without leading zeros by value, however long they are. */
function compareNumeric(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** SemVer 2.0.0 §11: numeric identifiers by value and below alphanumeric ones (ASCII order). */
function compareIdentifier(a: string, b: string): number {
  const aNumeric = NUMERIC.test(a);
  const bNumeric = NUMERIC.test(b);
  if (aNumeric && bNumeric) return compareNumeric(a, b);
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * SemVer precedence: negative when `a` sorts before `b`, 0 when equal, positive after.
 * A pre-release sorts before its release (`1.0.0-rc.1 < 1.0.0`), and between pre-releases
 * the first differing identifier decides, a shorter list sorting first when all shared
 * identifiers are equal (`1.0.0-alpha < 1.0.0-alpha.1 < 1.0.0-alpha.beta < 1.0.0-beta`).
 */
export function compareSemver(a: Semver, b: Semver): number {
  for (let i = 0; i < 3; i++) {
    const order = compareNumeric(a.core[i]!, b.core[i]!);
    if (order !== 0) return order;
  }
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length;
  const shared = Math.min(a.pre.length, b.pre.length);
  for (let i = 0; i < shared; i++) {
    const order = compareIdentifier(a.pre[i]!, b.pre[i]!);
    if (order !== 0) return order;
  }
  return a.pre.length - b.pre.length;
}
