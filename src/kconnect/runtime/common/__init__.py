"""The runtime's shared vocabulary, imported by every other room and importing none of them.

``ids`` (ConnectorTaskId), ``states`` (State, TargetState, statuses, StatusListener),
``restart`` (KIP-745 restart requests and plans), ``clock`` (the injectable clock),
``log_context`` (``[connector|task-n]`` log prefixes) and ``rest_errors`` (exceptions that carry
an HTTP status). Imports only :mod:`kconnect.api` and the standard library.
"""
