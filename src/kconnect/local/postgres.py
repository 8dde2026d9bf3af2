"""One PostgreSQL cluster for development and tests: database ``kcdb``, user ``kcuser``.

Lifecycle: :func:`start` runs ``initdb`` once (superuser ``kcuser`` with password ``kcpw``,
``scram-sha-256`` for TCP, ``trust`` on the private unix socket), writes ``kconnect.conf``
(listen address, port, socket dir) on every start, runs ``pg_ctl start -w`` (the postmaster is
a daemon that outlives the caller), creates database ``kcdb`` when missing and records the
postmaster pid. :func:`stop` runs ``pg_ctl stop -m fast`` and falls back to signals.

PostgreSQL refuses to run as root: as root, every server command runs as an unprivileged user
(``postgres`` when it exists, else a ``kconnect`` system user created with ``useradd``) who owns
the data directory.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kconnect.local import LocalStackError, MissingToolError, paths

SERVICE = "postgres"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 5432
DATABASE = "kcdb"
USER = "kcuser"
PASSWORD = "kcpw"
POSTGRES_HINT = "PostgreSQL server is needed: apt-get install postgresql-15"
SERVER_TOOLS = ("initdb", "pg_ctl", "postgres", "psql", "pg_isready")

Progress = Callable[[str], None]


@dataclass(frozen=True)
class PostgresSettings:
    """Where the local cluster listens and where it keeps its files."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT

    @property
    def directory(self) -> Path:
        """The service directory, ``<home>/postgres``."""
        return paths.service_dir(SERVICE)

    @property
    def data_dir(self) -> Path:
        """The cluster's data directory (``PGDATA``)."""
        return self.directory / "data"

    @property
    def dsn(self) -> str:
        """libpq URL of the test database."""
        return dsn(self.host, self.port)


def dsn(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> str:
    """``postgresql://kcuser:kcpw@host:port/kcdb``."""
    return f"postgresql://{USER}:{PASSWORD}@{host}:{port}/{DATABASE}"


def _version_key(p: Path) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", p.name)) or (0,)


def find_bin_dir(extra_candidates: Sequence[Path] = ()) -> Path:
    """Directory with ``initdb``/``pg_ctl``/``postgres``.

    Looks at ``$KCONNECT_PG_BIN``, then the newest ``/usr/lib/postgresql/<v>/bin`` (Debian),
    then ``initdb`` on ``PATH`` (following symlinks). Raises :class:`MissingToolError`.
    """
    candidates: list[Path] = list(extra_candidates)
    if os.environ.get("KCONNECT_PG_BIN"):
        candidates.append(Path(os.environ["KCONNECT_PG_BIN"]))
    debian = Path("/usr/lib/postgresql")
    if debian.is_dir():
        versions = sorted((p for p in debian.iterdir() if p.is_dir()), key=_version_key)
        candidates += [v / "bin" for v in reversed(versions)]
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(os.path.realpath(initdb)).parent)
    for c in candidates:
        if all((c / tool).is_file() for tool in SERVER_TOOLS[:3]):
            return c
    raise MissingToolError(POSTGRES_HINT)


@dataclass(frozen=True)
class RunAs:
    """The OS account that runs the server (``None`` fields: the current user)."""

    name: str
    uid: int | None = None
    gid: int | None = None

    def run(
        self, cmd: Sequence[str], *, timeout_s: float = 120.0, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``cmd`` as this account, capturing output (never raises on a non-zero exit)."""
        base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "LANG": "C"}
        if self.uid is not None:
            base["HOME"] = "/tmp"
            base["USER"] = self.name
        else:
            base["HOME"] = os.environ.get("HOME", "/tmp")
        base.update(env or {})
        kwargs: dict[str, Any] = {}
        if self.uid is not None:
            kwargs = {"user": self.uid, "group": self.gid, "extra_groups": []}
        return subprocess.run(
            list(cmd),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
            env=base,
            cwd="/",
            stdin=subprocess.DEVNULL,
            **kwargs,
        )

    def chown(self, path: Path) -> None:
        """Give ``path`` to this account (no-op when running as ourselves)."""
        if self.uid is not None and self.gid is not None:
            os.chown(path, self.uid, self.gid)


def server_account(progress: Progress | None = None) -> RunAs:
    """Who runs PostgreSQL: ourselves unless root; as root ``postgres`` or a new ``kconnect``."""
    if os.geteuid() != 0:
        return RunAs(pwd.getpwuid(os.geteuid()).pw_name)
    for name in ("postgres", "kconnect"):
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            continue
        if pw.pw_uid != 0:
            return RunAs(name, pw.pw_uid, pw.pw_gid)
    if progress is not None:
        progress("Creating system user 'kconnect' to run PostgreSQL (it refuses to run as root)")
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    done = subprocess.run(
        [useradd, "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin",
         "kconnect"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode not in (0, 9):  # 9: already exists (a concurrent caller made it)
        raise LocalStackError(f"useradd kconnect failed: {done.stderr.strip()}")
    pw = pwd.getpwnam("kconnect")
    return RunAs("kconnect", pw.pw_uid, pw.pw_gid)


def kconnect_conf(settings: PostgresSettings, socket_dir: Path) -> str:
    """Settings rewritten on every start (address, port, socket dir) plus dev-speed settings."""
    return (
        "# Generated by `kconnect local start` on every start.\n"
        f"listen_addresses = '{settings.host}'\n"
        f"port = {settings.port}\n"
        f"unix_socket_directories = '{socket_dir}'\n"
        "max_connections = 200\n"
        "# Logical decoding (pgoutput) for change-data-capture sources such as Debezium's.\n"
        "wal_level = logical\n"
        "max_replication_slots = 20\n"
        "max_wal_senders = 20\n"
        "# A throw-away dev/test cluster: trade crash safety for speed. Never use for real data.\n"
        "fsync = off\n"
        "synchronous_commit = off\n"
        "full_page_writes = off\n"
        "log_min_messages = warning\n"
        "log_connections = off\n"
    )


def socket_dir(settings: PostgresSettings) -> Path:
    """The unix socket directory: ``<home>/postgres/run`` unless that path is too long."""
    preferred = settings.directory / "run"
    if len(str(preferred / f".s.PGSQL.{settings.port}.lock")) < 100:
        return preferred
    return Path(tempfile.gettempdir()) / f"kconnect-pg-{os.getuid()}-{settings.port}"


def _server_version(bin_dir: Path) -> str:
    out = subprocess.run(
        [str(bin_dir / "pg_ctl"), "--version"], capture_output=True, text=True, check=False
    ).stdout
    m = re.search(r"(\d+(?:\.\d+)*)", out)
    return m.group(1) if m else "unknown"


def _postmaster_pid(data_dir: Path) -> int | None:
    return paths.read_pid(data_dir / "postmaster.pid")


def status() -> dict[str, Any]:
    """The cluster's state: ``{"state": "running"|"stopped"|"stale", "pid", "address", ...}``."""
    state = paths.read_state(paths.state_file(SERVICE)) or {}
    pid = paths.running_pid(paths.pid_file(SERVICE), "postgres")
    if pid is not None:
        return {**state, "state": "running", "pid": pid}
    stale = paths.read_pid(paths.pid_file(SERVICE)) is not None
    return {**state, "state": "stale" if stale else "stopped", "pid": None}


def _port_open(host: str, port: int) -> bool:
    import socket

    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def _check_external(bin_dir: Path, account: RunAs, settings: PostgresSettings) -> bool:
    """True when a server on the port accepts ``kcuser``/``kcpw`` on database ``kcdb``."""
    done = account.run(
        [str(bin_dir / "psql"), settings.dsn, "-tAc", "SELECT 1"],
        timeout_s=20,
        env={"PGCONNECT_TIMEOUT": "5"},
    )
    return done.returncode == 0 and done.stdout.strip() == "1"


def _ensure_dirs(settings: PostgresSettings, account: RunAs, sock: Path) -> None:
    d = settings.directory
    d.mkdir(parents=True, exist_ok=True)
    account.chown(d)
    os.chmod(d, 0o755)
    sock.mkdir(parents=True, exist_ok=True)
    account.chown(sock)
    os.chmod(sock, 0o755)
    probe = account.run(["test", "-w", str(d)])
    if probe.returncode != 0:
        raise LocalStackError(
            f"user {account.name} cannot write {d} (a parent directory is not traversable); "
            "set KCONNECT_HOME to a directory under /srv, /tmp or /work"
        )


def _initdb(bin_dir: Path, settings: PostgresSettings, account: RunAs, say: Progress) -> None:
    say(f"Initialising PostgreSQL data directory {settings.data_dir}")
    pwfile = settings.directory / ".pwfile"
    pwfile.write_text(PASSWORD + "\n", encoding="ascii")
    account.chown(pwfile)
    os.chmod(pwfile, 0o600)
    try:
        done = account.run(
            [
                str(bin_dir / "initdb"),
                "-D", str(settings.data_dir),
                "-U", USER,
                f"--pwfile={pwfile}",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--encoding=UTF8",
                "--no-locale",
                "--no-sync",
            ],
            timeout_s=300,
        )  # fmt: skip
    finally:
        pwfile.unlink(missing_ok=True)
    if done.returncode != 0:
        raise LocalStackError("initdb failed:\n" + (done.stdout + done.stderr).strip()[-3000:])
    conf = settings.data_dir / "postgresql.conf"
    with open(conf, "a", encoding="utf-8") as f:
        f.write(
            "\n# Settings written by `kconnect local start`:\ninclude_if_exists = 'kconnect.conf'\n"
        )


def start(
    settings: PostgresSettings,
    *,
    progress: Progress | None = None,
    timeout_s: float = 120.0,
) -> dict[str, Any]:
    """Start the cluster unless it already runs; return its state (see :func:`status`).

    Idempotent like :func:`kconnect.local.kafka.start`; a server on the port that accepts the
    test credentials but was not started from this home is reported as ``"external"``.
    """
    say = progress or (lambda _msg: None)
    current = status()
    if current["state"] == "running":
        say(f"PostgreSQL already running on {current.get('address', settings.host)}")
        return current
    bin_dir = find_bin_dir()
    account = server_account(progress)
    address = f"{settings.host}:{settings.port}"
    if _port_open(settings.host, settings.port):
        if _check_external(bin_dir, account, settings):
            say(f"PostgreSQL already answering on {address} (not started from {paths.home()})")
            return {"state": "external", "pid": None, "address": address, "dsn": settings.dsn}
        raise LocalStackError(
            f"port {address} is taken by something that does not accept {settings.dsn}"
        )

    version = _server_version(bin_dir)
    sock = socket_dir(settings)
    _ensure_dirs(settings, account, sock)
    if not (settings.data_dir / "PG_VERSION").is_file():
        _initdb(bin_dir, settings, account, say)
    conf = settings.data_dir / "kconnect.conf"
    conf.write_text(kconnect_conf(settings, sock), encoding="utf-8")
    account.chown(conf)

    say(f"Starting PostgreSQL {version} on {address} ...")
    t0 = time.monotonic()
    log = paths.log_file(SERVICE)
    if not log.exists():
        log.touch()
    account.chown(log)
    done = account.run(
        [
            str(bin_dir / "pg_ctl"),
            "-D", str(settings.data_dir),
            "-l", str(log),
            "-w", "-t", str(int(timeout_s)),
            "start",
        ],
        timeout_s=timeout_s + 30,
    )  # fmt: skip
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
        raise LocalStackError(
            f"pg_ctl start failed: {(done.stdout + done.stderr).strip()}\nlog {log}:\n{tail}"
        )
    pid = _postmaster_pid(settings.data_dir)
    if pid is None:
        raise LocalStackError(
            f"PostgreSQL started but {settings.data_dir}/postmaster.pid is missing"
        )
    paths.write_pid(paths.pid_file(SERVICE), pid)
    state: dict[str, Any] = {
        "service": SERVICE,
        "address": address,
        "dsn": settings.dsn,
        "version": version,
        "bin_dir": str(bin_dir),
        "run_as": account.name,
        "socket_dir": str(sock),
        "log": str(log),
        "started_at": time.time(),
    }
    paths.write_state(paths.state_file(SERVICE), state)
    _ensure_database(bin_dir, account, settings, sock)
    say(f"PostgreSQL up on {address} in {time.monotonic() - t0:.1f} s (pid {pid})")
    return {**state, "state": "running", "pid": pid}


def _ensure_database(bin_dir: Path, account: RunAs, settings: PostgresSettings, sock: Path) -> None:
    psql = [str(bin_dir / "psql"), "-h", str(sock), "-p", str(settings.port), "-U", USER]
    probe = account.run(
        [*psql, "-d", "postgres", "-tAc", f"SELECT 1 FROM pg_database WHERE datname='{DATABASE}'"]
    )
    if probe.returncode != 0:
        raise LocalStackError(f"cannot query PostgreSQL: {probe.stderr.strip()}")
    if probe.stdout.strip() == "1":
        return
    created = account.run([*psql, "-d", "postgres", "-c", f"CREATE DATABASE {DATABASE}"])
    if created.returncode != 0 and "already exists" not in created.stderr:
        raise LocalStackError(f"CREATE DATABASE {DATABASE} failed: {created.stderr.strip()}")


def stop(*, progress: Progress | None = None, grace_s: float = 30.0) -> bool:
    """Stop the cluster this home started (by pid file). True when something was stopped."""
    say = progress or (lambda _msg: None)
    pid_path = paths.pid_file(SERVICE)
    pid = paths.running_pid(pid_path, "postgres")
    if pid is None:
        pid_path.unlink(missing_ok=True)
        return False
    say(f"Stopping PostgreSQL (pid {pid}) ...")
    t0 = time.monotonic()
    settings = PostgresSettings()
    stopped = False
    try:
        bin_dir = find_bin_dir()
        account = server_account()
        done = account.run(
            [str(bin_dir / "pg_ctl"), "-D", str(settings.data_dir), "-m", "fast", "-w",
             "-t", str(int(grace_s)), "stop"],
            timeout_s=grace_s + 30,
        )  # fmt: skip
        stopped = done.returncode == 0
    except (MissingToolError, subprocess.TimeoutExpired):
        stopped = False
    if not stopped and paths.pid_alive(pid):
        for sig, wait_s in ((signal.SIGINT, grace_s), (signal.SIGKILL, 5.0)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait_s
            while paths.pid_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            if not paths.pid_alive(pid):
                break
    pid_path.unlink(missing_ok=True)
    say(f"PostgreSQL stopped in {time.monotonic() - t0:.1f} s")
    return True
