"""Which hot path runs: the compiled ``kconnect_native`` module, or the pure-Python reference.

``kconnect-native`` (the Rust crate in ``native/``) is a separate, optional distribution. When it
is importable, the JsonConverter's batch methods, the transformation chain's runs of built-in
SMTs and the JDBC sink's COPY rows use it; otherwise (or with ``KCONNECT_NATIVE=0``) every
record takes the pure-Python code, which stays the reference: the native code does the same
work for the cases it fully understands and hands every other record back to it, so both paths
give the same bytes, the same values and the same errors. ``KCONNECT_NATIVE=1`` insists on the
native path (importing kconnect fails without it), for CI.

The choice is made once, when this module is first imported. :data:`native` is the module (or
None); :func:`describe` says which path runs, for ``GET /`` and ``kconnect --version``.

This module sits beside :mod:`kconnect.api` and :mod:`kconnect.jackson`: the runtime and the
in-tree plugins may import it; it imports only the plugin API.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from kconnect.api import SchemaAndValue, SinkRecord, SourceRecord, Struct

__all__ = ["ENV_VAR", "FALLBACK", "NativeStepProvider", "describe", "native", "native_chain"]

ENV_VAR = "KCONNECT_NATIVE"
#: The kconnect_native release line this kconnect speaks to (its plans' format).
_COMPATIBLE = "0.2."

ARENA_CACHE_BYTES = 16 << 20
"""Freed memory arenas (1 MiB each) the native module keeps for the next batch instead of
giving them back to the system, which would fault them in again (``native/src/arena.rs``);
the most they add to a process's RSS."""

FALLBACK: Any = type("_Fallback", (), {"__repr__": lambda self: "FALLBACK", "__slots__": ()})()
"""What a native batch call puts where the Python path must do the record itself."""


def _load() -> tuple[Any, str]:
    wanted = os.environ.get(ENV_VAR, "").strip().lower()
    if wanted in ("0", "false", "no", "off"):
        return None, f"python ({ENV_VAR}={os.environ[ENV_VAR]})"
    try:
        import kconnect_native
    except ImportError as e:
        if wanted in ("1", "true", "yes", "on"):
            raise ImportError(
                f"{ENV_VAR}={os.environ[ENV_VAR]} but kconnect_native cannot be imported ({e}); "
                "install it with `pip install ./native` (needs cargo) or unset the variable"
            ) from e
        return None, "python (kconnect_native not installed)"
    version = str(getattr(kconnect_native, "__version__", "?"))
    if not version.startswith(_COMPATIBLE):
        if wanted in ("1", "true", "yes", "on"):
            raise ImportError(f"kconnect_native {version} does not match kconnect ({_COMPATIBLE}x)")
        return None, f"python (kconnect_native {version} does not match {_COMPATIBLE}x)"
    try:
        # reads the __slots__ layout of the data-model classes; refuses one it cannot use
        kconnect_native.init(Struct, SchemaAndValue, SourceRecord, SinkRecord)
        kconnect_native.install_arena_cache(ARENA_CACHE_BYTES)
    except (TypeError, ValueError) as e:
        if wanted in ("1", "true", "yes", "on"):
            raise ImportError(f"kconnect_native {version} cannot be used: {e}") from e
        return None, f"python (kconnect_native {version} cannot be used: {e})"
    return kconnect_native, f"native (kconnect_native {version})"


native, _DESCRIPTION = _load()


def describe() -> str:
    """``native (kconnect_native 0.2.0)`` or ``python (<why>)``."""
    return _DESCRIPTION


@runtime_checkable
class NativeStepProvider(Protocol):
    """A transformation that can describe itself as a step of a native chain."""

    def native_step(self) -> tuple[Any, ...] | None:
        """The step's description for ``kconnect_native.Chain`` (its kind, settings and the
        per-schema helpers the native code calls), or None when this configuration has no
        native form. Called once, when the chain is built."""


def native_chain(transformations: Sequence[object]) -> Any:
    """A ``kconnect_native.Chain`` running ``transformations`` in order, or None when the
    native path is off or one of them has no native form."""
    if native is None or not transformations:
        return None
    steps = []
    for t in transformations:
        step = t.native_step() if isinstance(t, NativeStepProvider) else None
        if step is None:
            return None
        steps.append(step)
    return native.Chain(steps)
