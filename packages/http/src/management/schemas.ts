/**
 * Request bodies of the management API (snake_case on the wire, strict: unknown fields are
 * errors), built from the domain's own rules and limits so that the two cannot disagree.
 */
import {
  isItemKey,
  isName,
  isSlug,
  ITEM_KEY_RULE,
  NAME_RULE,
  OPERATORS,
  SLUG_RULE,
  TARGETING_LIMITS as L,
  textLength,
} from '@svc/domain';
import { z } from 'zod';

const slug = z.string().refine(isSlug, SLUG_RULE);
const name = z.string().refine(isName, NAME_RULE);
/** At most `max` characters as JSON Schema counts them (code points). */
const text = (max: number) =>
  z.string().refine((s) => textLength(s) <= max, `must be at most ${max} characters`);

export const itemKey = z.string().refine(isItemKey, ITEM_KEY_RULE);

export const createSlugged = z.strictObject({ slug, name });
export const patchWorkspace = z.strictObject({ billing_status: z.enum(['ok', 'overdue']) });
export const patchProject = z.strictObject({ ab_testing: z.boolean() });
export const createKey = z.strictObject({
  kind: z.enum(['secret', 'public']),
  service: slug.optional(),
  name: name.optional(),
});

export const putConfig = z.strictObject({
  value: z.json(),
  is_public: z.boolean().default(false),
});

const condition = z.strictObject({
  attribute: z.string().min(1).pipe(text(L.attributeLength)),
  operator: z.enum(OPERATORS),
  values: z.array(text(L.valueLength)).min(1).max(L.values),
});
const rule = z.strictObject({
  conditions: z.array(condition).min(1).max(L.conditions),
  result: z.boolean(),
});

export const putFlag = z.strictObject({
  is_active: z.boolean(),
  rules: z.array(rule).max(L.rules).optional(),
  rollout_percentage: z.number().min(0).max(100).optional(),
  salt: text(L.saltLength).nullable().optional(),
});

export const putSecret = z.strictObject({
  value: z.string(),
  type: z.enum(['text', 'file']).optional(),
  file_name: z.string().nullable().optional(),
  expected_version: z.number().int().min(0).optional(),
});
