"""`kconnect standalone` refuses a bad worker config with one line naming the key and the reason."""

import subprocess
import sys
from pathlib import Path

import pytest


def _run(tmp_path: Path, extra: str) -> subprocess.CompletedProcess[str]:
    props = tmp_path / "worker.properties"
    props.write_text(
        "bootstrap.servers=127.0.0.1:9\n"
        "key.converter=org.apache.kafka.connect.json.JsonConverter\n"
        f"offset.storage.file.filename={tmp_path / 'offsets'}\n"
        "listeners=http://127.0.0.1:0\n" + extra
    )
    return subprocess.run(
        [sys.executable, "-m", "kconnect.cli.main", "standalone", str(props)],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            "value.converter=NoSuchConverter\n",
            "Invalid value NoSuchConverter for configuration value.converter",
        ),
        (
            "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
            "offset.flush.interval.ms=abc\n",
            "Invalid value abc for configuration offset.flush.interval.ms: Not a number of type LONG",
        ),
        ("", 'Missing required configuration "value.converter"'),
    ],
)
def test_bad_worker_config_is_one_clear_line(tmp_path: Path, extra: str, expected: str) -> None:
    done = _run(tmp_path, extra)
    assert done.returncode != 0
    assert expected in done.stderr
    assert "Traceback" not in done.stderr
