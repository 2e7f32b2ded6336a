"""The client's own logic against a stand-in worker (no Ray, no Spark, no models): frame lines taken apart to the
CLI's bytes, and a worker that dies on every attempt — the request is retried once, then answered by a `workerDied`
error row, and the next request gets a live worker."""

import json
import os
import sys

from vision_tasks import Worker, output_line
from vision_tasks.worker import _split_frame_line

# Speaks the protocol: a ready line, then for a request one frame line and — when the input's name says so — dies
# (SIGKILL on itself) before its done line.
STAND_IN = r'''
import json, os, signal, sys
print(json.dumps({"ready": True, "version": "1", "pid": os.getpid(), "threads": 1}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    ident = json.dumps(request["id"])
    print('{"id":' + ident + ',"frame":0,"height":1,"image":"x","result":{},"timestampMs":null,"width":1}', flush=True)
    if "crash" in request["input"]:
        os.kill(os.getpid(), signal.SIGKILL)
    print('{"id":' + ident + ',"done":true,"frames":1}', flush=True)
'''


def stand_in(tmp_path):
    path = tmp_path / "fake-vision-tasks"
    path.write_text(f"#!{sys.executable}\n" + STAND_IN)
    os.chmod(path, 0o755)
    return str(path)


def test_frame_line_split_keeps_the_cli_bytes():
    cli = '{"height":2,"image":"a\\/b.jpg","result":{"x":[1.5e-07,{"id":1,"frame":3}]},"timestampMs":40,"width":3}'
    for ident in ['"clips/a \\"b\\".mp4"', "17", '{"k":[1,2]}']:
        frame, line = _split_frame_line('{"id":' + ident + ',"frame":12,' + cli[1:])
        assert (frame, line) == (12, cli)
    assert _split_frame_line('{"id":1,"done":true,"frames":2}') is None
    assert _split_frame_line('{"id":1,"error":{"type":"inputError","message":"m"}}') is None


def test_a_worker_dying_twice_gives_an_error_row_and_the_next_request_is_served(tmp_path):
    with Worker(binary=stand_in(tmp_path)) as worker:
        first = worker.pid
        rows = list(worker.process_request({"id": "c", "task": "pose", "model": "m", "input": "crash.mp4"}))
        # Frame 0 once (the retry's copy is skipped), then the error row after the second death.
        assert [row["frame"] for row in rows] == [0, None]
        assert json.loads(rows[1]["error"])["type"] == "workerDied"
        assert output_line(rows[1]).startswith('{"id":"c","error":{')
        assert worker.starts == 3 and worker.pid != first
        rows = list(worker.process_request({"id": "ok", "task": "pose", "model": "m", "input": "fine.jpg"}))
        assert [output_line(row) for row in rows] == ['{"id":"ok","height":1,"image":"x","result":{},"timestampMs":null,"width":1}']
        assert worker.starts == 3


def test_a_request_left_part_way_does_not_leak_into_the_next(tmp_path):
    with Worker(binary=stand_in(tmp_path)) as worker:
        first = worker.pid
        answer = worker.process_request({"id": "a", "task": "pose", "model": "m", "input": "fine.jpg"})
        next(answer)
        answer.close()  # the consumer stops reading before the done line
        assert worker.pid != first
        rows = list(worker.process_request({"id": "b", "task": "pose", "model": "m", "input": "fine.jpg"}))
        assert [row["id"] for row in rows] == ["b"]
