"""Security material shared by the REST server and the Kafka clients: Java key and trust stores
(JKS, PKCS12, PEM) read into PEM text (:mod:`~kconnect.security.stores`, with the JKS format in
:mod:`~kconnect.security.jks`), and Java cipher-suite names turned into OpenSSL's
(:mod:`~kconnect.security.ciphers`).

Standard library and the ``cryptography`` package only; imports nothing else from kconnect (an
import-linter contract), so every client library -- librdkafka, kafka-python, the REST server's
``ssl`` contexts -- gets the same material from the same settings.
"""
