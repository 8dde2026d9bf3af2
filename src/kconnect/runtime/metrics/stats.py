"""Stats with Apache Kafka's metric semantics (``org.apache.kafka.common.metrics.stats``).

Windowed stats keep ``metrics.num.samples`` samples of ``metrics.sample.window.ms`` each
(:class:`MetricConfig`). A sample is complete once its window has elapsed; recording into a
complete sample moves on to the next slot (re-using the oldest). Samples older than
``samples * window`` are reset when measured or recorded, so a stat forgets what happened
more than that long ago.

* :class:`Rate` -- sum of the window's values divided by the elapsed window in seconds, where
  the elapsed window is ``now - oldest sample start`` but at least ``samples - 1`` full windows
  (Kafka's rule, so a rate does not spike right after start) and at least 1 ms.
* :class:`Avg`, :class:`Max`, :class:`Min` -- over the retained samples; NaN with no events.
* :class:`WindowedSum`, :class:`WindowedCount` -- totals over the retained samples.
* :class:`CumulativeSum`, :class:`CumulativeCount` -- never forget.
* :class:`Value` -- the last recorded value (NaN before the first record).
* :class:`Frequencies` -- the share of recorded values falling in each bucket; Kafka's
  success/failure percentages (0.0 while nothing was recorded).

Stats are not thread-safe by themselves: the owning :class:`~kconnect.runtime.metrics.
registry.Sensor` serializes ``record`` and ``measure``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "Avg",
    "Batch",
    "CumulativeCount",
    "CumulativeSum",
    "Frequencies",
    "Max",
    "MeasurableStat",
    "MetricConfig",
    "Min",
    "Rate",
    "SampledStat",
    "Value",
    "WindowedCount",
    "WindowedSum",
]

NAN = math.nan


@dataclass(frozen=True)
class MetricConfig:
    """``metrics.num.samples`` (Kafka default 2) and ``metrics.sample.window.ms`` (30 s)."""

    samples: int = 2
    window_ms: int = 30_000


class Batch:
    """One batch of values recorded at once (``Sensor.record_many``): each aggregate a stat
    asks for is computed once for all the sensor's stats, and only when asked."""

    __slots__ = ("_high", "_low", "_total", "values")

    def __init__(self, values: Sequence[float]) -> None:
        self.values = values  # never empty
        self._total: float | None = None
        self._low: float | None = None
        self._high: float | None = None

    @property
    def count(self) -> int:
        return len(self.values)

    @property
    def last(self) -> float:
        return self.values[-1]

    @property
    def total(self) -> float:
        if self._total is None:
            self._total = float(sum(self.values))
        return self._total

    @property
    def low(self) -> float:
        if self._low is None:
            self._low = min(self.values)
        return self._low

    @property
    def high(self) -> float:
        if self._high is None:
            self._high = max(self.values)
        return self._high


class MeasurableStat(ABC):
    """A stat a sensor records into and the registry measures."""

    @abstractmethod
    def record(self, config: MetricConfig, value: float, now_ms: float) -> None: ...

    @abstractmethod
    def measure(self, config: MetricConfig, now_ms: float) -> float: ...

    def record_many(self, config: MetricConfig, batch: Batch, now_ms: float) -> None:
        """Record a batch's values at once, leaving the stat as ``record`` of each would."""
        for v in batch.values:
            self.record(config, v, now_ms)


class _Sample:
    __slots__ = ("event_count", "start_ms", "value")

    def __init__(self, initial: float, now_ms: float) -> None:
        self.value = initial
        self.event_count = 0
        self.start_ms = now_ms

    def reset(self, initial: float, now_ms: float) -> None:
        self.value = initial
        self.event_count = 0
        self.start_ms = now_ms

    def is_complete(self, now_ms: float, config: MetricConfig) -> bool:
        return now_ms - self.start_ms >= config.window_ms


class SampledStat(MeasurableStat):
    """A stat over a ring of time-window samples (Kafka's ``SampledStat``)."""

    initial: float = 0.0

    def __init__(self) -> None:
        self._samples: list[_Sample] = []
        self._current = 0

    def _current_sample(self, now_ms: float) -> _Sample:
        if not self._samples:
            self._samples.append(_Sample(self.initial, now_ms))
        return self._samples[self._current]

    def _advance(self, config: MetricConfig, now_ms: float) -> _Sample:
        self._current = (self._current + 1) % config.samples
        if self._current >= len(self._samples):
            sample = _Sample(self.initial, now_ms)
            self._samples.append(sample)
            return sample
        sample = self._samples[self._current]
        sample.reset(self.initial, now_ms)
        return sample

    def record(self, config: MetricConfig, value: float, now_ms: float) -> None:
        # _current_sample and _Sample.is_complete inlined: a sensor records on every batch
        # and every offset commit (once a second per task when idle, a thousand tasks)
        samples = self._samples
        sample = samples[self._current] if samples else self._current_sample(now_ms)
        if now_ms - sample.start_ms >= config.window_ms:
            sample = self._advance(config, now_ms)
        self._update(sample, value)
        sample.event_count += 1

    def record_many(self, config: MetricConfig, batch: Batch, now_ms: float) -> None:
        sample = self._current_sample(now_ms)
        if sample.is_complete(now_ms, config):
            sample = self._advance(config, now_ms)
        self._update_many(sample, batch)
        sample.event_count += batch.count

    def _update_many(self, sample: _Sample, batch: Batch) -> None:
        for v in batch.values:
            self._update(sample, v)

    def purge(self, config: MetricConfig, now_ms: float) -> None:
        expire = config.samples * config.window_ms
        for sample in self._samples:
            if now_ms - sample.start_ms >= expire:
                sample.reset(self.initial, now_ms)

    def oldest_start(self, now_ms: float) -> float:
        if not self._samples:
            self._samples.append(_Sample(self.initial, now_ms))
        return min(s.start_ms for s in self._samples)

    def measure(self, config: MetricConfig, now_ms: float) -> float:
        self.purge(config, now_ms)
        return self._combine(self._samples)

    @abstractmethod
    def _update(self, sample: _Sample, value: float) -> None: ...

    @abstractmethod
    def _combine(self, samples: list[_Sample]) -> float: ...


class WindowedSum(SampledStat):
    def _update(self, sample: _Sample, value: float) -> None:
        sample.value += value

    def _update_many(self, sample: _Sample, batch: Batch) -> None:
        sample.value += batch.total

    def _combine(self, samples: list[_Sample]) -> float:
        return float(sum(s.value for s in samples))


class WindowedCount(WindowedSum):
    def _update(self, sample: _Sample, value: float) -> None:
        sample.value += 1.0

    def _update_many(self, sample: _Sample, batch: Batch) -> None:
        sample.value += batch.count


class Avg(SampledStat):
    def _update(self, sample: _Sample, value: float) -> None:
        sample.value += value

    def _update_many(self, sample: _Sample, batch: Batch) -> None:
        sample.value += batch.total

    def _combine(self, samples: list[_Sample]) -> float:
        count = sum(s.event_count for s in samples)
        if count == 0:
            return NAN
        return float(sum(s.value for s in samples)) / count


class Max(SampledStat):
    initial = -math.inf

    def _update(self, sample: _Sample, value: float) -> None:
        sample.value = max(sample.value, value)

    def _update_many(self, sample: _Sample, batch: Batch) -> None:
        sample.value = max(sample.value, batch.high)

    def _combine(self, samples: list[_Sample]) -> float:
        live = [s.value for s in samples if s.event_count > 0]
        return max(live) if live else NAN


class Min(SampledStat):
    initial = math.inf

    def _update(self, sample: _Sample, value: float) -> None:
        sample.value = min(sample.value, value)

    def _update_many(self, sample: _Sample, batch: Batch) -> None:
        sample.value = min(sample.value, batch.low)

    def _combine(self, samples: list[_Sample]) -> float:
        live = [s.value for s in samples if s.event_count > 0]
        return min(live) if live else NAN


class Rate(MeasurableStat):
    """Per-second rate of the recorded values (Kafka's ``Rate`` over a ``WindowedSum``)."""

    def __init__(self, stat: SampledStat | None = None) -> None:
        self.stat = stat or WindowedSum()

    def record(self, config: MetricConfig, value: float, now_ms: float) -> None:
        self.stat.record(config, value, now_ms)

    def record_many(self, config: MetricConfig, batch: Batch, now_ms: float) -> None:
        self.stat.record_many(config, batch, now_ms)

    def window_size_ms(self, config: MetricConfig, now_ms: float) -> float:
        self.stat.purge(config, now_ms)
        elapsed = now_ms - self.stat.oldest_start(now_ms)
        full_windows = int(elapsed // config.window_ms)
        min_full_windows = config.samples - 1
        # Kafka pads a young window to samples-1 full windows so early rates are not inflated.
        if full_windows < min_full_windows:
            elapsed += (min_full_windows - full_windows) * config.window_ms
        return max(elapsed, 1.0)

    def measure(self, config: MetricConfig, now_ms: float) -> float:
        value = self.stat.measure(config, now_ms)
        return value / (self.window_size_ms(config, now_ms) / 1000.0)


class CumulativeSum(MeasurableStat):
    def __init__(self) -> None:
        self.total = 0.0

    def record(self, config: MetricConfig, value: float, now_ms: float) -> None:
        self.total += value

    def record_many(self, config: MetricConfig, batch: Batch, now_ms: float) -> None:
        self.total += batch.total

    def measure(self, config: MetricConfig, now_ms: float) -> float:
        return self.total


class CumulativeCount(CumulativeSum):
    def record(self, config: MetricConfig, value: float, now_ms: float) -> None:
        self.total += 1.0

    def record_many(self, config: MetricConfig, batch: Batch, now_ms: float) -> None:
        self.total += batch.count


class Value(MeasurableStat):
    """The last value recorded; ``initial`` before the first (Kafka's is 0)."""

    def __init__(self, initial: float = NAN) -> None:
        self.value = initial

    def record(self, config: MetricConfig, value: float, now_ms: float) -> None:
        self.value = value

    def record_many(self, config: MetricConfig, batch: Batch, now_ms: float) -> None:
        self.value = batch.last

    def measure(self, config: MetricConfig, now_ms: float) -> float:
        return self.value


class Frequencies(SampledStat):
    """Counts of recorded values per bucket over ``[low, high]``; :meth:`frequency` is the
    share of events in the bucket holding ``center`` (Kafka's ``Frequencies``). Use
    :meth:`for_booleans` for success (1.0) / failure (0.0) percentages."""

    def __init__(self, buckets: int, low: float, high: float) -> None:
        super().__init__()
        if buckets < 1 or high <= low:
            raise ValueError("Frequencies need at least one bucket and high > low")
        self.buckets = buckets
        self.low = low
        self.high = high
        self._counts: dict[int, list[int]] = {}

    @classmethod
    def for_booleans(cls) -> Frequencies:
        return cls(2, 0.0, 1.0)

    def _bucket(self, value: float) -> int:
        if value < self.low:
            return 0
        if value >= self.high:
            return self.buckets - 1
        width = (self.high - self.low) / self.buckets
        return min(self.buckets - 1, int((value - self.low) / width))

    def record(self, config: MetricConfig, value: float, now_ms: float) -> None:
        self._bucket_value = self._bucket(value)
        super().record(config, value, now_ms)

    def _update(self, sample: _Sample, value: float) -> None:
        counts = self._counts.setdefault(id(sample), [0] * self.buckets)
        if sample.event_count == 0:
            counts[:] = [0] * self.buckets  # the sample slot was reset
        counts[self._bucket_value] += 1

    def _combine(self, samples: list[_Sample]) -> float:
        return float(sum(s.event_count for s in samples))

    def frequency(self, config: MetricConfig, now_ms: float, center: float) -> float:
        self.purge(config, now_ms)
        total = sum(s.event_count for s in self._samples)
        if total == 0:
            return 0.0
        bucket = self._bucket(center)
        hits = sum(
            self._counts.get(id(s), [0] * self.buckets)[bucket]
            for s in self._samples
            if s.event_count > 0
        )
        return hits / total
