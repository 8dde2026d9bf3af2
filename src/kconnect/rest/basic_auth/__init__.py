"""The basic-auth REST extension, Kafka Connect's ``BasicAuthSecurityRestExtension``, built on
the REST extension API (:mod:`kconnect.api.rest_extension`) alone: it imports nothing of the
web framework or the runtime (an import-linter contract holds this).

``jaas`` reads JAAS files and finds the one ``KAFKA_OPTS`` names, ``credentials`` reads the
``PropertyFileLoginModule`` files (roles included), ``extension`` is the extension and its
filter.
"""
