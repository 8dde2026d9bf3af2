"""Version reported by the MirrorMaker 2 plugins (kconnect's own, as for every built-in)."""

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("kconnect")
except PackageNotFoundError:  # running from a source tree without metadata
    VERSION = "undefined"
