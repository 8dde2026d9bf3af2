"""The runtime's shared vocabulary, imported by every other room and importing none of them.

``ids`` (ConnectorTaskId), ``states`` (State, TargetState, statuses, StatusListener),
``restart`` (KIP-745 restart requests and plans), ``clock`` (the injectable clock),
``log_context`` (``[connector|task-n]`` log prefixes), ``request_errors`` (how the engine refuses
a request, with Kafka Connect's status for each refusal), ``failures`` (failures that cannot
heal, failures from another process), ``session_key``, ``timeouts`` (Kafka Connect's fixed
timeouts), ``loggers`` (runtime log levels, ``/admin/loggers``) and ``gc_tuning`` (the garbage
collector settings of a worker process). Imports only :mod:`kconnect.api` and the standard
library.
"""
