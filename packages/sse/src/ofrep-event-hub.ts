/**
 * The OFREP event streams (`GET {base_url}/ofrep/v1/events`, OFREP ADR-0008): the stream hub's
 * lifecycle (keep-alive, max age, slow readers dropped, a revoked key's streams closed) with
 * OFREP's frames. A stream carries no values: each change of its view is one `refetchEvaluation`
 * event, encoded once per view and change, after which the client asks the bulk evaluation again
 * (a 304 when its answer did not change). A new stream starts with one too: the client may have
 * missed changes between its last answer and this connection, and ADR-0008 wants a re-fetch
 * after every reconnect anyway.
 */
import type { Change, View } from '@svc/domain';
import { StreamHub, type Frames, type StreamSubscription } from './stream-hub.ts';
import type { StreamSink } from './stream-sink.ts';

/** What an OFREP stream follows: its view, its key, and the view's workspace. */
export interface OfrepSubscription extends StreamSubscription {
  workspaceId: string;
}

/**
 * `event: message` with `data: {"type":"refetchEvaluation","etag":…,"lastModified":…}`: the
 * view's revision as the etag and the time of the change in Unix seconds.
 */
export function refetchFrame(view: View, nowMs: number): Buffer {
  const data = JSON.stringify({
    type: 'refetchEvaluation',
    etag: String(view.revision),
    lastModified: Math.floor(nowMs / 1000),
  });
  return Buffer.from(`event: message\ndata: ${data}\n\n`);
}

export class OfrepEventHub extends StreamHub {
  /** Every view that has had a stream, with its workspace (for settings changes). */
  private readonly followed = new Map<string, { view: View; workspaceId: string }>();

  override open(sink: StreamSink, subscription: OfrepSubscription): void {
    const { view, workspaceId } = subscription;
    this.followed.set(view.id, { view, workspaceId });
    super.open(sink, subscription);
  }

  /**
   * Project or workspace settings changed (the AB Testing add-on, billing): they decide whether
   * flags are evaluated per user, so every stream of those projects' and workspaces' views is
   * told to evaluate again, though no view changed. Other changes are ignored here.
   */
  settingsChanged(changes: readonly Change[]): void {
    const projectIds = new Set<string>();
    const workspaceIds = new Set<string>();
    for (const change of changes) {
      if (change.kind === 'project' && change.projectId !== null) projectIds.add(change.projectId);
      if (change.kind === 'workspace') workspaceIds.add(change.workspaceId);
    }
    if (projectIds.size === 0 && workspaceIds.size === 0) return;
    const views = [];
    for (const { view, workspaceId } of this.followed.values()) {
      if (projectIds.has(view.projectId) || workspaceIds.has(workspaceId)) {
        views.push({ view, changes: [] });
      }
    }
    if (views.length > 0) this.publish({ views, revokedKeyIds: [] });
  }

  protected override opening(view: View): Frames {
    return { frames: Buffer.concat([this.retry, refetchFrame(view, Date.now())]), events: 1 };
  }

  /** Any change of the view, targeting-only ones included (no item changed, yet answers may). */
  protected override diff(view: View): Frames {
    const followed = this.followed.get(view.id);
    if (followed) followed.view = view;
    return { frames: refetchFrame(view, Date.now()), events: 1 };
  }
}
