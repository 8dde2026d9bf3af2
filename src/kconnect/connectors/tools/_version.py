"""Version reported by the test connectors (Kafka reports its own version for them)."""

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("kconnect")
except PackageNotFoundError:  # running from a source tree without metadata
    VERSION = "undefined"
