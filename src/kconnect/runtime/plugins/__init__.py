"""Plugins: finding them, naming them, choosing their versions.

``plugins`` (the :class:`~kconnect.runtime.plugins.plugins.Plugins` registry: entry-point
discovery, Java-name / simple-name / alias resolution, instantiation), ``descriptors`` (what a
plugin is: descriptor, kind, aliases, version, lookup errors), ``versions`` (Maven version
ranges for ``*.plugin.version``, KIP-891) and ``view`` (what ``GET /connector-plugins``
lists). Imports ``metrics`` and ``common`` below it and :mod:`kconnect.api`, nothing above.
"""
