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


def test_the_malloc_threshold_is_fixed_unless_the_environment_sets_it() -> None:
    """In a child process (mallopt is process-wide): glibc accepts it; a user's
    MALLOC_MMAP_THRESHOLD_ is left alone."""
    import os
    import subprocess
    import sys

    code = (
        "from kconnect.runtime.common.gc_tuning import fix_malloc_thresholds\n"
        "print(fix_malloc_thresholds())"
    )
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_MMAP_THRESHOLD_"}
    run = [sys.executable, "-c", code]
    fixed = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert fixed.stdout.strip() == "True"
    env["MALLOC_MMAP_THRESHOLD_"] = "65536"
    left = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert left.stdout.strip() == "False"
