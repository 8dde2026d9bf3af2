"""The dashboard: a web page for the cluster at ``/ui`` on every worker, and ``kconnect ui
--url`` in front of any Kafka Connect cluster.

The page (``static/``: plain ES modules, a stylesheet and the vendored uPlot charting library;
no build step, nothing from the internet) talks to Kafka Connect's REST API on its own origin
and to ``/ui/api`` for what that API lacks (:mod:`.routes`). Server side:

- :mod:`.dashboard` -- the two modes (on a worker, in front of a URL) and what each has;
- :mod:`.cluster_client` -- REST calls to the cluster with the caller's credentials;
- :mod:`.cluster_view` -- workers, connectors and rebalances gathered from every worker;
- :mod:`.worker_info` -- what a kconnect worker says about itself;
- :mod:`.metrics_history` -- 15 minutes of a worker's task metrics for the charts;
- :mod:`.config_masking` -- secrets hidden in configs and put back on save;
- :mod:`.dlq_records` -- dead letter queue records with their error headers decoded;
- :mod:`.proxy_app` -- the app of ``kconnect ui --url``.

Layering: imported only by :mod:`kconnect.rest` (which mounts the routes on every listener app)
and :mod:`kconnect.cli`; imports the runtime (herder, metrics, secret settings), Kafka through
:mod:`kconnect.kafka` and the plugin API, never the REST layer.
"""
