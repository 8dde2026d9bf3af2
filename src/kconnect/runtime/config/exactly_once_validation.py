"""Validation of a source connector's exactly-once settings on a distributed worker (KIP-618).

Kafka's ``DistributedHerder.validateSourceConnectorExactlyOnceSupport`` and
``validateSourceConnectorTransactionBoundary``, with their messages:

* ``exactly.once.support=required`` fails unless the worker has
  ``exactly.once.source.support=enabled`` and the connector's ``exactly_once_support(config)``
  answers SUPPORTED (None: the connector does not say; UNSUPPORTED: not with this config);
* ``transaction.boundary=connector`` fails unless ``can_define_transaction_boundaries(config)``
  answers SUPPORTED.

Errors go on the key's :class:`~kconnect.api.config_def.ConfigValue`, only when the value
itself passed validation. A connector method that raises is reported, not propagated.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from kconnect.api.config_def import ConfigValue
from kconnect.api.connector import (
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    SourceConnector,
)

__all__ = ["validate_exactly_once"]

log = logging.getLogger(__name__)

EXACTLY_ONCE_SUPPORT_CONFIG = "exactly.once.support"
TRANSACTION_BOUNDARY_CONFIG = "transaction.boundary"


def validate_exactly_once(
    connector: SourceConnector,
    props: Mapping[str, str | None],
    validated: Mapping[str, ConfigValue],
    worker_enabled: bool,
) -> None:
    """Add Kafka's errors to ``validated`` (see the module docstring)."""
    raw = {k: v for k, v in props.items() if v is not None}
    support = validated.get(EXACTLY_ONCE_SUPPORT_CONFIG)
    if (
        support is not None
        and not support.error_messages
        and str(support.value).lower() == "required"
    ):
        if not worker_enabled:
            support.add_error_message(
                "This worker does not have exactly-once source support enabled."
            )
        try:
            answer = connector.exactly_once_support(raw)
            if answer is None:
                support.add_error_message(
                    "The connector does not implement the API required for preflight "
                    "validation of exactly-once source support. Please consult the "
                    "documentation for the connector to determine whether it supports "
                    "exactly-once semantics, and then consider reconfiguring the connector "
                    'to use the value "requested" for this property (which will disable '
                    "this preflight check and allow the connector to be created)."
                )
            elif answer is not ExactlyOnceSupport.SUPPORTED:
                support.add_error_message(
                    "The connector does not support exactly-once semantics with the "
                    "provided configuration."
                )
        except Exception as e:
            log.error("Failed while validating connector support for exactly-once "
                      "semantics", exc_info=True)  # fmt: skip
            support.add_error_message(_unexpected(e))
    boundary = validated.get(TRANSACTION_BOUNDARY_CONFIG)
    if (
        boundary is not None
        and not boundary.error_messages
        and str(boundary.value).lower() == "connector"
    ):
        try:
            can = connector.can_define_transaction_boundaries(raw)
            if can is None:
                boundary.add_error_message(
                    "This connector has returned a null value from its "
                    "canDefineTransactionBoundaries method, which is not permitted. The "
                    "connector will be treated as if it cannot define its own transaction "
                    "boundaries, and cannot be configured with 'transaction.boundary' set "
                    "to 'connector'."
                )
            elif can is not ConnectorTransactionBoundaries.SUPPORTED:
                boundary.add_error_message(
                    "The connector does not support connector-defined transaction "
                    "boundaries with the given configuration. Please reconfigure it to use "
                    "a different transaction boundary definition."
                )
        except Exception as e:
            log.error("Failed while validating connector support for defining its own "
                      "transaction boundaries", exc_info=True)  # fmt: skip
            boundary.add_error_message(_unexpected(e))


def _unexpected(error: Exception) -> str:
    message = "An unexpected error occurred during validation"
    detail = str(error).strip()
    return (
        f"{message}: {detail}"
        if detail
        else message + "; please see the worker logs for more details."
    )
