"""Logging: the standard library's logger by default, or a ServiceLogger of one's own."""

from __future__ import annotations

import logging

import pytest

from conftest import Create, RecordingLogger
from support.fake_service import SK, FakeService
from svc_client import ServiceLogger, default_logger, silent_logger
from svc_client._logger import LOGGER_NAME


def test_the_default_writes_to_the_svc_client_service_client_logger(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = default_logger()
    cause = RuntimeError("why")
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        logger.debug("detail")
        logger.info("state")
        logger.error("failed", cause)
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("svc_client.ServiceClient", "DEBUG", "detail"),
        ("svc_client.ServiceClient", "INFO", "state"),
        ("svc_client.ServiceClient", "ERROR", "failed"),
    ]
    assert caplog.records[2].exc_info is not None
    assert caplog.records[2].exc_info[1] is cause


def test_the_client_logs_through_a_given_logging_logger(
    service: FakeService, create: Create, caplog: pytest.LogCaptureFixture
) -> None:
    mine = logging.getLogger("my.app.config")
    with caplog.at_level(logging.DEBUG, logger="my.app.config"):
        create(logger=mine).close()
    assert any(
        r.name == "my.app.config" and "sync: revision 1" in r.getMessage() for r in caplog.records
    )


def test_a_service_logger_of_ones_own_gets_the_lines(service: FakeService, create: Create) -> None:
    logger = RecordingLogger()
    assert isinstance(logger, ServiceLogger)
    assert isinstance(silent_logger, ServiceLogger)
    create(logger=logger).sync()
    assert "sync: revision 1" in logger.messages("debug")
    assert "sync: not modified (revision 1)" in logger.messages("debug")


def test_never_logs_the_key(
    service: FakeService, create: Create, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        client = create(logger=None, stream=True)
        client.sync()
        client.close()
    assert caplog.records
    assert all(SK not in r.getMessage() for r in caplog.records)
