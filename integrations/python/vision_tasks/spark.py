"""Spark: functions for `DataFrame.mapInPandas` and `mapInArrow` over a DataFrame of inputs (`path`, optional `id`).

    out = df.mapInPandas(map_in_pandas("pose", MODEL), schema=SCHEMA)

Each Python worker process keeps one `vision-tasks worker` for its life, reused by every task it runs (Spark reuses
Python workers, `spark.python.worker.reuse`, by default). Spark sets `OMP_NUM_THREADS` to `spark.task.cpus`, which the
worker takes as its thread count.
"""

import atexit

from .worker import ROW_FIELDS, Worker, request_for

#: The output rows' schema, as a DDL string for `mapInPandas` / `mapInArrow`.
SCHEMA = "id string, frame long, timestampMs long, result_json string, error string, worker_pid long"

# One worker per Python process, by (binary, threads).
_workers = {}


def _worker(binary, threads):
    key = (binary, threads)
    worker = _workers.get(key)
    if worker is None:
        worker = Worker(binary=binary, threads=threads)
        _workers[key] = worker
    return worker


@atexit.register
def _close_workers():
    for worker in _workers.values():
        worker.close()
    _workers.clear()


def _rows(records, task, model, options, binary, threads):
    worker = _worker(binary, threads)
    for record in records:
        path = record["path"]
        request_id = record.get("id") or path
        request = request_for(path, task, model, options, mode=record.get("mode"), request_id=request_id)
        yield from worker.process_request(request)


def map_in_pandas(task, model, options=None, binary=None, threads=None):
    """A function for `mapInPandas(..., schema=SCHEMA)`: one pandas frame of rows per input."""
    options = dict(options or {})

    def run(frames):
        import pandas as pd

        for frame in frames:
            for record in frame.to_dict("records"):
                rows = list(_rows([record], task, model, options, binary, threads))
                yield pd.DataFrame({field: pd.Series([row[field] for row in rows],
                                                     dtype="Int64" if field in ("frame", "timestampMs", "worker_pid") else object)
                                    for field in ROW_FIELDS})

    return run


def map_in_arrow(task, model, options=None, binary=None, threads=None):
    """A function for `mapInArrow(..., schema=SCHEMA)`: one Arrow record batch of rows per input."""
    options = dict(options or {})

    def run(batches):
        import pyarrow as pa

        types = {"id": pa.string(), "frame": pa.int64(), "timestampMs": pa.int64(), "result_json": pa.string(),
                 "error": pa.string(), "worker_pid": pa.int64()}
        for batch in batches:
            for record in batch.to_pylist():
                rows = list(_rows([record], task, model, options, binary, threads))
                yield pa.RecordBatch.from_arrays([pa.array([row[field] for row in rows], type=types[field]) for field in ROW_FIELDS],
                                                 names=list(ROW_FIELDS))

    return run
