"""The client's logging port, as the spec names it, and its adapters to :mod:`logging`.

Messages never carry secret values or API keys.
"""

from __future__ import annotations

import logging
from typing import Protocol, runtime_checkable

LOGGER_NAME = "svc_client.ServiceClient"


@runtime_checkable
class ServiceLogger(Protocol):
    """Where the client writes what it does. Pass your own as ``ServiceConfig.logger``."""

    def debug(self, message: str) -> None:
        """Routine detail: each sync, each batch of stream events."""

    def info(self, message: str) -> None:
        """State changes worth seeing: stream connected or lost, quarantine entered."""

    def error(self, message: str, cause: BaseException | None = None) -> None:
        """A failure the client handled (and retries, or stopped on); ``cause`` is the error."""


class StdlibLogger:
    """A :class:`ServiceLogger` over a :mod:`logging` logger (the default:
    ``svc_client.ServiceClient``); an error's cause goes in as ``exc_info``."""

    def __init__(self, logger: logging.Logger | logging.LoggerAdapter[logging.Logger]):
        self._logger = logger

    def debug(self, message: str) -> None:
        self._logger.debug(message)

    def info(self, message: str) -> None:
        self._logger.info(message)

    def error(self, message: str, cause: BaseException | None = None) -> None:
        self._logger.error(message, exc_info=cause)


class _SilentLogger:
    def debug(self, message: str) -> None:
        pass

    def info(self, message: str) -> None:
        pass

    def error(self, message: str, cause: BaseException | None = None) -> None:
        pass


silent_logger: ServiceLogger = _SilentLogger()
"""A logger that drops everything."""


def default_logger() -> ServiceLogger:
    """The standard library's logger ``svc_client.ServiceClient``.

    Configure it as any other (``logging.basicConfig``, ``dictConfig``); until an application
    does, Python's last-resort handler prints its warnings and errors to stderr.
    """
    return StdlibLogger(logging.getLogger(LOGGER_NAME))


def as_service_logger(
    logger: ServiceLogger | logging.Logger | logging.LoggerAdapter[logging.Logger] | None,
) -> ServiceLogger:
    """``ServiceConfig.logger`` as a :class:`ServiceLogger`; a TypeError for anything else."""
    if logger is None:
        return default_logger()
    if isinstance(logger, (logging.Logger, logging.LoggerAdapter)):
        return StdlibLogger(logger)
    for method in ("debug", "info", "error"):
        if not callable(getattr(logger, method, None)):
            raise TypeError(f"logger.{method} must be a method")
    return logger
