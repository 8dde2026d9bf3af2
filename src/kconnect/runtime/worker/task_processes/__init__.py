"""Where a worker's tasks run: threads of the worker process, or task processes.

Every piece of running tasks outside the task loops themselves lives here:

- :mod:`.task_executor` -- ``TaskExecutor``, the contract the :class:`~kconnect.runtime.worker.
  worker.Worker` hands its tasks to;
- :mod:`.local_tasks` -- ``LocalTasks``, each task on a thread of this process
  (``task.processes`` 0 or 1, and inside every task process);
- :mod:`.task_pool` -- ``TaskProcessPool``, tasks spread over child processes (``task.processes``
  > 1), so busy tasks use every core;
- :mod:`.split_tasks` -- ``SplitTasks``, the pool beside ``LocalTasks`` for the connectors whose
  tasks run in the worker process (Java plugins: one JVM per worker);
- :mod:`.task_process` -- the child process's main (``python -m
  kconnect.runtime.worker.task_processes.task_process``);
- :mod:`.task_channel` -- the framed socketpair channel between the worker and a task process.
"""
