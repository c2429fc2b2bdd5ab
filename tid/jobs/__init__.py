"""The background, one mechanism for each: work outside a request goes through the queue
(``queue`` its storage, ``tasks`` the worker's task and its handler per kind of job,
``background_jobs`` the job rows people follow); work in time through the scheduler
(``scheduler`` queues, ``scheduled_jobs`` the jobs' bodies)."""
