"""Entry-point groups through which plugins register (part of the plugin API contract).

A pip-installable plugin declares, in its ``pyproject.toml``::

    [project.entry-points."kconnect.sink_connector"]
    "com.example.MySinkConnector" = "my_package.sink:MySinkConnector"

The entry-point *name* is the plugin's class name as shown by ``GET /connector-plugins``
(built-ins use the Apache/Confluent Java class names, so existing configs resolve verbatim);
aliases (simple name, name without the type suffix, Python dotted path) are derived from it.
"""

from __future__ import annotations

__all__ = [
    "CONFIG_PROVIDER_GROUP",
    "CONVERTER_GROUP",
    "HEADER_CONVERTER_GROUP",
    "PLUGIN_GROUPS",
    "PLUGIN_SOURCE_GROUP",
    "PREDICATE_GROUP",
    "REST_EXTENSION_GROUP",
    "SINK_CONNECTOR_GROUP",
    "SOURCE_CONNECTOR_GROUP",
    "TRANSFORMATION_GROUP",
]

SOURCE_CONNECTOR_GROUP = "kconnect.source_connector"
SINK_CONNECTOR_GROUP = "kconnect.sink_connector"
CONVERTER_GROUP = "kconnect.converter"
HEADER_CONVERTER_GROUP = "kconnect.header_converter"
TRANSFORMATION_GROUP = "kconnect.transformation"
PREDICATE_GROUP = "kconnect.predicate"
CONFIG_PROVIDER_GROUP = "kconnect.config_provider"
REST_EXTENSION_GROUP = "kconnect.rest_extension"
#: Sources of plugins that are not Python entry points (kconnect's own: ``java``, the Java
#: plugins of ``plugin.path``). An entry point of this group loads a callable taking the
#: worker's ``plugin.path`` (a list of directories) and returning ``(type, class name,
#: loader, location, version)`` tuples: ``type`` a key of :data:`PLUGIN_GROUPS`, ``loader`` a
#: no-argument callable returning the plugin class.
PLUGIN_SOURCE_GROUP = "kconnect.plugin_source"

#: plugin type name (as in REST ``connector-plugins``) -> entry-point group
PLUGIN_GROUPS: dict[str, str] = {
    "source": SOURCE_CONNECTOR_GROUP,
    "sink": SINK_CONNECTOR_GROUP,
    "converter": CONVERTER_GROUP,
    "header_converter": HEADER_CONVERTER_GROUP,
    "transformation": TRANSFORMATION_GROUP,
    "predicate": PREDICATE_GROUP,
    "config_provider": CONFIG_PROVIDER_GROUP,
    "rest_extension": REST_EXTENSION_GROUP,
}
