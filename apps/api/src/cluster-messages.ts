/** What a cluster's primary and its api workers say to each other (node:cluster IPC). */
export type ClusterMessage =
  /** Worker → primary: loaded and serving. */
  | { type: 'ready' }
  /** Primary → workers: whether every live worker is ready. */
  | { type: 'peers'; ready: boolean };

export function isClusterMessage(message: unknown): message is ClusterMessage {
  const type = (message as { type?: unknown } | null)?.type;
  return type === 'ready' || type === 'peers';
}
