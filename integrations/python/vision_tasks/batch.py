"""One command for a folder of photos and clips:

    python -m vision_tasks.batch --engine ray|spark|local INPUT_DIR OUT.jsonl --task pose --model MODEL [--workers 2]

Photos (.png, .jpg, .jpeg, .bmp, .gif, .ppm, .pgm, .tiff, .webp, .heic, .avif, …) run in image mode, clips (.mp4, .mov, .avi, …) in video mode; other files are left out.
OUT.jsonl holds, for each input, exactly the lines `vision-tasks TASK MODEL INPUT [--video] --jsonl -` prints, each
with `"id":…` (the path relative to INPUT_DIR) added as its first field, in any order, and one `{"id":…,"error":{…}}`
line per input that failed. The exit status is 0 unless the job itself failed; a summary goes to standard error.
"""

import argparse
import json
import os
import queue
import sys
import threading
import time

# Absolute imports: spark-submit runs this module as a file (`spark-submit …/vision_tasks/batch.py …`).
from vision_tasks.worker import IMAGE_EXTENSIONS, VIDEO_EXTENSIONS, ROW_FIELDS, Worker, available_tasks, output_line, request_for


def inputs(directory):
    """(id, absolute path, mode) for every photo and clip under `directory`, sorted by id."""
    found = []
    for root, _, names in os.walk(directory):
        for name in names:
            extension = os.path.splitext(name)[1].lower()
            if extension in IMAGE_EXTENSIONS:
                mode = "image"
            elif extension in VIDEO_EXTENSIONS:
                mode = "video"
            else:
                continue
            path = os.path.abspath(os.path.join(root, name))
            found.append((os.path.relpath(path, os.path.abspath(directory)), path, mode))
    return sorted(found)


def run_local(items, task, model, options, workers, binary, threads):
    """`workers` worker processes on this machine, each fed by a thread of its own from one queue."""
    pending = queue.Queue()
    for item in items:
        pending.put(item)
    results = queue.Queue()
    failures = []

    def serve():
        try:
            with Worker(binary=binary, threads=threads) as worker:
                while True:
                    try:
                        request_id, path, mode = pending.get_nowait()
                    except queue.Empty:
                        return
                    for row in worker.process_request(request_for(path, task, model, options, mode, request_id)):
                        results.put(row)
        except Exception as error:  # a worker that cannot start fails the job
            failures.append(error)

    threads_ = [threading.Thread(target=serve, daemon=True) for _ in range(max(1, min(workers, len(items))))]
    for thread in threads_:
        thread.start()
    while any(thread.is_alive() for thread in threads_) or not results.empty():
        try:
            yield results.get(timeout=0.1)
        except queue.Empty:
            pass
    if failures:
        raise failures[0]


def run_ray(items, task, model, options, workers, binary, threads, address=None):
    import ray

    from vision_tasks.ray import VisionTasksPredictor

    if not ray.is_initialized():
        if address:
            ray.init(address=address)
        else:
            ray.init(num_cpus=workers, include_dashboard=False)
    dataset = ray.data.from_items([{"id": i, "path": p, "mode": m} for i, p, m in items], override_num_blocks=max(1, len(items)))
    answered = dataset.map_batches(
        VisionTasksPredictor,
        fn_constructor_kwargs={"task": task, "model": model, "options": options, "binary": binary, "threads": threads},
        concurrency=workers, num_cpus=1, batch_size=1, batch_format="pandas")
    for row in answered.iter_rows():
        yield {field: _plain(row[field]) for field in ROW_FIELDS}


def run_spark(items, task, model, options, workers, binary, threads, master=None):
    from pyspark import StorageLevel
    from pyspark.sql import SparkSession

    from vision_tasks.spark import SCHEMA, map_in_pandas

    builder = SparkSession.builder.appName("vision-tasks batch")
    # Under spark-submit (which starts Python with PYSPARK_GATEWAY_PORT set) the submit line's --master holds.
    if master or "PYSPARK_GATEWAY_PORT" not in os.environ:
        master = master or f"local[{workers}]"
        builder = builder.master(master)
        if master.startswith("local"):
            # Local Python workers run this interpreter (with this package and pandas), not whatever `python3` is.
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = builder.getOrCreate()
    frame = spark.createDataFrame([tuple(item) for item in items], "id string, path string, mode string")
    # One input a partition: a clip is the unit of work, and tasks spread over the slots as they free up.
    frame = frame.repartition(max(1, len(items)), "id")
    answered = frame.mapInPandas(map_in_pandas(task, model, options, binary, threads), schema=SCHEMA)
    # toLocalIterator alone would run one partition at a time; the rows are computed on every slot at once into
    # Spark's storage (spilling to disk), then streamed to the driver partition by partition.
    answered = answered.persist(StorageLevel.MEMORY_AND_DISK)
    answered.count()
    for row in answered.toLocalIterator():
        yield {field: _plain(row[field]) for field in ROW_FIELDS}


def _plain(value):
    """Ray's and Spark's cells as plain Python (numpy integers, pandas' NA and NaN as None)."""
    if value is None:
        return None
    try:
        import math

        if isinstance(value, float) and math.isnan(value):
            return None
    except TypeError:
        pass
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m vision_tasks.batch", description=__doc__.split("\n\n")[0])
    parser.add_argument("input_dir")
    parser.add_argument("output")
    parser.add_argument("--engine", choices=["ray", "spark", "local"], default="local")
    parser.add_argument("--task", required=True, help="a task the binary's worker takes: every registered task (pose, face, "
                        "hand, gesture, object, classify, face-detector, …, odt; the worker's ready line lists them)")
    parser.add_argument("--model", required=True)
    parser.add_argument("--options", default="{}", help="the task's options as a JSON object, e.g. '{\"numPoses\": 1}'")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (local), actors (ray), local slots (spark)")
    parser.add_argument("--threads", type=int, help="threads per worker (default: OMP_NUM_THREADS as the engine sets it, else 1)")
    parser.add_argument("--binary", help="the vision-tasks executable (default: VISION_TASKS_BINARY, else PATH)")
    parser.add_argument("--master", help="spark: the master URL (default: local[WORKERS]; spark-submit's own when submitted)")
    parser.add_argument("--address", help="ray: the cluster's address (default: a local Ray with WORKERS CPUs)")
    parser.add_argument("--stats", help="write the job's counts and time here as JSON")
    args = parser.parse_args(argv)
    options = json.loads(args.options)
    if not isinstance(options, dict):
        parser.error("--options is a JSON object")
    # The binary's own task list (its worker's ready line), so that a task added to the engine needs nothing here.
    tasks = available_tasks(args.binary)
    if args.task not in tasks:
        parser.error(f"--task: '{args.task}' is not a task of this vision-tasks (tasks: {', '.join(tasks)})")
    items = inputs(args.input_dir)
    model = os.path.abspath(args.model)
    start = time.monotonic()
    if args.engine == "local":
        rows = run_local(items, args.task, model, options, args.workers, args.binary, args.threads)
    elif args.engine == "ray":
        rows = run_ray(items, args.task, model, options, args.workers, args.binary, args.threads, args.address)
    else:
        rows = run_spark(items, args.task, model, options, args.workers, args.binary, args.threads, args.master)
    frames = errors = 0
    pids = set()
    with open(args.output, "w") as out:
        for row in rows:
            out.write(output_line(row) + "\n")
            if row.get("error") is not None:
                errors += 1
            else:
                frames += 1
            if row.get("worker_pid") is not None:
                pids.add(int(row["worker_pid"]))
    seconds = time.monotonic() - start
    stats = {"engine": args.engine, "inputs": len(items), "frames": frames, "errors": errors, "workerPids": sorted(pids),
             "seconds": round(seconds, 3), "framesPerSecond": round(frames / seconds, 3) if seconds > 0 else None}
    print(json.dumps(stats), file=sys.stderr)
    if args.stats:
        with open(args.stats, "w") as handle:
            json.dump(stats, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
