"""The worker client, the local, Ray and Spark engines of `vision_tasks.batch`, against the CLI's `--jsonl` lines.

Every engine must write exactly the one-machine CLI's lines (with `"id":…` first), sorted by (id, frame): results do
not depend on the thread count or the process, so a cluster run gives the same bytes. One worker process serves each
slot (distinct pids from the ready lines, carried on every row); a corrupt input gives one error line and the job
succeeds; a worker killed with SIGKILL while it decodes a clip is restarted and its request retried, and the output
is still complete and identical.
"""

import json
import os
import shutil
import subprocess
import signal
import threading
import time

import pytest

from conftest import MODEL, OPTIONS, ROOT, SHARED, check_output

from vision_tasks import Worker, output_line, request_for
from vision_tasks import batch


def run_batch(archive, tmp_path, engine, *extra):
    folder = archive[0]
    out = tmp_path / f"{engine}.jsonl"
    stats = tmp_path / f"{engine}.stats.json"
    status = batch.main(["--engine", engine, str(folder), str(out), "--task", "pose", "--model", str(MODEL),
                         "--options", json.dumps(OPTIONS), "--workers", "2", "--stats", str(stats)] + list(extra))
    assert status == 0
    return out.read_text().splitlines(), json.loads(stats.read_text())


def worker_pids(binary):
    """Pids of live `vision-tasks worker` processes started from `binary`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                arguments = handle.read().split(b"\0")
        except OSError:
            continue
        if len(arguments) >= 2 and arguments[0] == binary.encode() and arguments[1] == b"worker":
            found.append(int(entry))
    return found


def decoding_worker(binary):
    """A worker that has an ffmpeg child: one in the middle of a clip."""
    workers = set(worker_pids(binary))
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/comm") as handle:
                name = handle.read().strip()
        except OSError:
            continue
        parent = int(fields[1])
        if name == "ffmpeg" and parent in workers:
            return parent
    return None


class Killer(threading.Thread):
    """Kills, once, the first worker found decoding a clip (SIGKILL, as an out-of-memory kill or a lost node would)."""

    def __init__(self, binary):
        super().__init__(daemon=True)
        self.binary = binary
        self.killed = None
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set() and self.killed is None:
            pid = decoding_worker(self.binary)
            if pid is not None:
                try:
                    os.kill(pid, signal.SIGKILL)
                    self.killed = pid
                except ProcessLookupError:
                    pass
            time.sleep(0.005)


def test_worker_client_gives_the_cli_lines_and_survives_sigkill(archive, vision_tasks):
    folder, expected, corrupt = archive
    with Worker(binary=vision_tasks) as worker:
        assert worker.ready["threads"] == int(os.environ.get("OMP_NUM_THREADS", "1").split(",")[0] or 1)
        for relative, lines in sorted(expected.items()):
            rows = list(worker.process_request(request_for(str(folder / relative), "pose", str(MODEL), OPTIONS, request_id=relative)))
            assert [output_line(row) for row in rows] == lines
            assert all(row["worker_pid"] == worker.pid for row in rows)
        rows = list(worker.process_request(request_for(str(folder / corrupt), "pose", str(MODEL), OPTIONS, request_id=corrupt)))
        assert len(rows) == 1 and json.loads(rows[0]["error"])["type"] == "inputError"
        # SIGKILL after the clip's third frame: the client starts a worker again, sends the request again and gives
        # the frames it had not given yet.
        clip = "clips/juggle.mp4"
        rows = []
        first = worker.pid
        for row in worker.process_request(request_for(str(folder / clip), "pose", str(MODEL), OPTIONS, request_id=clip)):
            rows.append(row)
            if len(rows) == 3:
                os.kill(worker.pid, signal.SIGKILL)
        assert [output_line(row) for row in rows] == expected[clip]
        assert worker.starts == 2 and worker.pid != first
        assert {row["worker_pid"] for row in rows} == {first, worker.pid}


def test_local_engine_with_a_worker_killed_mid_video(archive, vision_tasks, tmp_path):
    killer = Killer(vision_tasks)
    killer.start()
    lines, stats = run_batch(archive, tmp_path, "local")
    killer.stop.set()
    check_output(lines, archive)
    assert killer.killed is not None, "no worker was caught decoding a clip"
    # Two slots, and the killed worker's replacement (the killed one's pid is on its rows, if it wrote any).
    assert len(stats["workerPids"]) in (2, 3), stats


def test_ray(archive, vision_tasks, tmp_path):
    ray = pytest.importorskip("ray")
    pytest.importorskip("pandas")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        lines, stats = run_batch(archive, tmp_path, "ray")
    finally:
        ray.shutdown()
    check_output(lines, archive)
    assert len(stats["workerPids"]) == 2, stats


@pytest.fixture(scope="module")
def spark_available():
    pytest.importorskip("pyspark")
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")


def stop_spark():
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is not None:
        session.stop()


def test_spark_local(archive, vision_tasks, tmp_path, spark_available):
    from pyspark.sql import SparkSession

    from vision_tasks.spark import SCHEMA, map_in_arrow

    try:
        lines, stats = run_batch(archive, tmp_path, "spark", "--master", "local[2]")
        # The same inputs through mapInArrow, in the session the job left running (its Python workers, and so their
        # vision-tasks workers, are reused).
        spark = SparkSession.getActiveSession()
        items = [(relative, path, mode) for relative, path, mode in batch.inputs(str(archive[0]))]
        frame = spark.createDataFrame(items, "id string, path string, mode string").repartition(len(items), "id")
        rows = frame.mapInArrow(map_in_arrow("pose", str(MODEL), OPTIONS), schema=SCHEMA).collect()
        arrow_lines = [output_line(row.asDict()) for row in rows]
        arrow_pids = {row["worker_pid"] for row in rows}
    finally:
        stop_spark()
    check_output(lines, archive)
    check_output(arrow_lines, archive)
    assert len(stats["workerPids"]) == 2, stats
    assert arrow_pids == set(stats["workerPids"]), "mapInArrow should have reused the job's workers"


def test_spark_with_task_retries_and_a_worker_killed_mid_video(archive, vision_tasks, tmp_path, spark_available):
    # local[2,2]: two slots, and a failed task is tried again (as on a cluster).
    killer = Killer(vision_tasks)
    killer.start()
    try:
        lines, stats = run_batch(archive, tmp_path, "spark", "--master", "local[2,2]")
    finally:
        killer.stop.set()
        stop_spark()
    check_output(lines, archive)
    assert killer.killed is not None, "no worker was caught decoding a clip"
    assert len(stats["workerPids"]) in (2, 3), stats


def test_batch_takes_every_task_of_the_binary(vision_tasks, tmp_path):
    """`--task` is checked against the binary's own list (its worker's ready line), so a task registered in the engine
    (the Face Detector, …) runs through the batch with nothing added here, line for line as the CLI writes it."""
    from vision_tasks.worker import available_tasks
    tasks = available_tasks(vision_tasks)
    assert {"pose", "face", "odt", "face-detector"} <= set(tasks)
    folder = tmp_path / "faces"
    folder.mkdir()
    for name in ["face_day13.jpg", "face_landmark_ex1.jpg"]:
        shutil.copyfile(SHARED / "images" / name, folder / name)
    model = ROOT / "Models" / "face_detection_short_range.tflite"
    out = tmp_path / "faces.jsonl"
    status = batch.main(["--engine", "local", str(folder), str(out), "--task", "face-detector", "--model", str(model),
                         "--options", json.dumps({"minDetectionConfidence": 0.4}), "--workers", "1"])
    assert status == 0
    lines = sorted(out.read_text().splitlines())
    assert len(lines) == 2
    for line in lines:
        row = json.loads(line)
        cli = subprocess.run([vision_tasks, "face-detector", str(model), str(folder / row["id"]), "--min-detection-confidence",
                              "0.4", "--jsonl", "-", "--quiet"], check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
        # The batch's line is the CLI's with the row's id and frame in front.
        assert json.loads(line)["result"] == json.loads(cli)["result"]
    with pytest.raises(SystemExit):
        batch.main(["--engine", "local", str(folder), str(out), "--task", "no-such-task", "--model", str(model)])
