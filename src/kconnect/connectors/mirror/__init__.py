"""Apache Kafka's MirrorMaker 2 connectors (``org.apache.kafka.connect.mirror``):
``MirrorSourceConnector`` replicates topics (data, partitions, configs, ACLs) and writes offset
syncs, ``MirrorCheckpointConnector`` translates consumer-group offsets into checkpoints (and
optionally commits them on the target), ``MirrorHeartbeatConnector`` writes heartbeats. Topic
names, record bytes and source offsets are Java's, so kconnect and Java MirrorMaker 2 can take
over from each other.

The connectors reach the source and target clusters through
:mod:`kconnect.api.kafka_clients`; :mod:`~kconnect.connectors.mirror.maker_config` turns a
``connect-mirror-maker.sh`` properties file into worker and connector configs.
"""
