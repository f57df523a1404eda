/**
 * `If-None-Match` against a strong ETag: exact match first (the common case, one compare),
 * then the list form and weak comparison that RFC 9110 allows for GET. `alternatives` are other
 * ETags of the same revision (its other encodings) that match as well.
 */
export function etagMatches(
  header: string | undefined,
  etag: string,
  alternatives: readonly string[] = [],
): boolean {
  if (header === undefined) return false;
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  for (const candidate of header.split(',')) {
    let tag = candidate.trim();
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag === etag || alternatives.includes(tag)) return true;
  }
  return false;
}
