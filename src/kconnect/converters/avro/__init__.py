"""Confluent's Avro converter (``io.confluent.connect.avro.AvroConverter``) and its parts.

* :mod:`.datum` -- the Python form of an Avro datum shared by the mapping and the codec;
* :mod:`.avro_data` -- Confluent's AvroData rules: Connect schemas and values <-> Avro;
* :mod:`.avro_codec` -- Avro's binary encoding, compiled once per Avro schema (pure Python);
* :mod:`.avro_converter` -- the converter plugin: registry look-ups, wire format, caching.
"""
