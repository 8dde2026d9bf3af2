"""Confluent's JSON Schema converter (``io.confluent.connect.json.JsonSchemaConverter``).

* :mod:`.json_schema_data` -- Confluent's JsonSchemaData rules: Connect schemas and values <->
  JSON Schema documents and JSON values; :mod:`.json_schema_documents` reads documents
  (Connect's and others') into Connect schemas; :mod:`.json_schema_data_config` declares the
  settings and the ``connect.*`` names;
* :mod:`.registry_io` -- what the converter asks the schema registry (the serializer's order,
  the reader's look-ups) and how registry failures become Connect exceptions;
* :mod:`.json_schema_converter` -- the converter plugin: wire format, caching, validation.
"""
