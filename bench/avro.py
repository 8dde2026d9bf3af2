"""Confluent's AvroConverter on every workload shape, kconnect beside the Java reference:
``bench/registry_converters.py --format avro`` (its options; ``--format`` may still be given).

    python bench/avro.py [--shapes narrow,customer,...] [--records N] [--repeat R]
                         [--registry-url URL]

See ``bench/registry_converters.py`` and bench/README.md for what is measured and what the Java
side is.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from registry_converters import main as _main


def main(argv: list[str] | None = None) -> int:
    return _main(argv, default_format="avro")


if __name__ == "__main__":
    sys.exit(main())
