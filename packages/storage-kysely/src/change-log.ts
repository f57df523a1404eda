/**
 * The change log: every write that api instances must see appends a row here, in the writer's
 * transaction; value writes also bump their project's revision. Reading it back is the change
 * feeds' business (change-log-feed.ts), through `changesAfter`.
 */
import type { Kysely } from 'kysely';
import {
  NotFoundError,
  type Change,
  type ChangeKind,
  type ChangeOp,
  type Clock,
  type Scope,
  type ValueKind,
} from '@svc/domain';
import { CHANGE_SEQ_COUNTER, type Database } from './database.ts';
import { toChange } from './rows.ts';

/** One change-log row to append; the seq and the time are the log's. */
export interface NewChange {
  workspaceId: string;
  projectId?: string;
  serviceId?: string | null;
  revision?: number;
  kind: ChangeKind;
  key: string;
  op?: ChangeOp;
}

/** The change log as one transaction writes it. */
export class ChangeLog {
  private changed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    /**
     * Runs once per transaction, as its first change is logged (PostgreSQL queues its NOTIFY
     * here, which the server delivers at commit and drops on rollback).
     */
    private readonly onFirstChange: (() => Promise<void>) | undefined,
  ) {}

  /**
   * Appends one change-log row. The seq comes from a counter row updated in this transaction:
   * the row lock orders writers, so seqs commit in order and without gaps on every database.
   */
  async append(input: NewChange): Promise<Change> {
    const { value: seq } = await this.db
      .updateTable('counters')
      .set((eb) => ({ value: eb('value', '+', 1) }))
      .where('name', '=', CHANGE_SEQ_COUNTER)
      .returning('value')
      .executeTakeFirstOrThrow();
    if (!this.changed) {
      await this.onFirstChange?.();
      this.changed = true;
    }
    const change: Change = {
      seq,
      workspaceId: input.workspaceId,
      projectId: input.projectId ?? null,
      serviceId: input.serviceId ?? null,
      revision: input.revision ?? null,
      kind: input.kind,
      key: input.key,
      op: input.op ?? 'upsert',
      at: this.clock.now(),
    };
    await this.db
      .insertInto('changes')
      .values({
        seq: change.seq,
        workspace_id: change.workspaceId,
        project_id: change.projectId,
        service_id: change.serviceId,
        revision: change.revision,
        kind: change.kind,
        key: change.key,
        op: change.op,
        at: change.at,
      })
      .execute();
    return change;
  }

  /** Bumps the project's revision and logs the value change with it. */
  async appendValueChange(
    scope: Scope,
    kind: ValueKind,
    key: string,
    op: ChangeOp,
  ): Promise<Change> {
    const project = await this.db
      .updateTable('projects')
      .set((eb) => ({ revision: eb('revision', '+', 1) }))
      .where('id', '=', scope.projectId)
      .returning(['workspace_id', 'revision'])
      .executeTakeFirst();
    if (!project) throw new NotFoundError(`no project '${scope.projectId}'`);
    return this.append({
      workspaceId: project.workspace_id,
      projectId: scope.projectId,
      serviceId: scope.serviceId,
      revision: project.revision,
      kind,
      key,
      op,
    });
  }
}

export async function changesAfter(
  db: Kysely<Database>,
  afterSeq: number,
  limit: number,
): Promise<Change[]> {
  const rows = await db
    .selectFrom('changes')
    .selectAll()
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map(toChange);
}

export async function lastChangeSeq(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('changes')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  return row?.seq ?? 0;
}
