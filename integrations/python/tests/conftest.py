"""Shared inputs for the integration tests: a folder of the shared photos, two short clips cut from the shared videos
and one corrupt file, and the CLI's own `--jsonl` lines for each (the truth every engine must reproduce byte for
byte). The inputs are kept small (four photos, two clips of 16 frames at 320 px, the pose lite model) so that Ray's and
Spark's start-up dominates the run, not the frames."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared"
MODEL = ROOT / "Models" / "pose_landmarker_lite.task"
PHOTOS = ["pose1.jpg", "pose2.jpg", "pose3.jpg", "hand_2hands.png"]
CLIPS = [("full_body_juggle.mp4", "clips/juggle.mp4"), ("outdoor_person_dog_sam2.mp4", "clips/outdoor.mp4")]
CLIP_FRAMES = 16
#: The task's options in a request, and the same as the CLI's arguments.
OPTIONS = {"segmentation": False}
CLI_OPTIONS = ["--no-segmentation"]


def binary():
    found = os.environ.get("VISION_TASKS_BINARY") or shutil.which("vision-tasks")
    if not found:
        candidate = ROOT / ".build" / "debug" / "vision-tasks"
        found = str(candidate) if candidate.exists() else None
    return found


@pytest.fixture(scope="session")
def vision_tasks():
    found = binary()
    if not found or not os.access(found, os.X_OK):
        pytest.skip("no vision-tasks binary (build it, or set VISION_TASKS_BINARY)")
    if not MODEL.exists() or not SHARED.exists():
        pytest.skip(f"{MODEL} or {SHARED} missing (tools/fetch-models; the shared data beside the checkout)")
    os.environ["VISION_TASKS_BINARY"] = found
    return found


def cli_lines(executable, path, video):
    """`vision-tasks pose MODEL INPUT [--video] --jsonl -`'s lines and exit status."""
    arguments = [executable, "pose", str(MODEL), str(path)] + (["--video"] if video else []) + CLI_OPTIONS + ["--jsonl", "-", "--quiet"]
    done = subprocess.run(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    return done.stdout.decode().splitlines(), done.returncode


@pytest.fixture(scope="session")
def archive(tmp_path_factory, vision_tasks):
    """(folder, expected lines by id, corrupt id): the batch's inputs and, for each good one, the CLI's lines with
    `"id":…` added first — exactly what `vision_tasks.batch` must write."""
    folder = tmp_path_factory.mktemp("archive")
    (folder / "photos").mkdir()
    (folder / "clips").mkdir()
    for name in PHOTOS:
        os.symlink(SHARED / "images" / name, folder / "photos" / name)
    for source, target in CLIPS:
        # Re-encoded (MPEG-4 part 2, in every ffmpeg) to 320 px wide: both sides read the same file, so the codec's
        # output only has to be a clip, not a particular one.
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(SHARED / "videos" / source), "-frames:v", str(CLIP_FRAMES),
                        "-vf", "scale=320:-2", "-c:v", "mpeg4", "-q:v", "4", "-an", str(folder / target)], check=True)
    corrupt = "photos/corrupt.jpg"
    (folder / corrupt).write_bytes(b"\xff\xd8\xff\xe0 not a JPEG after all" * 4)
    (folder / "notes.txt").write_text("not an input: left out by extension\n")
    expected = {}
    for path in sorted(folder.rglob("*")):
        relative = str(path.relative_to(folder))
        if path.is_dir() or relative in (corrupt, "notes.txt"):
            continue
        lines, status = cli_lines(vision_tasks, path, video=relative.startswith("clips/"))
        assert status == 0, (relative, lines)
        expected[relative] = ['{"id":' + _json_string(relative) + "," + line[1:] for line in lines]
    lines, status = cli_lines(vision_tasks, folder / corrupt, video=False)
    assert status != 0 and not lines, "the corrupt file should fail in the CLI too"
    return folder, expected, corrupt


def _json_string(text):
    import json

    return json.dumps(text)


def sort_key(line):
    """(id, frame) of an output line: ids are unique per input, and a clip's lines carry their timestamps in order."""
    import json

    entry = json.loads(line)
    image = entry.get("image", "")
    frame = int(image.rsplit("#", 1)[1]) if "#" in image else -1
    return entry["id"], frame


def check_output(lines, archive):
    """The job's lines: every expected line exactly once (sorted by (id, frame)) and one error line for the corrupt file."""
    import json

    _, expected, corrupt = archive
    errors = [line for line in lines if '"error":' in line and json.loads(line).get("error") is not None]
    results = sorted((line for line in lines if line not in errors), key=sort_key)
    want = sorted((line for group in expected.values() for line in group), key=sort_key)
    assert len(results) == len(want)
    for ours, theirs in zip(results, want):
        assert ours == theirs
    assert len(errors) == 1, errors
    error = json.loads(errors[0])
    assert error["id"] == corrupt and error["error"]["type"] == "inputError"
