package dev.svc.client;

import java.util.Map;

/** The proof of a workload, asked again at each exchange: {@code token} or {@code aws}. */
interface CredentialSource extends AutoCloseable {
  /** The exchange body's fields beside {@code identity_id}. */
  Map<String, Object> get();

  /** Releases what the source holds (the AWS SDK's credential provider). */
  @Override
  default void close() {}
}
