"""A client of `vision-tasks worker`: one long-lived process, requests in, rows out.

Each frame's row carries the CLI's `--jsonl` line as it printed it (`result_json`): the worker writes a frame's line
as `{"id":…,"frame":N,` followed by the CLI's line after its opening brace, so the client takes the CLI's bytes back
by dropping those two fields, without parsing and re-serializing numbers.
"""

import json
import os
import shutil
import subprocess
import threading

__all__ = ["Worker", "WorkerDied", "find_binary", "request_for", "IMAGE_EXTENSIONS", "VIDEO_EXTENSIONS", "ROW_FIELDS",
           "output_line"]

#: Extensions read as photos (image mode); the CLI's `TaskCommandOptions.isImage` falls back on the same list (it
#: looks at a file's content first).
IMAGE_EXTENSIONS = {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".pgm", ".ppm", ".pnm", ".tif", ".tiff", ".webp", ".heic",
                    ".heif", ".avif"}
#: Extensions read as clips (video mode), decoded by ffmpeg.
VIDEO_EXTENSIONS = {".mp4", ".mov", ".m4v", ".avi", ".mkv", ".webm", ".mpg", ".mpeg"}

#: A row's fields: the request's id, the frame's index and timestamp (null for a photo), the CLI's line, or the error
#: (`{"type":…,"message":…}` as JSON) for a failed request, and the pid of the worker that answered.
ROW_FIELDS = ("id", "frame", "timestampMs", "result_json", "error", "worker_pid")


class WorkerDied(RuntimeError):
    """The worker process ended while answering (killed, out of memory) or before it was ready."""


def find_binary(binary=None):
    """The `vision-tasks` executable: `binary` if given, else `$VISION_TASKS_BINARY`, else the one on `PATH`."""
    candidate = binary or os.environ.get("VISION_TASKS_BINARY") or shutil.which("vision-tasks")
    if not candidate:
        raise FileNotFoundError("vision-tasks not found: put it on PATH, set VISION_TASKS_BINARY or pass binary=")
    if os.sep in candidate and not os.access(candidate, os.X_OK):
        raise FileNotFoundError(f"{candidate} is not an executable")
    return candidate


def request_for(path, task, model, options=None, mode=None, request_id=None, start_ms=None, end_ms=None, pre_roll_ms=None):
    """A request for one input: photos in image mode, anything else in video mode, unless `mode` says."""
    if mode is None:
        mode = "image" if os.path.splitext(path)[1].lower() in IMAGE_EXTENSIONS else "video"
    request = {"id": path if request_id is None else request_id, "task": task, "model": model, "input": path,
               "mode": mode, "options": dict(options or {})}
    for key, value in (("startMs", start_ms), ("endMs", end_ms), ("preRollMs", pre_roll_ms)):
        if value is not None:
            request[key] = value
    return request


def output_line(row):
    """`vision_tasks.batch`'s line for a row: the CLI's line with `"id":…` added first, or the error line."""
    head = '{"id":' + json.dumps(row["id"])
    if row.get("error") is not None:
        return head + ',"error":' + row["error"] + "}"
    return head + "," + row["result_json"][1:]


def _split_frame_line(line):
    """(frame, CLI line) from a frame line `{"id":…,"frame":N,REST`, or None for another line."""
    decoder = json.JSONDecoder()
    if not line.startswith('{"id":'):
        return None
    _, end = decoder.raw_decode(line, 6)
    if not line.startswith(',"frame":', end):
        return None
    frame, end = decoder.raw_decode(line, end + 9)
    if line[end] != ",":
        return None
    return frame, "{" + line[end + 1:]


def available_tasks(binary=None):
    """The task names a `vision-tasks worker` takes (its ready line's `tasks`: the CLI's task commands and every
    registered task of the binary), without loading any model."""
    process = subprocess.run([find_binary(binary), "worker"], input=b"", stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             check=False, timeout=60)
    first = process.stdout.split(b"\n", 1)[0]
    hello = json.loads(first) if first else {}
    if hello.get("ready") is not True or not isinstance(hello.get("tasks"), list):
        raise WorkerDied(f"unexpected first line from the worker: {first[:200]!r}")
    return hello["tasks"]


class Worker:
    """One `vision-tasks worker` process.

    `threads` is the worker's `--threads` (default: the worker's own default, `OMP_NUM_THREADS` or 1). A request is
    answered row by row as the worker writes them; a worker that dies is started again and the request sent again
    once, skipping the frames already given (results are the same on every run, so the rest continues them).
    Not for concurrent use: one request at a time (each Ray actor and Spark Python worker has its own).
    """

    def __init__(self, binary=None, threads=None, cache_size=None, stderr=None):
        self.binary = find_binary(binary)
        self.threads = threads
        self.cache_size = cache_size
        self.stderr = stderr
        self.process = None
        self.pid = None
        #: How many times a worker was started (1 + restarts).
        self.starts = 0
        self._lock = threading.Lock()
        self._start()

    def _start(self):
        arguments = [self.binary, "worker"]
        if self.threads is not None:
            arguments += ["--threads", str(self.threads)]
        if self.cache_size is not None:
            arguments += ["--cache-size", str(self.cache_size)]
        # Buffered pipes: an unbuffered one's readline() takes a system call per byte (a pose frame's line is
        # ~7 KB), which cost the client more than the worker spent writing; requests are flushed as written.
        self.process = subprocess.Popen(arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        self.starts += 1
        ready = self.process.stdout.readline()
        if not ready:
            self.process.wait()
            raise WorkerDied(f"{self.binary} worker ended before it was ready (status {self.process.returncode})")
        hello = json.loads(ready)
        if hello.get("ready") is not True:
            raise WorkerDied(f"unexpected first line from the worker: {ready[:200]!r}")
        self.pid = hello["pid"]
        self.ready = hello

    def close(self):
        """Ends the worker: end of input, then a wait."""
        if self.process is None:
            return
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            if self.process is not None and self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        except Exception:
            pass

    def _send(self, request):
        if self.process is None or self.process.poll() is not None:
            self._restart()
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        self.process.stdin.flush()

    def _restart(self):
        if self.process is not None:
            try:
                self.process.kill()
            except OSError:
                pass
            self.process.wait()
        self._start()

    def _answers(self, request):
        """The worker's lines for `request` as ("frame", frame, line) … then ("done", n) or ("error", json)."""
        self._send(request)
        while True:
            raw = self.process.stdout.readline()
            if not raw:
                raise WorkerDied(f"worker {self.pid} ended (status {self.process.wait()}) during request {request['id']!r}")
            line = raw.decode().rstrip("\n")
            split = _split_frame_line(line)
            if split is not None:
                yield ("frame",) + split
                continue
            answer = json.loads(line)
            if "error" in answer:
                yield ("error", json.dumps(answer["error"], sort_keys=True))
                return
            if answer.get("done"):
                yield ("done", answer.get("frames"))
                return
            raise WorkerDied(f"unexpected line from worker {self.pid}: {line[:200]}")

    def process_request(self, request, retries=1):
        """Rows (dicts with `ROW_FIELDS`) for one request: a row per frame, or an error row.

        A video that fails part-way gives its frames' rows and then the error row, as the CLI prints those frames and
        then fails.
        """
        with self._lock:
            finished = False
            try:
                yield from self._rows(request, retries)
                finished = True
            finally:
                if not finished and self.process is not None:
                    # Left part-way (the consumer stopped reading): the rest of this answer would fall into the next
                    # request's, so this worker is replaced.
                    self._restart()

    def _rows(self, request, retries):
        given = set()
        attempt = 0
        while True:
            try:
                for answer in self._answers(request):
                    if answer[0] == "frame":
                        _, frame, line = answer
                        if frame in given:
                            continue
                        given.add(frame)
                        yield self._row(request, frame, line)
                    elif answer[0] == "error":
                        yield self._error_row(request, answer[1])
                return
            except (WorkerDied, BrokenPipeError) as died:
                attempt += 1
                if attempt > retries:
                    yield self._error_row(request, json.dumps({"message": str(died), "type": "workerDied"}, sort_keys=True))
                    # The next request gets a live worker.
                    self._restart()
                    return
                self._restart()

    def _error_row(self, request, error):
        return {"id": request["id"], "frame": None, "timestampMs": None, "result_json": None, "error": error,
                "worker_pid": self.pid}

    def _row(self, request, frame, line):
        # The timestamp is the CLI line's own field, read back (null for a photo).
        timestamp = json.loads(line).get("timestampMs")
        return {"id": request["id"], "frame": frame, "timestampMs": timestamp, "result_json": line, "error": None,
                "worker_pid": self.pid}
