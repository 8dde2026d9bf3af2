"""The Connect worker group protocol (``connect`` protocol type): :mod:`.connect_protocol` encodes
member metadata and assignments byte for byte as Kafka's ``ConnectProtocol`` /
``IncrementalCooperativeConnectProtocol``; :mod:`.worker_coordinator` joins and keeps the group
with kafka-python. The runtime's side of the group (assignors, rebalances) is in
:mod:`kconnect.runtime.herder`."""
