"""MirrorMaker 2 in dedicated mode (``kconnect mirror-maker``, Java's ``connect-mirror-maker.sh``):
every replication flow into the node's clusters runs as its own distributed Connect worker,
all in one process.

* ``node`` -- :class:`MirrorMakerNode`: the flows of one node, their herders, the leader's
  duty of writing the connector configs from the file, the node's REST server; its
  docstring states the start/stop contract and the threads it owns;
* ``flow_config`` -- :class:`FlowConfig`: a flow's worker config, advertising the flow's REST
  namespace ``/<source>/<target>/`` and Java's worker id;
* ``flow_dispatcher`` -- :class:`FlowDispatcher`: the ASGI app routing ``/<source>/<target>/``
  to that flow's Kafka Connect REST app;
* ``startup_checks`` -- what stops a start: a replication cycle, a cluster its clients
  cannot use.

The file itself is the Mirror connectors' ``kconnect.connectors.mirror.maker_config``. This
package sits between the command line (which parses arguments, reports errors and waits for
a signal) and the REST layer: it assembles the runtime, the REST app and that plugin module,
which neither the runtime (it depends on no plugin) nor the plugin (it imports only the
plugin API) may do.
"""

from __future__ import annotations

from kconnect.mirror_maker.flow_config import FlowConfig, flow_prefix
from kconnect.mirror_maker.flow_dispatcher import FlowDispatcher
from kconnect.mirror_maker.node import CONFIGURE_INTERVAL_S, MirrorMakerNode

__all__ = ["CONFIGURE_INTERVAL_S", "FlowConfig", "FlowDispatcher", "MirrorMakerNode", "flow_prefix"]
