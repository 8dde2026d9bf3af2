"""The worker command's process: SIGTERM stops it even when another thread takes the signal."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

# A worker whose herder and server do nothing, and whose main thread blocks SIGTERM: the
# kernel must then hand the signal to the other thread, as it may to a Kafka client's thread
# in a real worker. CPython runs the Python handler in the main thread only.
WORKER = textwrap.dedent(
    """
    import argparse, signal, sys, threading, time
    from kconnect.cli.worker_startup import run_worker

    class Part:
        def stop(self):
            pass

    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    args = argparse.Namespace(worker_properties=sys.argv[1], log_level="INFO")
    sys.exit(run_worker(
        "distributed", args, lambda props: (Part(), Part()),
        on_started=lambda herder: print("started", flush=True),
    ))
    """
)


def test_sigterm_taken_by_another_thread_still_stops_the_worker(tmp_path: Path) -> None:
    props = tmp_path / "worker.properties"
    props.write_text("group.id=g\n")
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(props)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "started\n"
        proc.send_signal(signal.SIGTERM)
        status = proc.wait(timeout=20)
    finally:
        proc.kill()
        _, stderr = proc.communicate()
    assert status == 0, stderr
    assert "Received SIGTERM, shutting down" in stderr
    assert "Kafka Connect distributed worker stopped" in stderr
