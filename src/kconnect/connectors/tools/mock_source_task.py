"""``MockSourceTask``: produces nothing; with ``mock_mode=task-failure`` its first ``poll``
after ``delay_ms`` raises (see :mod:`~kconnect.connectors.tools.mock_connector`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping

from kconnect.api import SourceRecord, SourceTask
from kconnect.connectors.tools._version import VERSION
from kconnect.connectors.tools.mock_connector import MOCK_MODE_KEY, TASK_FAILURE, failure_delay_ms

__all__ = ["MockSourceTask"]

log = logging.getLogger(__name__)


class MockSourceTask(SourceTask):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.MockSourceTask"

    def __init__(self) -> None:
        self._mode: str | None = None
        self._start_ms = 0
        self._delay_ms = 0

    def version(self) -> str:
        return VERSION

    def start(self, props: Mapping[str, str]) -> None:
        self._mode = props.get(MOCK_MODE_KEY)
        if self._mode == TASK_FAILURE:
            self._start_ms = time.time_ns() // 1_000_000
            self._delay_ms = failure_delay_ms(props)
            log.debug(
                "Started MockSourceTask at %d with failure scheduled in %d ms",
                self._start_ms,
                self._delay_ms,
            )

    def poll(self) -> list[SourceRecord]:
        failing = self._mode == TASK_FAILURE
        if failing and time.time_ns() // 1_000_000 - self._start_ms > self._delay_ms:
            log.debug("Triggering source task failure")
            raise RuntimeError()
        return []

    def stop(self) -> None:
        """Nothing to release."""
