"""The whole local stack: start, stop and report Kafka, PostgreSQL and the schema registry.

Every start/stop holds one machine-wide lock file (in the temp dir), so concurrent callers --
several pytest sessions, a developer's terminal, CI -- never launch a second broker or cluster:
the later caller waits, then finds the services running and returns at once.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kconnect.local import kafka as kafka_svc
from kconnect.local import paths
from kconnect.local import postgres as postgres_svc
from kconnect.local import registry as registry_svc

Progress = Callable[[str], None]

SERVICES = (kafka_svc.SERVICE, postgres_svc.SERVICE, registry_svc.SERVICE)


def lock_path() -> Path:
    """The machine-wide lock serialising start/stop calls (shared by all homes and users)."""
    return Path(tempfile.gettempdir()) / "kconnect-local-stack.lock"


@dataclass(frozen=True)
class StackOptions:
    """Which services to act on and on which ports."""

    kafka: bool = True
    postgres: bool = True
    kafka_port: int = kafka_svc.DEFAULT_PORT
    controller_port: int | None = None  # default: kafka_port + 1
    pg_port: int = postgres_svc.DEFAULT_PORT
    secure: bool = False  # Kafka also on SASL_SSL, mTLS and SASL_PLAINTEXT listeners
    #: the schema registry (Apicurio, Confluent's API) -- only when asked for (``--registry``)
    registry: bool = False
    registry_port: int = registry_svc.DEFAULT_PORT

    def kafka_settings(self) -> kafka_svc.KafkaSettings:
        """Settings of the Kafka node these options describe."""
        return kafka_svc.KafkaSettings(
            port=self.kafka_port,
            controller_port=self.controller_port or self.kafka_port + 1,
            secure=self.secure,
        )

    def postgres_settings(self) -> postgres_svc.PostgresSettings:
        """Settings of the PostgreSQL cluster these options describe."""
        return postgres_svc.PostgresSettings(port=self.pg_port)

    def registry_settings(self) -> registry_svc.RegistrySettings:
        """Settings of the schema registry these options describe."""
        return registry_svc.RegistrySettings(port=self.registry_port)


def start(options: StackOptions, *, progress: Progress | None = None) -> dict[str, dict[str, Any]]:
    """Start the selected services (idempotently); return each one's state by service name.

    Raises :class:`kconnect.local.MissingToolError` / :class:`kconnect.local.LocalStackError`;
    services started before the failure keep running (``stop`` stops them).
    """
    result: dict[str, dict[str, Any]] = {}
    with paths.file_lock(lock_path(), timeout_s=900):
        if options.kafka:
            result[kafka_svc.SERVICE] = kafka_svc.start(options.kafka_settings(), progress=progress)
        if options.postgres:
            result[postgres_svc.SERVICE] = postgres_svc.start(
                options.postgres_settings(), progress=progress
            )
        if options.registry:
            result[registry_svc.SERVICE] = registry_svc.start(
                options.registry_settings(), progress=progress
            )
    return result


def stop(
    options: StackOptions, *, progress: Progress | None = None, purge: bool = False
) -> list[str]:
    """Stop the selected services this home started; return the names of those stopped.

    With ``purge`` the services' data directories are deleted too (the jar cache stays).
    """
    stopped: list[str] = []
    with paths.file_lock(lock_path(), timeout_s=900):
        if options.kafka and kafka_svc.stop(progress=progress):
            stopped.append(kafka_svc.SERVICE)
        if options.postgres and postgres_svc.stop(progress=progress):
            stopped.append(postgres_svc.SERVICE)
        if options.registry and registry_svc.stop(progress=progress):
            stopped.append(registry_svc.SERVICE)
        if purge:
            for service, selected in (
                (kafka_svc.SERVICE, options.kafka),
                (postgres_svc.SERVICE, options.postgres),
                (registry_svc.SERVICE, options.registry),
            ):
                d = paths.service_dir(service)
                if selected and d.exists():
                    shutil.rmtree(d)
                    if progress is not None:
                        progress(f"Deleted {d}")
    return stopped


def status(options: StackOptions | None = None) -> list[dict[str, Any]]:
    """One row per service: ``service``, ``address``, ``pid``, ``state``, ``detail``.

    ``state`` is ``running`` (started from this home, pid alive), ``external`` (not started
    here, but something listens on the port), ``stale`` (pid file of a dead process) or
    ``stopped``.
    """
    options = options or StackOptions()
    rows: list[dict[str, Any]] = []
    services: list[tuple[str, Any, str]] = [
        (kafka_svc.SERVICE, kafka_svc, f"127.0.0.1:{options.kafka_port}"),
        (postgres_svc.SERVICE, postgres_svc, f"127.0.0.1:{options.pg_port}"),
    ]
    registry_state = registry_svc.status()
    # the registry row shows when asked for, or when this home has started one
    if options.registry or registry_state["state"] != "stopped" or registry_state.get("url"):
        services.append((registry_svc.SERVICE, registry_svc, options.registry_settings().address))
    for service, module, default_address in services:
        st = registry_state if module is registry_svc else module.status()
        address = st.get("address") or default_address
        state = st["state"]
        host, _, port = str(address).rpartition(":")
        if state != "running" and kafka_svc.port_open(host, int(port)):
            state = "external"
        detail = ""
        if state == "running":
            version = st.get("version", "")
            if service == kafka_svc.SERVICE:
                detail = f"Apache Kafka {version} KRaft, cluster {st.get('cluster_id', '?')}"
            elif service == postgres_svc.SERVICE:
                detail = f"PostgreSQL {version}, {st.get('dsn', '')}"
            else:
                detail = f"Apicurio Registry {version}, {st.get('url', '')}"
        elif state == "external":
            detail = "not started from this home"
        row = {
            "service": service,
            "address": address,
            "pid": st.get("pid"),
            "state": state,
            "detail": detail,
            "log": st.get("log", str(paths.log_file(service))),
        }
        if service == registry_svc.SERVICE:
            row["url"] = f"http://{address}{registry_svc.CCOMPAT_PATH}"
        rows.append(row)
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    """Render :func:`status` rows as an aligned text table."""
    headers = ["SERVICE", "ADDRESS", "PID", "STATE", "DETAIL"]
    table = [headers] + [
        [r["service"], r["address"], str(r["pid"] or "-"), r["state"], r["detail"]] for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(headers))]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in table
    )
