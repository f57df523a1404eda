/**
 * One route of the management API: a method, a path in the form the OpenAPI file writes it
 * (`/workspaces/{ws}`), and a handler that parses the request, calls one domain operation and
 * shapes the answer. Handlers get a `ManagementCall`, never the raw body.
 */
import type { Request, Response } from 'express';
import { ValidationError, type Management, type ScopeRef } from '@svc/domain';
import type { z } from 'zod';
import { parseInput } from '../validation.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ManagementRoute {
  method: Method;
  /** Under `/api`, with `{name}` path parameters. */
  path: string;
  handle: (call: ManagementCall) => Promise<void>;
}

/** What a handler works with: the domain operations, the request's parts, and the response. */
export class ManagementCall {
  constructor(
    readonly management: Management,
    readonly req: Request,
    readonly res: Response,
  ) {}

  /** A path parameter ('' when absent). */
  param(name: string): string {
    const value = this.req.params[name];
    return typeof value === 'string' ? value : '';
  }

  /** The body, parsed by `schema` (400 naming the field that fails). */
  body<T extends z.ZodType>(schema: T): z.infer<T> {
    return parseInput(schema, this.req.body);
  }

  /** The scope `{ws}/{p}` or `{ws}/{p}/services/{s}` of a value route. */
  scope(): ScopeRef {
    const service = this.req.params.s;
    return {
      workspace: this.param('ws'),
      project: this.param('p'),
      ...(typeof service === 'string' ? { service } : {}),
    };
  }

  /** A query parameter: undefined when absent, a 400 when given twice or as an object. */
  query(name: string): string | undefined {
    const value = this.req.query[name];
    if (value === undefined || typeof value === 'string') return value;
    throw new ValidationError(name, 'must be given once');
  }

  /** A whole-number query parameter within `min..max`, `fallback` when absent. */
  queryInteger(name: string, min: number, max: number, fallback: number): number {
    const raw = this.query(name);
    if (raw === undefined) return fallback;
    const value = /^-?\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(value >= min && value <= max)) {
      throw new ValidationError(name, `must be a whole number from ${min} to ${max}`);
    }
    return value;
  }

  /** `true` or `false` as a query parameter, `false` when absent. */
  queryBoolean(name: string): boolean {
    const raw = this.query(name);
    if (raw === undefined || raw === 'false') return false;
    if (raw === 'true') return true;
    throw new ValidationError(name, 'must be true or false');
  }
}

/** `/workspaces/{ws}` → `/workspaces/:ws`, as Express writes it. */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
