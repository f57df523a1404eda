/**
 * The routes under a workspace's base URL, as a table of `METHOD path` entries, and the lookup
 * the api listener runs on every request. A path template names its parameters in braces, as
 * OpenAPI does (`/v1/secrets/{key}`), so the table and `openapi.yaml` can be compared as they are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError, type Principal } from '@svc/domain';
import type { Tenant } from './tenant.ts';

/** Reads the API key a request carries (undefined when it carries none). */
export type KeyReader = (req: IncomingMessage) => string | undefined;

/** The status a handler answered with, so the listener can count it. */
export type Answer = number | Promise<number>;

/** What the listener hands a handler: the workspace, the decoded path parameters and the caller. */
export interface RequestContext {
  tenant: Tenant;
  params: Record<string, string>;
}

export interface AuthenticatedContext extends RequestContext {
  principal: Principal;
}

/** A route whose caller the listener authenticates (401/404 before the handler runs). */
export interface KeyRoute {
  method: string;
  path: string;
  /** Where the key comes from; `X-Service-API-Key` when absent. */
  key?: KeyReader;
  handle(req: IncomingMessage, res: ServerResponse, context: AuthenticatedContext): Answer;
}

/** A route that proves its caller itself (e.g. a token exchange), or needs no caller. */
export interface OpenRoute {
  method: string;
  path: string;
  open: true;
  handle(req: IncomingMessage, res: ServerResponse, context: RequestContext): Answer;
}

export type Route = KeyRoute | OpenRoute;

export type RouteMatch =
  | { route: Route; params: Record<string, string> }
  /** The path exists, not with this method: the methods it has (405 with `Allow`). */
  | { allow: string[] }
  | undefined;

interface Template {
  pattern: RegExp;
  names: string[];
  byMethod: Map<string, Route>;
}

/** Looks routes up by exact path first (the hot ones have no parameters), then by template. */
export class RouteTable {
  private readonly exact = new Map<string, Map<string, Route>>();
  private readonly templates = new Map<string, Template>();

  constructor(readonly routes: readonly Route[]) {
    for (const route of routes) this.methodsOf(route.path).set(route.method, route);
  }

  match(method: string, path: string): RouteMatch {
    const exact = this.exact.get(path);
    if (exact) return found(exact, method, {});
    for (const template of this.templates.values()) {
      const m = template.pattern.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      template.names.forEach((name, i) => (params[name] = decodeParam(name, m[i + 1]!)));
      return found(template.byMethod, method, params);
    }
    return undefined;
  }

  private methodsOf(path: string): Map<string, Route> {
    if (!path.includes('{')) {
      let methods = this.exact.get(path);
      if (!methods) this.exact.set(path, (methods = new Map()));
      return methods;
    }
    const existing = this.templates.get(path);
    if (existing) return existing.byMethod;
    const names: string[] = [];
    const source = path
      .split(/(\{[^}]+\})/)
      .map((part) => {
        if (!part.startsWith('{')) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
        names.push(part.slice(1, -1));
        return '([^/]+)';
      })
      .join('');
    const template = { pattern: new RegExp(`^${source}$`), names, byMethod: new Map() };
    this.templates.set(path, template);
    return template.byMethod;
  }
}

function found(
  byMethod: Map<string, Route>,
  method: string,
  params: Record<string, string>,
): RouteMatch {
  const route = byMethod.get(method);
  return route ? { route, params } : { allow: [...byMethod.keys()] };
}

/** A path segment's percent-encoding undone; malformed encoding is the caller's mistake (400). */
function decodeParam(name: string, raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ValidationError(name, 'is not valid percent-encoding');
  }
}
