package dev.svc.client.openfeature;

import com.fasterxml.jackson.databind.JsonNode;
import dev.openfeature.sdk.EvaluationContext;
import dev.openfeature.sdk.EventProvider;
import dev.openfeature.sdk.Metadata;
import dev.openfeature.sdk.ProviderEvaluation;
import dev.openfeature.sdk.Reason;
import dev.openfeature.sdk.Value;
import dev.openfeature.sdk.exceptions.FatalError;
import dev.openfeature.sdk.exceptions.FlagNotFoundError;
import dev.openfeature.sdk.exceptions.GeneralError;
import dev.openfeature.sdk.exceptions.ProviderNotReadyError;
import dev.openfeature.sdk.exceptions.TypeMismatchError;
import dev.svc.client.ServiceAbAddonNotAvailableException;
import dev.svc.client.ServiceBillingException;
import dev.svc.client.ServiceClient;
import dev.svc.client.ServiceConfig;
import dev.svc.client.ServiceInitException;
import dev.svc.client.ServiceUnauthorizedException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * An OpenFeature provider over {@link ServiceClient}: booleans from flags (or a boolean config),
 * strings, numbers and objects from configs, read from the client's live cache without a
 * request; a context with a targeting key has its active flags evaluated for that user by the
 * server's evaluate-ab. Events follow the client: its changes are
 * {@code PROVIDER_CONFIGURATION_CHANGED} with the changed keys, its status
 * {@code PROVIDER_READY}, {@code PROVIDER_STALE} and {@code PROVIDER_ERROR}.
 *
 * <pre>{@code
 * OpenFeatureAPI.getInstance().setProviderAndWait(new SvcProvider(ServiceConfig.builder()
 *     .baseUrl("https://acme.config.example.com").apiKey(key).build()));
 * }</pre>
 *
 * <p>Needs {@code dev.openfeature:sdk} on the classpath (an optional dependency of the client).
 */
public final class SvcProvider extends EventProvider {
  /** How long evaluate-ab stays unused after the server said the add-on is off or billing overdue. */
  public static final Duration AB_UNAVAILABLE_RETRY = Duration.ofMinutes(1);

  private static final Metadata METADATA = () -> "svc";

  private final ServiceConfig config;
  private final boolean owned;
  private volatile ServiceClient client;
  private final UserEvaluations users = new UserEvaluations(this::getClient);
  /** Set once initialized. */
  private volatile ClientEvents following;
  /** nanoTime until which evaluate-ab is not asked; meaningful while abUnavailable is true. */
  private volatile long abUnavailableUntil;
  private volatile boolean abUnavailable;

  /**
   * A provider that creates its client at initialization (the first sync, then the stream) and
   * closes it at shutdown.
   *
   * @param config the client's settings
   */
  public SvcProvider(ServiceConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    this.owned = true;
  }

  /**
   * A provider over a client the application created, and closes.
   *
   * @param client the client
   */
  public SvcProvider(ServiceClient client) {
    this.config = null;
    this.client = Objects.requireNonNull(client, "client");
    this.owned = false;
  }

  @Override
  public Metadata getMetadata() {
    return METADATA;
  }

  /**
   * The client this provider reads from.
   *
   * @return the client
   * @throws ProviderNotReadyError before the provider's client exists (before initialization)
   */
  public ServiceClient getClient() {
    ServiceClient current = client;
    if (current == null) throw new ProviderNotReadyError("the provider is not initialized");
    return current;
  }

  /**
   * Creates the client (its first sync) unless one was given, and follows its changes and
   * status. A refused key or invalid settings are fatal; another failure of the first sync is
   * an error (setting the provider again tries again).
   */
  @Override
  public synchronized void initialize(EvaluationContext evaluationContext) throws Exception {
    // Initialized already (the same provider set for a second domain).
    if (following != null) return;
    if (client == null) {
      try {
        client = ServiceClient.create(config);
      } catch (ServiceInitException e) {
        if (e.getCause() instanceof ServiceUnauthorizedException refused) {
          throw new FatalError("the API key was refused: " + refused.getMessage(), refused);
        }
        throw new GeneralError("the first sync failed: " + e.getMessage(), e);
      } catch (IllegalArgumentException e) {
        throw new FatalError("the settings are not valid: " + e.getMessage(), e);
      }
    }
    following = new ClientEvents(this, client);
  }

  /** Stops following the client, and closes it when the provider created it. */
  @Override
  public void shutdown() {
    if (following != null) following.close();
    if (owned && client != null) client.close();
    super.shutdown();
  }

  @Override
  public ProviderEvaluation<Boolean> getBooleanEvaluation(String key, Boolean defaultValue, EvaluationContext ctx) {
    ServiceClient current = getClient();
    Boolean active = flagState(current, key);
    // No flag of that key: a boolean config, as OFREP resolves it.
    if (active == null) return config(key, JsonNode::isBoolean, JsonNode::booleanValue, "boolean");
    if (!active) return flag(false, Reason.DISABLED);
    String userId = ctx == null ? null : ctx.getTargetingKey();
    if (userId == null || userId.isEmpty() || (abUnavailable && System.nanoTime() - abUnavailableUntil < 0)) {
      return flag(true, Reason.STATIC);
    }
    try {
      return flag(users.evaluate(key, userId, Values.attributes(ctx)), Reason.TARGETING_MATCH);
    } catch (ServiceAbAddonNotAvailableException | ServiceBillingException e) {
      // Per-user evaluation is off for this project: the flag is its is_active, as OFREP says.
      abUnavailableUntil = System.nanoTime() + AB_UNAVAILABLE_RETRY.toNanos();
      abUnavailable = true;
      return flag(true, Reason.STATIC);
    } catch (RuntimeException e) {
      throw new GeneralError("evaluate-ab failed: " + e.getMessage(), e);
    }
  }

  @Override
  public ProviderEvaluation<String> getStringEvaluation(String key, String defaultValue, EvaluationContext ctx) {
    return config(key, JsonNode::isTextual, JsonNode::textValue, "string");
  }

  @Override
  public ProviderEvaluation<Integer> getIntegerEvaluation(String key, Integer defaultValue, EvaluationContext ctx) {
    return config(key, n -> n.isIntegralNumber() && n.canConvertToInt(), JsonNode::intValue, "32-bit integer");
  }

  @Override
  public ProviderEvaluation<Long> getLongEvaluation(String key, Long defaultValue, EvaluationContext ctx) {
    return config(key, n -> n.isIntegralNumber() && n.canConvertToLong(), JsonNode::longValue, "64-bit integer");
  }

  @Override
  public ProviderEvaluation<Double> getDoubleEvaluation(String key, Double defaultValue, EvaluationContext ctx) {
    return config(key, JsonNode::isNumber, JsonNode::doubleValue, "number");
  }

  @Override
  public ProviderEvaluation<Value> getObjectEvaluation(String key, Value defaultValue, EvaluationContext ctx) {
    return config(key, n -> n.isObject() || n.isArray(), Values::of, "object");
  }

  /** A config from the cache, checked against the type asked for. */
  private <T> ProviderEvaluation<T> config(
      String key, Predicate<JsonNode> fits, Function<JsonNode, T> read, String type) {
    ServiceClient current = getClient();
    Optional<JsonNode> value = current.getConfig(key);
    if (value.isEmpty()) {
      if (flagState(current, key) != null) {
        throw new TypeMismatchError("'" + key + "' is a flag (a boolean), not a " + type);
      }
      throw new FlagNotFoundError("no flag or config '" + key + "' for this key");
    }
    if (!fits.test(value.get())) throw new TypeMismatchError("config '" + key + "' is not a " + type);
    return ProviderEvaluation.<T>builder().value(read.apply(value.get())).reason(Reason.STATIC.name()).build();
  }

  private static ProviderEvaluation<Boolean> flag(boolean value, Reason reason) {
    return ProviderEvaluation.<Boolean>builder()
        .value(value)
        .reason(reason.name())
        .variant(value ? "on" : "off")
        .build();
  }

  /** A flag's is_active from the cache, or null when there is no flag of that key. */
  private static Boolean flagState(ServiceClient client, String key) {
    // Two defaults tell an absent flag apart without copying the cache.
    if (client.getFlag(key, false)) return true;
    return client.getFlag(key, true) ? null : false;
  }
}
