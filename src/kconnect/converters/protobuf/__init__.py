"""Confluent's Protobuf converter (``io.confluent.connect.protobuf.ProtobufConverter``) and its parts.

* :mod:`.proto_parser` -- ``.proto`` text (or a base64 descriptor) from the registry ->
  ``FileDescriptorProto``;
* :mod:`.proto_render` -- ``FileDescriptorProto`` -> ``.proto`` text, and the well-known files;
* :mod:`.protobuf_data` -- Confluent's ProtobufData rules: Connect schemas <-> Protobuf schemas;
* :mod:`.protobuf_codec` -- Connect values <-> messages, compiled per (schema, message type);
* :mod:`.registry` -- what the converter asks of the schema registry;
* :mod:`.protobuf_converter` -- the converter plugin: wire format, caching, error mapping.
"""
