"""Conformance suites: the shared contracts of kconnect's interfaces, as pytest test classes
that an implementation subclasses to prove it keeps them.

- :mod:`kconnect.testing.conformance.stores` -- config, status and offset backing stores.
- :mod:`kconnect.testing.conformance.connectors` -- source and sink connector plugins.

The suites import without pytest; pytest collects and runs them. For pytest's detailed
assertion messages inside the suites, register them before they are imported, in a
``conftest.py``: ``pytest.register_assert_rewrite("kconnect.testing.conformance")``
(importing :mod:`kconnect.testing.fixtures` does it).
"""
