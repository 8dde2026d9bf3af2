"""Confluent's Avro converter (``io.confluent.connect.avro.AvroConverter``) and its parts.

* :mod:`.datum` -- the Python form of an Avro datum shared by the mapping and the codec;
* :mod:`.avro_data` -- Confluent's AvroData rules: Connect schemas and values <-> Avro
  (:class:`~.avro_data.AvroData`, built from :mod:`.avro_from_connect`,
  :mod:`.avro_to_connect` and :mod:`.avro_data_rules`; settings in :mod:`.avro_data_config`);
* :mod:`.avro_schema_text` -- the Avro schema tree, parsed from and printed as Java's
  ``Schema.toString()`` text (what the registry stores);
* :mod:`.avro_codec` -- Avro's binary encoding, compiled once per Avro schema (pure Python);
* :mod:`.avro_converter` -- the converter plugin: registry look-ups, wire format, caching.
"""
