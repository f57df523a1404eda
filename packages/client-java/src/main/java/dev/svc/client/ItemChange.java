package dev.svc.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One changed item, as a {@code change} event of the stream carries it.
 *
 * @param revision the view's revision after the change
 * @param kind {@code config}, {@code flag} or {@code secret}
 * @param key the item's key
 * @param delete true for {@code op: delete}, false for {@code op: upsert}
 * @param value the config value or flag state of an upsert (null for secrets and deletes)
 * @param secret the secret of a secret upsert, else null
 */
record ItemChange(
    long revision, String kind, String key, boolean delete, JsonNode value, SecretEntry secret) {}
