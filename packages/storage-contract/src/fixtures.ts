/** Test doubles and helpers shared by the contract cases. */
import { vi } from 'vitest';
import type {
  ChangeFeed,
  Clock,
  Project,
  Scope,
  SecretSealer,
  Service,
  Store,
  Workspace,
} from '@svc/domain';
import type { FeedOptions, StoreSubject } from './subject.ts';

export const T0 = 1_700_000_000_000;

/** A clock the tests move by hand, so every stored time is known exactly. */
export class ManualClock implements Clock {
  private time = T0;

  now(): number {
    return this.time;
  }

  set(time: number): void {
    this.time = time;
  }

  advance(ms = 1): number {
    this.time += ms;
    return this.time;
  }
}

/** Reversible "sealing" bound to its context, enough to drive `setSecret`. */
export const fakeSealer: SecretSealer = {
  seal: (plaintext, context) => `sealed:${context}:${Buffer.from(plaintext).toString('base64')}`,
  open: (sealed, context) => {
    const prefix = `sealed:${context}:`;
    if (!sealed.startsWith(prefix)) throw new Error('wrong context');
    return Buffer.from(sealed.slice(prefix.length), 'base64').toString();
  },
};

/** What every case gets: the current subject plus things closed after the test. */
export interface Harness {
  readonly subject: StoreSubject;
  readonly store: Store;
  readonly clock: ManualClock;
  /** A feed of the subject, closed after the test. */
  feed(options?: FeedOptions): ChangeFeed;
  /** The subject's second store, closed after the test; undefined when it has none. */
  another(): Promise<Store | undefined>;
  rawRows(sql: string): Promise<Record<string, unknown>[]>;
}

export interface Seeded {
  workspace: Workspace;
  project: Project;
  service: Service;
  /** Project level of `project`. */
  projectScope: Scope;
  /** Level of `service`. */
  serviceScope: Scope;
}

/** A workspace with one project and one service of it. */
export async function seed(store: Store, slug = 'acme'): Promise<Seeded> {
  return store.transaction(async (tx) => {
    const workspace = await tx.insertWorkspace({ slug, name: `${slug} Inc.` });
    const project = await tx.insertProject({
      workspaceId: workspace.id,
      slug: 'shop',
      name: 'Shop',
    });
    const service = await tx.insertService({ projectId: project.id, slug: 'api', name: 'API' });
    return {
      workspace,
      project,
      service,
      projectScope: { projectId: project.id, serviceId: null },
      serviceScope: { projectId: project.id, serviceId: service.id },
    };
  });
}

export async function revisionOf(store: Store, projectId: string): Promise<number> {
  const project = await store.findProjectById(projectId);
  if (!project) throw new Error(`no project ${projectId}`);
  return project.revision;
}

/** Retries `assertion` until it holds or `timeout` ms pass. */
export async function eventually(assertion: () => void, timeout = 2000): Promise<void> {
  await vi.waitFor(assertion, { timeout, interval: 2 });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A raw integer column (PostgreSQL returns int8 as text). */
export function int(value: unknown): number | null {
  return value === null ? null : Number(value);
}

/** Ids are generated text: safe to inline into raw SQL, but check anyway. */
export function q(text: string): string {
  if (!/^[A-Za-z0-9._-]*$/.test(text)) throw new Error(`unsafe SQL literal ${text}`);
  return `'${text}'`;
}

/** For lists whose order the port leaves open. */
export function sortById<T extends { id: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** `from..to`, both included. */
export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}
