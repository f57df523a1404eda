package dev.svc.client;

import org.slf4j.Logger;

/** The default {@link ServiceLogger}: an SLF4J logger (named after {@link ServiceClient}). */
final class Slf4jServiceLogger implements ServiceLogger {
  private final Logger logger;

  Slf4jServiceLogger(Logger logger) {
    this.logger = logger;
  }

  /** The SLF4J logger this adapter writes to. */
  Logger logger() {
    return logger;
  }

  @Override
  public void debug(String message) {
    logger.debug(message);
  }

  @Override
  public void info(String message) {
    logger.info(message);
  }

  @Override
  public void error(String message, Throwable cause) {
    if (cause == null) logger.error(message);
    else logger.error(message, cause);
  }
}
