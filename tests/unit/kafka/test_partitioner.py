import pytest

from kconnect.kafka.clients.partitioner import murmur2, partition_for_key, to_positive

# Kafka's UtilsTest.testMurmur2 vectors.
VECTORS = [
    (b"21", -973932308),
    (b"foobar", -790332482),
    (b"a-little-bit-long-string", -985981536),
    (b"a-little-bit-longer-string", -1486304829),
    (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
    (b"abc", 479470107),
]


@pytest.mark.parametrize(("data", "expected"), VECTORS)
def test_murmur2_matches_java(data: bytes, expected: int) -> None:
    assert murmur2(data) == expected


def test_to_positive_clears_sign_bit_not_abs() -> None:
    assert to_positive(-1) == 0x7FFFFFFF
    assert to_positive(-2147483648) == 0
    assert to_positive(5) == 5


def test_partition_for_key() -> None:
    assert partition_for_key(b"foobar", 7) == to_positive(-790332482) % 7
    assert 0 <= partition_for_key(b"", 3) < 3
