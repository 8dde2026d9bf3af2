"""What a failed JDBC write reports to the dead letter queue as its exception class."""

from kconnect.connectors.jdbc.sink.writer import SqlWriteError
from kconnect.runtime.worker.errors.stage import exception_class_name


def test_dlq_exception_class_name_is_stable_across_the_move_into_jdbc_sink() -> None:
    error = SqlWriteError("refused", ValueError("boom"), None, transient=False)
    assert exception_class_name(error) == "kconnect.connectors.jdbc.writer.SqlWriteError"
