/**
 * The workspace file (`svc export` writes it, `svc plan` and `svc apply` read it): one zod
 * definition that validates the file and generates the JSON Schema editors complete it with
 * (`schema/workspace.schema.json`). Fields at their default may be left out.
 */
import { z } from 'zod';
import { ITEM_KEY_MAX_LENGTH, ITEM_KEY_PATTERN, OPERATORS, SLUG_PATTERN } from '@svc/domain';

const slug = z
  .string()
  .regex(SLUG_PATTERN, 'must be 1..63 lowercase letters, digits or inner hyphens');
const itemKey = z
  .string()
  .max(ITEM_KEY_MAX_LENGTH)
  .regex(ITEM_KEY_PATTERN, 'must be dot-separated segments of [A-Za-z0-9_-]');
const name = z.string().min(1).max(200);
const envVariable = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

const config = z
  .strictObject({
    value: z.json().describe('Any JSON value (at most 256 KiB encoded).'),
    public: z.boolean().default(false).describe('Seen by public keys (browsers) too.'),
  })
  .describe('A config.');

const condition = z.strictObject({
  attribute: z.string().min(1).max(256).describe('`user_id`, or an attribute of the request.'),
  operator: z.enum(OPERATORS),
  values: z.array(z.string().max(1024)).min(1).max(1000),
});

const rule = z
  .strictObject({
    conditions: z.array(condition).min(1).max(20).describe('All must hold.'),
    result: z.boolean(),
  })
  .describe('A targeting rule: the first that matches decides.');

const flag = z
  .strictObject({
    active: z.boolean(),
    rules: z.array(rule).max(100).default([]),
    rollout_percentage: z
      .number()
      .min(0)
      .max(100)
      .multipleOf(0.01, 'must have at most two decimals')
      .default(100),
    salt: z.string().max(256).optional().describe('Bucketing salt; the flag key when absent.'),
  })
  .describe('A feature flag.');

const secret = z
  .strictObject({
    type: z.enum(['text', 'file']).default('text'),
    file_name: z.string().min(1).max(255).optional().describe('For file secrets.'),
    value_from_env: envVariable
      .optional()
      .describe(
        'The environment variable holding the value: apply writes a new version when it differs from the current one. Without it, the secret must exist already.',
      ),
  })
  .refine((s) => s.type === 'file' || s.file_name === undefined, {
    message: 'only file secrets have a file_name',
    path: ['file_name'],
  })
  .describe('A secret, by name and type only: its value is never in the file.');

const items = {
  configs: z.record(itemKey, config).default({}),
  flags: z.record(itemKey, flag).default({}),
  secrets: z.record(itemKey, secret).default({}),
};

const service = z
  .strictObject({ name: name.optional().describe('Used when the service is created.'), ...items })
  .describe("A service's own values (they override the project's for keys bound to it).");

const project = z
  .strictObject({
    name: name.optional().describe('Used when the project is created.'),
    ab_testing: z.boolean().default(false).describe('The AB Testing add-on.'),
    ...items,
    services: z.record(slug, service).default({}),
  })
  .describe('A project: its values, and its services.');

export const workspaceFile = z
  .strictObject({
    version: z.literal(1).describe('The file format version.'),
    workspace: slug.describe('The workspace slug (plan and apply take --workspace to override).'),
    name: name.optional().describe('Used when the workspace is created.'),
    projects: z.record(slug, project).default({}),
  })
  .describe(
    "A workspace's projects, services, configs, flags and secrets, as svc export writes it.",
  );

/** A workspace file with every default filled in. */
export type WorkspaceFile = z.output<typeof workspaceFile>;
export type ProjectEntry = z.output<typeof project>;
export type ServiceEntry = z.output<typeof service>;
export type ConfigEntry = z.output<typeof config>;
export type FlagEntry = z.output<typeof flag>;
export type SecretEntry = z.output<typeof secret>;
/** The values of one scope: a project's own, or one service's. */
export type ScopeItems = Pick<ServiceEntry, 'configs' | 'flags' | 'secrets'>;

/** The JSON Schema of the file as a writer sees it (defaulted fields optional). */
export function workspaceJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(workspaceFile, { io: 'input', target: 'draft-2020-12' }),
    title: 'svc workspace file',
  };
}
