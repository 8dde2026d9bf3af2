"""Shared helpers of the built-in SMTs (Kafka's ``transforms.util`` and ``transforms.field``).

Private to :mod:`kconnect.transforms`; third-party transformations should not import it.
"""
