"""Version reported by the FileStream plugins."""

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("kconnect")
except PackageNotFoundError:  # running from a source tree without metadata
    VERSION = "undefined"
