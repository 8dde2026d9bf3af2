import gc

from kconnect.runtime.common.gc_tuning import WORKER_GC_THRESHOLDS, tune_for_worker


def test_tune_for_worker_freezes_start_up_objects_and_raises_thresholds() -> None:
    before = gc.get_threshold()
    try:
        tune_for_worker()
        assert gc.get_threshold() == WORKER_GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
