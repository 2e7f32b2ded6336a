"""Ray Data: a callable class that keeps one `vision-tasks worker` per actor.

    ds = ray.data.from_items([{"id": "a.jpg", "path": "/data/a.jpg"}, ...])
    rows = ds.map_batches(VisionTasksPredictor, fn_constructor_kwargs={"task": "pose", "model": MODEL},
                          concurrency=2, num_cpus=1, batch_size=1, batch_format="pandas")

Ray runs the class as a long-lived actor: `__init__` starts the worker once, and every batch streams its inputs'
requests through it. Ray sets `OMP_NUM_THREADS` to the actor's `num_cpus`, which the worker takes as its thread count.
"""

from .worker import ROW_FIELDS, Worker, request_for


class VisionTasksPredictor:
    """Rows `ROW_FIELDS` for a batch of inputs (columns `path_column`, and `id_column` when present, else the path)."""

    def __init__(self, task, model, options=None, binary=None, threads=None, path_column="path", id_column="id"):
        self.task = task
        self.model = model
        self.options = dict(options or {})
        self.path_column = path_column
        self.id_column = id_column
        self.worker = Worker(binary=binary, threads=threads)

    def __call__(self, batch):
        import pandas as pd

        frame = batch if isinstance(batch, pd.DataFrame) else pd.DataFrame(batch)
        rows = []
        for record in frame.to_dict("records"):
            path = record[self.path_column]
            request_id = record.get(self.id_column, path)
            request = request_for(path, self.task, self.model, self.options, mode=record.get("mode"), request_id=request_id)
            rows.extend(self.worker.process_request(request))
        # Object columns: a photo's frame and timestamp are null beside a clip's integers.
        return pd.DataFrame({field: pd.Series([row[field] for row in rows], dtype=object) for field in ROW_FIELDS})

    def __del__(self):
        worker = getattr(self, "worker", None)
        if worker is not None:
            worker.close()
