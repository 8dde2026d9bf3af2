# Shared by scripts/test, scripts/demo and .ci/run (source it; it does not run anything itself).
# shellcheck shell=bash

KC_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"

kc_say() { printf '==> %s\n' "$*"; }

# kc_need_python: fail unless $PY is Python 3.11+.
kc_need_python() {
  if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "Python 3.11+ is needed as '$PY' (set PYTHON=...): apt-get install python3" >&2
    exit 3
  fi
}

# kc_install: pip install -e '.[dev]' unless kconnect and the dev tools are importable already,
# then the native hot path (kc_install_native).
kc_install() {
  kc_need_python
  if [[ "${KC_FORCE_INSTALL:-0}" != 1 ]] &&
     "$PY" -c 'import kconnect.cli.main, pytest, psycopg, confluent_kafka, selenium, xdist' 2>/dev/null; then
    kc_install_native
    return 0
  fi
  if ! "$PY" -m pip --version >/dev/null 2>&1; then
    if [[ $EUID -eq 0 ]] && command -v apt-get >/dev/null; then
      kc_say "Installing pip (apt-get install python3-pip)"
      apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-pip
    else
      echo "pip is needed: apt-get install python3-pip" >&2
      exit 3
    fi
  fi
  kc_say "Installing kconnect with its dev dependencies (pip install -e '.[dev]')"
  # A Debian system Python is "externally managed"; this is a dev/CI box, so install anyway.
  PIP_BREAK_SYSTEM_PACKAGES=1 "$PY" -m pip install -q -e "$KC_ROOT[dev]"
  kc_install_native
}

# kc_install_native: build and install the optional compiled hot path (native/, Rust + PyO3,
# built by maturin, which pip fetches) when cargo is present; without a compiler kconnect runs
# on its pure-Python path. Skipped when the installed kconnect_native is this checkout's.
kc_install_native() {
  if ! command -v cargo >/dev/null 2>&1; then
    echo "note: cargo not found, so kconnect runs on its pure-Python hot path (install Rust to build native/)"
    return 0
  fi
  local stamp
  stamp="$(cat "$KC_ROOT"/native/Cargo.toml "$KC_ROOT"/native/Cargo.lock "$KC_ROOT"/native/pyproject.toml $(find "$KC_ROOT"/native/src -name '*.rs' | sort) | sha256sum | cut -c1-16)"
  if [[ "${KC_FORCE_INSTALL:-0}" != 1 ]] &&
     [[ "$("$PY" -c 'import kconnect_native as n; print(getattr(n, "__build__", ""))' 2>/dev/null)" == "$stamp" ]]; then
    return 0
  fi
  kc_say "Building the native hot path (pip install ./native: cargo build --release, 1-2 min)"
  local started=$SECONDS
  # cargo's target directory is kept in KCONNECT_HOME (per Python): a rebuild, in another clone
  # too, compiles native/'s own crate and not its dependencies again
  local target="${KCONNECT_HOME:-$HOME/.kconnect}/cargo-target/$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  if ! CARGO_TARGET_DIR="$target" KCONNECT_NATIVE_BUILD="$stamp" PIP_BREAK_SYSTEM_PACKAGES=1 \
       "$PY" -m pip install -q "$KC_ROOT/native"; then
    # CI must build it; elsewhere (scripts/demo on a new machine) kconnect still runs.
    if [[ "${CI:-}" == true ]]; then
      echo "building native/ failed" >&2
      return 1
    fi
    echo "note: building native/ failed (see above), so kconnect runs on its pure-Python hot path"
    return 0
  fi
  kc_say "Native hot path built in $((SECONDS - started)) s: $("$PY" -c 'from kconnect import _hot_path as h; print(h.describe())')"
}

# kc_have_postgres: true when PostgreSQL server binaries (initdb) are installed.
kc_have_postgres() {
  command -v initdb >/dev/null 2>&1 || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}

# kc_install_postgres: apt-get install postgresql when initdb is absent (root + apt only).
# Debian would create and start its own cluster on 5432; kconnect runs its own, so we tell
# postgresql-common not to create one and stop any that was started.
kc_install_postgres() {
  kc_have_postgres && return 0
  if [[ $EUID -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "PostgreSQL server is needed: apt-get install postgresql-15" >&2
    exit 3
  fi
  kc_say "Installing PostgreSQL (apt-get install postgresql)"
  mkdir -p /etc/postgresql-common
  if [[ ! -e /etc/postgresql-common/createcluster.conf ]]; then
    echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.conf
  fi
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql
  if command -v pg_lsclusters >/dev/null; then
    pg_lsclusters -h 2>/dev/null | while read -r ver name _; do
      pg_ctlcluster "$ver" "$name" stop 2>/dev/null || true
    done
  fi
}

# kc_install_browser: Debian's chromium and chromedriver (chromium-driver) for the dashboard's
# browser tests, when either is absent (root + apt only; elsewhere the tests skip and say so).
# Selenium drives this browser; nothing downloads a browser build of its own.
kc_install_browser() {
  if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    return 0
  fi
  if [[ $EUID -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "note: the dashboard's browser tests need chromium and chromedriver:" \
      "apt-get install chromium chromium-driver" >&2
    return 0
  fi
  kc_say "Installing Chromium for the dashboard's browser tests (apt-get install chromium chromium-driver)"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    chromium chromium-driver fonts-dejavu-core
}

# kc: run the kconnect CLI of this checkout.
kc() { "$PY" -m kconnect.cli.main "$@"; }

# kc_stopped_services: the services `kconnect local status` does not report as up.
kc_stopped_services() {
  "$PY" - <<'PY'
from kconnect.local.stack import StackOptions, status
rows = status(StackOptions(registry=True))
print(" ".join(r["service"] for r in rows if r["state"] not in ("running", "external")))
PY
}
