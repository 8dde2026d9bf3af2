"""The connector's transformation chain: ``transforms``, ``predicates`` and their settings.

:meth:`TransformationChain.from_config` reads a connector configuration exactly as Kafka's
``ConnectorConfig.transformationStages`` does -- ``transforms`` (unique aliases),
``transforms.<alias>.type`` (required), the implicit ``transforms.<alias>.predicate`` and
``transforms.<alias>.negate`` (``negate`` without ``predicate`` is an error), ``predicates``,
``predicates.<alias>.type`` -- and configures each transformation/predicate with its settings,
prefix stripped (``type`` included, ``predicate``/``negate`` removed, as Kafka does).

Lifecycle: a worker task builds one chain at start (task thread), calls :meth:`apply_batch`
on the task thread for every batch, and :meth:`close` when it stops. The chain is not
thread-safe, like the transformations it holds.

A stage that raises is reported as :class:`TransformationError` naming the alias and class, so
the runtime's error handler can log it, apply ``errors.tolerance`` and fill the DLQ headers.

The alias and ``negate`` rules live in :mod:`kconnect.runtime.config.transforms_config`,
shared with REST validation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kconnect._hot_path import native_step
from kconnect.api import (
    ConfigDef,
    ConfigException,
    ConfigType,
    ConnectException,
    ConnectRecord,
    DataException,
    Predicate,
    Transformation,
)
from kconnect.api.config_types import java_str, parse_type
from kconnect.runtime.config.transforms_config import (
    NEGATE_CONFIG,
    PREDICATE_CONFIG,
    PREDICATES_CONFIG,
    TRANSFORMS_CONFIG,
    aliases,
    check_negate,
    close_quietly,
)
from kconnect.runtime.plugins.plugins import Plugins
from kconnect.runtime.plugins.versions import InvalidVersionSpecification, version_requirement
from kconnect.runtime.worker.batch_stages import Segment, apply_segments, plan

__all__ = ["StageErrorHandler", "TransformationChain", "TransformationError", "TransformationStage"]

log = logging.getLogger(__name__)

StageErrorHandler = Callable[[int, "TransformationStage", Any, Exception], Any]
"""``(index in the batch, failing stage, the record it received, the error) -> replacement``."""


class TransformationError(DataException):
    """A transformation (or its predicate) failed on a record.

    ``stage_alias`` and ``class_name`` say which one; ``cause`` is what it raised (also
    ``__cause__``). It is a DataException, so ``errors.tolerance=all`` may skip the record; the
    runtime can look at ``cause`` to retry a RetriableException.
    """

    def __init__(
        self,
        stage_alias: str,
        class_name: str,
        cause: BaseException,
        record: ConnectRecord | None = None,
    ) -> None:
        self.stage_alias = stage_alias
        self.class_name = class_name
        self.cause = cause
        self.record = record
        detail = str(cause) or type(cause).__name__
        super().__init__(
            f"Transformation '{stage_alias}' ({class_name}) failed: {type(cause).__name__}: "
            f"{detail}"
        )
        self.__cause__ = cause


class TransformationStage:
    """One configured transformation with its optional predicate (Kafka's ``TransformationStage``).

    The transformation applies when there is no predicate, or when the predicate's result
    differs from ``negate``; otherwise the record passes through unchanged.
    """

    __slots__ = ("alias", "class_name", "negate", "predicate", "predicate_alias", "transformation")

    def __init__(
        self,
        alias: str,
        class_name: str,
        transformation: Transformation[Any],
        predicate: Predicate[Any] | None = None,
        negate: bool = False,
        predicate_alias: str | None = None,
    ) -> None:
        self.alias = alias
        self.class_name = class_name
        self.transformation = transformation
        self.predicate = predicate
        self.negate = negate
        self.predicate_alias = predicate_alias

    def apply(self, record: Any) -> Any:
        """The transformed record, the same record (predicate did not match) or None (dropped).

        Exceptions from the predicate or the transformation propagate unchanged.
        """
        predicate = self.predicate
        if predicate is None or bool(predicate.test(record)) != self.negate:
            return self.transformation.apply(record)
        return record

    def close(self) -> None:
        """Close the transformation and the predicate; failures are logged, not raised."""
        for what, plugin in (
            ("transformation", self.transformation),
            ("predicate", self.predicate),
        ):
            if plugin is None:
                continue
            try:
                plugin.close()
            except Exception as e:
                log.warning(
                    "Failed to close %s '%s' (%s): %s", what, self.alias, self.class_name, e
                )

    def __repr__(self) -> str:
        return (
            f"TransformationStage{{alias={self.alias}, class={self.class_name}, "
            f"predicate={self.predicate_alias}, negate={self.negate}}}"
        )


class TransformationChain:
    """The ordered stages of ``transforms``; applies them to records and batches."""

    def __init__(self, stages: Sequence[TransformationStage]) -> None:
        self._stages = list(stages)
        # Hoisted per-stage callables for the batch loop (one tuple unpack per stage and record).
        self._fast = [
            (s.transformation.apply, s.predicate.test if s.predicate else None, s.negate, s)
            for s in self._stages
        ]
        # Each stage's kconnect_native.Step (None: no native form), made on first use
        self._native_steps: list[Any] | None = None
        # Segments of stage ranges with batch stages (Java SMTs); None: the plain loop runs
        self._plans: dict[tuple[int, int], list[Segment] | None] = {}

    @property
    def stages(self) -> list[TransformationStage]:
        return list(self._stages)

    def is_empty(self) -> bool:
        return not self._stages

    def native_steps(self) -> list[Any]:
        """Per stage its ``kconnect_native.Step``, or None where the stage has no native form
        (or the native path is off): what the native record batches run."""
        if self._native_steps is None:
            self._native_steps = [
                native_step(s.transformation, s.predicate, s.negate) for s in self._stages
            ]
        return self._native_steps

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def from_config(
        cls, connector_props: Mapping[str, Any], plugins: Plugins
    ) -> TransformationChain:
        """Build and configure every stage from a connector configuration.

        Raises:
            ConfigException: duplicate or malformed aliases, a missing or unknown ``type``
                (the message lists the closest installed names), ``negate`` without
                ``predicate``, a predicate alias not listed in ``predicates``, or a setting the
                transformation/predicate rejects.
            ConnectException: a transformation or predicate failed to start for another reason.
        """
        props = connector_props
        transform_aliases = aliases(props, TRANSFORMS_CONFIG, "transformation")
        predicate_aliases = aliases(props, PREDICATES_CONFIG, "predicate")
        stages: list[TransformationStage] = []
        predicates_made: list[Predicate[Any]] = []
        try:
            for alias in transform_aliases:
                prefix = f"{TRANSFORMS_CONFIG}.{alias}."
                check_negate(props, prefix)
                transformation, class_name = _new_configured(
                    plugins, "transformation", prefix, props, (PREDICATE_CONFIG, NEGATE_CONFIG)
                )
                predicate: Predicate[Any] | None = None
                try:
                    predicate_alias = parse_type(
                        prefix + PREDICATE_CONFIG,
                        props.get(prefix + PREDICATE_CONFIG),
                        ConfigType.STRING,
                    )
                    negate = bool(
                        parse_type(
                            prefix + NEGATE_CONFIG,
                            props.get(prefix + NEGATE_CONFIG, False),
                            ConfigType.BOOLEAN,
                        )
                    )
                    if predicate_alias is not None:
                        if predicate_alias not in predicate_aliases:
                            raise ConfigException(
                                prefix + PREDICATE_CONFIG,
                                predicate_alias,
                                f"There is no predicate '{predicate_alias}' in "
                                f"'{PREDICATES_CONFIG}' ({java_str(predicate_aliases)}); add it "
                                f"there and set '{PREDICATES_CONFIG}.{predicate_alias}.type'",
                            )
                        predicate, _ = _new_configured(
                            plugins,
                            "predicate",
                            f"{PREDICATES_CONFIG}.{predicate_alias}.",
                            props,
                            (),
                        )
                        predicates_made.append(predicate)
                except BaseException:
                    close_quietly(transformation)
                    raise
                stages.append(
                    TransformationStage(
                        alias, class_name, transformation, predicate, negate, predicate_alias
                    )
                )
        except BaseException:
            for stage in stages:
                stage.close()
            raise
        return cls(stages)

    # -- applying -------------------------------------------------------------------------------

    def apply(self, record: Any) -> Any:
        """One record through :meth:`apply_batch`: the result, or None if a stage dropped it.

        Raises TransformationError naming the stage that failed.
        """
        return self.apply_batch((record,))[0]

    def apply_batch(
        self, records: Sequence[Any], on_error: StageErrorHandler | None = None
    ) -> list[Any]:
        """Apply the chain to a batch in one pass: the result is aligned with ``records``, each
        entry the transformed record or None where a stage dropped it.

        This is the one transformation path of both task loops. When a stage raises on record
        ``i`` and ``on_error`` is given, ``on_error(i, stage, record, error)`` is called with the
        record as that stage received it; what it returns replaces the stage's result (None
        drops the record) and the remaining stages go on from there, so the stage is never run
        again unless the handler retries it. ``on_error`` may raise to stop the batch
        (``errors.tolerance=none``). Without ``on_error`` the first failure raises
        :class:`TransformationError` naming the stage.

        Stages whose plugins take whole batches (:mod:`.batch_stages`: the Java SMTs and
        predicates) get the batch in one call per run of consecutive such stages; the chain
        then goes segment by segment instead of record by record, so when several records
        fail, which failure stops the batch first is the first in segment order.
        """
        return self.apply_range(records, 0, len(self._stages), on_error)

    def apply_range(
        self,
        records: Sequence[Any],
        lo: int,
        hi: int,
        on_error: StageErrorHandler | None = None,
    ) -> list[Any]:
        """:meth:`apply_batch` of the stages ``[lo, hi)`` only (the native record path runs the
        stages without a native form this way)."""
        key = (lo, hi)
        if key not in self._plans:
            self._plans[key] = plan(self._stages[lo:hi])
        segments = self._plans[key]
        if segments is not None:

            def handle(i: int, stage: TransformationStage, record: Any, e: Exception) -> Any:
                if on_error is None:
                    raise TransformationError(stage.alias, stage.class_name, e, record) from e
                return on_error(i, stage, record, e)

            return apply_segments(self._stages[lo:hi], segments, records, handle)
        fast = self._fast[lo:hi] if (lo, hi) != (0, len(self._fast)) else self._fast
        if not fast:
            return list(records)
        out: list[Any] = []
        append = out.append
        for i, record in enumerate(records):
            for apply, test, negate, stage in fast:
                try:
                    if test is None or bool(test(record)) != negate:
                        record = apply(record)
                except Exception as e:
                    if on_error is None:
                        raise TransformationError(stage.alias, stage.class_name, e, record) from e
                    record = on_error(i, stage, record, e)
                if record is None:
                    break
            append(record)
        return out

    def close(self) -> None:
        """Close every stage (errors are logged); called once when the task stops."""
        for stage in self._stages:
            stage.close()

    def __repr__(self) -> str:
        return "TransformationChain{" + ", ".join(s.class_name for s in self._stages) + "}"


def _new_configured(
    plugins: Plugins, kind: str, prefix: str, props: Mapping[str, Any], implicit: tuple[str, ...]
) -> tuple[Any, str]:
    """Resolve ``<prefix>type``, check the settings against the plugin's ConfigDef (so errors
    name the full key, as Kafka's enriched ConnectorConfig does), instantiate and configure."""
    type_key = prefix + "type"
    type_name = props.get(type_key)
    if type_name is None or (isinstance(type_name, str) and not type_name.strip()):
        raise ConfigException(
            f'Missing required configuration "{type_key}" which has no default value.'
        )
    version = props.get(prefix + "plugin.version")
    try:
        wanted = version_requirement(None if version is None else str(version))
    except InvalidVersionSpecification as e:
        raise ConfigException(prefix + "plugin.version", version, str(e)) from None
    # an installed version outside the requirement fails the task (VersionedPluginLoadingError)
    desc = plugins.resolve_version(
        kind,
        type_name if isinstance(type_name, type) else str(type_name),
        wanted,
        config_key=type_key,
    )
    try:
        instance = desc.cls()
    except Exception as e:
        raise ConfigException(
            type_key, desc.class_name, f"Could not instantiate {desc.class_name}: {e}"
        ) from e
    settings = {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix)}
    for name in implicit:
        settings.pop(name, None)
    try:
        child = instance.config()
        if child is not None:
            embedded = ConfigDef().embed(prefix, "", 0, _without(child, implicit))
            embedded.parse({prefix + k: v for k, v in settings.items()})
        instance.configure(settings)
    except ConfigException:
        close_quietly(instance)
        raise
    except Exception as e:
        close_quietly(instance)
        raise ConnectException(
            f"Failed to configure {kind} '{prefix[:-1]}' ({desc.class_name}): "
            f"{type(e).__name__}: {e}"
        ) from e
    return instance, desc.class_name


def _without(config_def: ConfigDef, names: tuple[str, ...]) -> ConfigDef:
    if not any(n in config_def.names() for n in names):
        return config_def
    trimmed = ConfigDef()
    for key in config_def.config_keys().values():
        if key.name not in names:
            trimmed.define_key(key)
    return trimmed
