package dev.svc.client;

import java.time.Instant;

/**
 * What an application can show about a client, from {@link ServiceClient#getStatus()}: a new
 * object whenever something in it changed.
 *
 * @param ready the cache holds values from a successful sync
 * @param streamConnected the change stream is connected
 * @param syncedAt when the last sync succeeded (a 304 counts), or null before the first
 * @param error the last sync or stream failure, or null: cleared once a sync succeeds or the
 *     stream connects. A {@link ServiceUnauthorizedException} means the key was refused.
 */
public record ServiceStatus(boolean ready, boolean streamConnected, Instant syncedAt, RuntimeException error) {
  static final ServiceStatus INITIAL = new ServiceStatus(false, false, null, null);
}
