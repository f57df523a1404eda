package dev.svc.client;

/**
 * Where the client writes what it does. Messages never carry secret values or API keys.
 *
 * <p>The default ({@link #defaultLogger()}) writes to the SLF4J logger named after
 * {@link ServiceClient}. Pass another one with {@link ServiceConfig.Builder#logger}; with Spring
 * Boot, a {@code ServiceLogger} bean replaces the default.
 */
public interface ServiceLogger {
  /**
   * Routine detail: each sync, each batch of stream events.
   *
   * @param message the message
   */
  void debug(String message);

  /**
   * State changes worth seeing: stream connected or lost, quarantine entered.
   *
   * @param message the message
   */
  void info(String message);

  /**
   * A failure the client handled (and will retry, or stopped on).
   *
   * @param message the message
   * @param cause the error, or null
   */
  void error(String message, Throwable cause);

  /**
   * The default adapter: SLF4J, logger name {@code dev.svc.client.ServiceClient}.
   *
   * @return the default logger
   */
  static ServiceLogger defaultLogger() {
    return new Slf4jServiceLogger(org.slf4j.LoggerFactory.getLogger(ServiceClient.class));
  }

  /**
   * A logger that drops everything.
   *
   * @return the silent logger
   */
  static ServiceLogger silent() {
    return SilentLogger.INSTANCE;
  }
}
