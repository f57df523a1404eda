package dev.svc.client;

/** {@link ServiceLogger#silent()}: drops everything. */
enum SilentLogger implements ServiceLogger {
  INSTANCE;

  @Override
  public void debug(String message) {}

  @Override
  public void info(String message) {}

  @Override
  public void error(String message, Throwable cause) {}
}
