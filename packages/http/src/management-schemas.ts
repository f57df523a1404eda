/** Request bodies of the management API (snake_case on the wire, strict: unknown fields are errors). */
import { OPERATORS } from '@svc/domain';
import { z } from 'zod';

const slug = z.string().min(1).max(63);
const name = z.string().min(1).max(200);

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
  attribute: z.string().min(1).max(256),
  operator: z.enum(OPERATORS),
  values: z.array(z.string().max(1024)).min(1).max(1000),
});
const rule = z.strictObject({ conditions: z.array(condition).min(1).max(20), result: z.boolean() });

export const putFlag = z.strictObject({
  is_active: z.boolean(),
  rules: z.array(rule).max(100).optional(),
  rollout_percentage: z.number().min(0).max(100).optional(),
  salt: z.string().max(256).nullable().optional(),
});

export const putSecret = z.strictObject({
  value: z.string(),
  type: z.enum(['text', 'file']).optional(),
  file_name: z.string().nullable().optional(),
  expected_version: z.number().int().min(0).optional(),
});
