"""``MockSinkTask``: writes nothing; with ``mock_mode=task-failure`` its first ``put`` after
``delay_ms`` raises (see :mod:`~kconnect.connectors.tools.mock_connector`). It asks for a
poll timeout of at most 250 ms (``context.timeout``), as Kafka's does so that ``put`` comes
soon after the delay even when no records arrive."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence

from kconnect.api import SinkRecord, SinkTask
from kconnect.connectors.tools._version import VERSION
from kconnect.connectors.tools.mock_connector import MOCK_MODE_KEY, TASK_FAILURE, failure_delay_ms

__all__ = ["MockSinkTask"]

log = logging.getLogger(__name__)


class MockSinkTask(SinkTask):
    __kconnect_class_name__ = "org.apache.kafka.connect.tools.MockSinkTask"

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
                "Started MockSinkTask at %d with failure scheduled in %d ms",
                self._start_ms,
                self._delay_ms,
            )
            self._set_timeout()

    def put(self, records: Sequence[SinkRecord]) -> None:
        if self._mode == TASK_FAILURE:
            if time.time_ns() // 1_000_000 - self._start_ms > self._delay_ms:
                log.debug("Triggering sink task failure")
                raise RuntimeError()
            self._set_timeout()

    def _set_timeout(self) -> None:
        self.context.timeout(min(self._delay_ms, 250))

    def stop(self) -> None:
        """Nothing to release."""
