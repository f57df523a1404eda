/**
 * Tenant resolution: host form `{slug}.{BASE_DOMAIN}` when the Host says so, otherwise path
 * form `/{slug}/…`.
 */
export interface Tenant {
  slug: string;
  /** The path below the workspace's base URL, e.g. `/v1/sync` (no query). */
  path: string;
}

export function tenantResolver(
  baseDomain: string,
): (host: string | undefined, url: string) => Tenant | undefined {
  const suffix = `.${baseDomain.toLowerCase()}`;
  return (host, url) => {
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (host) {
      const colon = host.lastIndexOf(':');
      const name = (colon > host.lastIndexOf(']') ? host.slice(0, colon) : host).toLowerCase();
      if (name.endsWith(suffix)) {
        const slug = name.slice(0, -suffix.length);
        // Only one label in front of the base domain is a workspace.
        if (slug.length > 0 && !slug.includes('.')) return { slug, path };
      }
    }
    const slash = path.indexOf('/', 1);
    if (path.length < 2) return undefined;
    return slash === -1
      ? { slug: path.slice(1), path: '/' }
      : { slug: path.slice(1, slash), path: path.slice(slash) };
  };
}
