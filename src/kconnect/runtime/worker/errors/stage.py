"""Where in the pipeline an operation failed (``Stage``), and naming helpers for reports."""

from __future__ import annotations

import enum
import traceback

__all__ = ["Stage", "exception_class_name", "executing_class_name", "stacktrace"]


class Stage(enum.Enum):
    """A step of the source or sink pipeline; the name is what DLQ headers and logs show."""

    TASK_POLL = "TASK_POLL"
    TASK_PUT = "TASK_PUT"
    TRANSFORMATION = "TRANSFORMATION"
    KEY_CONVERTER = "KEY_CONVERTER"
    VALUE_CONVERTER = "VALUE_CONVERTER"
    HEADER_CONVERTER = "HEADER_CONVERTER"
    KAFKA_PRODUCE = "KAFKA_PRODUCE"
    KAFKA_CONSUME = "KAFKA_CONSUME"


_API_ERRORS_MODULE = "kconnect.api.errors"
_JAVA_ERRORS_PACKAGE = "org.apache.kafka.connect.errors."


def executing_class_name(obj: object) -> str:
    """The class name reported for a pipeline component (converter, SMT, task...).

    A string is taken as the name already.

    A class's ``__kconnect_class_name__`` (the Java name of a Kafka built-in) wins, so a DLQ
    header from kconnect reads like one from Apache Kafka Connect; else ``module.QualName``.
    """
    if isinstance(obj, str):
        return obj
    cls = obj if isinstance(obj, type) else type(obj)
    name = getattr(cls, "__kconnect_class_name__", None)
    return name if isinstance(name, str) else f"{cls.__module__}.{cls.__qualname__}"


def exception_class_name(error: BaseException) -> str:
    """The exception class name shown in DLQ headers and logs.

    Mapping (documented, stable):

    * exceptions of :mod:`kconnect.api.errors` (``DataException``, ``ConnectException``,
      ``RetriableException``...) and their subclasses defined there → the Java FQCN
      ``org.apache.kafka.connect.errors.<Name>``;
    * an exception with a ``java_class_name`` attribute (e.g. Kafka client errors; a Java
      plugin's exception from the plugin host has its Java class there) → that name;
    * built-in exceptions → the bare name (``ValueError``);
    * anything else → ``module.QualName``.
    """
    cls = type(error)
    java = getattr(error, "java_class_name", None)
    if isinstance(java, str):
        return java
    if cls.__module__ == _API_ERRORS_MODULE:
        return _JAVA_ERRORS_PACKAGE + cls.__qualname__
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def exception_message(error: BaseException) -> str | None:
    """The exception message shown in DLQ headers (Java's ``getMessage()``): a Java plugin's
    exception from the plugin host gives its Java message (its ``java_message`` attribute,
    possibly None); any other exception its text, None when empty."""
    if hasattr(error, "java_message"):
        java = error.java_message
        return java if isinstance(java, str) else None
    return str(error) or None


def stacktrace(error: BaseException) -> str:
    """The full formatted traceback (with causes), as ``printStackTrace`` gives in Java.

    An exception that was never raised (e.g. built by a sink task and handed straight to the
    ErrantRecordReporter) has no traceback; Java's would still show where it was created, so
    the stack of the reporting call is shown instead.
    """
    text = "".join(traceback.format_exception(error))
    if error.__traceback__ is None:
        frames = traceback.format_stack()[:-1]
        text += "Reported from (most recent call last):\n" + "".join(frames)
    return text
