"""Helpers shared by the MediaPipe truth tools of the Face Detector, Image Segmenter, Interactive Segmenter and Image
Embedder (tools/mediapipe_face_detector_goldens.py, mediapipe_embedder_goldens.py, mediapipe_segmenter_goldens.py).

Each tool runs under MediaPipe 1.2.3 (.cache/mediapipe-1.2.3, the truth) and calls itself under 0.10.14
(.cache/mediapipe, `--worker`) for the same jobs, so the spread between the two versions is on record. Inputs are
rebuilt from ../shared exactly as the other MediaPipe truth tools rebuild them:
- photos: `mp.Image.create_from_file` (stb_image; PNGs with alpha stay RGBA; the shared photos carry no EXIF
  orientation other than 1, so both versions decode the same pixels, which each tool checks by digest);
- turned buffers: `np.rot90(upright, k)` with `ImageProcessingOptions(rotation_degrees=90 * k)` (k = 1: counter-
  clockwise), as tools/mediapipe_orientation_goldens.py;
- EXIF files: the original JPEG with one 36-byte APP1 segment (orientation N) inserted right after SOI, as
  tools/mediapipe_orientation_goldens.py and Tests/Support's EXIFOrientationJPEG; 1.2.3's create_from_file shows the
  pixels turned upright, 0.10.14 ignores the tag, so its cross-check runs on the buffer 1.2.3 shows;
- clip frames: `ffmpeg -v error -i CLIP -f rawvideo -pix_fmt rgb24 -`, timestamp round(i * 1000 / fps) ms with fps
  from ffprobe's r_frame_rate, name `CLIP#i` (../shared/tools/mediapipe_reference.py).
"""
import base64
import hashlib
import json
import os
import struct
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MP123 = os.path.join(ROOT, ".cache", "mediapipe-1.2.3", "bin", "python")
MP01014 = os.path.join(ROOT, ".cache", "mediapipe", "bin", "python")


def shared_dir(arg=None):
    for candidate in (arg, os.path.join(os.path.dirname(ROOT), "shared"), "/work/shared"):
        if candidate and os.path.isdir(os.path.join(candidate, "images")):
            return candidate
    raise SystemExit("no ../shared (pass --shared)")


def model_path(name, models_dir=None, shared=None):
    """Models/NAME when tools/fetch-models put it there, else ../shared/models/NAME (the new tasks' models are not in
    Models/manifest.json yet)."""
    for d in (models_dir or os.path.join(ROOT, "Models"), os.path.join(shared_dir(shared), "models")):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    raise SystemExit(f"model {name} not found in Models/ or ../shared/models")


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def f32(x):
    """A float32 as the shortest decimal that reads back to the same float32 (exact, and compact in JSON)."""
    return float(str(np.float32(x)))


def digest(pixels):
    return hashlib.sha256(np.ascontiguousarray(pixels).tobytes()).hexdigest()[:16] + f"/{tuple(pixels.shape)}"


def b64(array):
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")


# ---------------------------------------------------------------- EXIF (the bytes of mediapipe_orientation_goldens.py)

EXIF_TRANSFORMS = {1: "identity", 2: "fliplr", 3: "rot180", 4: "flipud", 5: "transpose", 6: "rot90cw", 7: "transverse",
                   8: "rot90ccw"}


def app1_exif_orientation(n):
    payload = (b"Exif\0\0" + b"II\x2a\x00\x08\x00\x00\x00" + b"\x01\x00" + b"\x12\x01" + b"\x03\x00"
               + b"\x01\x00\x00\x00" + struct.pack("<H", n) + b"\0\0" + b"\0\0\0\0")
    return b"\xff\xe1" + struct.pack(">H", 2 + len(payload)) + payload


def exif_tagged(jpeg, n):
    assert jpeg[:2] == b"\xff\xd8"
    return jpeg[:2] + app1_exif_orientation(n) + jpeg[2:]


def transform(a, name):
    return {"identity": a, "fliplr": a[:, ::-1], "rot180": a[::-1, ::-1], "flipud": a[::-1],
            "transpose": a.transpose(1, 0, 2), "rot90cw": np.rot90(a, -1), "transverse": np.rot90(a, 2).transpose(1, 0, 2),
            "rot90ccw": np.rot90(a, 1)}[name]


def map_point(x, y, k):
    """Normalized upright point -> the frame of np.rot90(upright, k) (k = 1: counter-clockwise)."""
    return [(x, y), (y, 1 - x), (1 - x, 1 - y), (1 - y, x)][k % 4]


# ---------------------------------------------------------------- clips (../shared/tools/mediapipe_reference.py)

def video_frames(path, max_frames):
    """(name CLIP#i, rgb24 frame, timestamp ms) for the first max_frames frames, as ffmpeg decodes them."""
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height,r_frame_rate", "-of", "csv=p=0", path],
                           capture_output=True, text=True, check=True).stdout.strip().split(",")
    w, h = int(probe[0]), int(probe[1])
    rot = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream_side_data=rotation", "-of", "csv=p=0", path], capture_output=True, text=True).stdout
    if any(abs(int(float(v))) % 180 == 90 for v in rot.replace(",", " ").split() if v.lstrip("-").replace(".", "").isdigit()):
        w, h = h, w
    num, den = probe[2].split("/")
    fps = float(num) / float(den)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-frames:v", str(max_frames), "-f", "rawvideo",
                          "-pix_fmt", "rgb24", "-"], capture_output=True, check=True).stdout
    n = min(len(raw) // (w * h * 3), max_frames)
    name = os.path.basename(path)
    for i in range(n):
        a = np.frombuffer(raw, dtype=np.uint8, count=w * h * 3, offset=i * w * h * 3).reshape(h, w, 3)
        yield f"{name}#{i}", np.ascontiguousarray(a), int(round(i * 1000.0 / fps))


# ---------------------------------------------------------------- the second version

def call_worker(python, script, args, jobs):
    """Runs SCRIPT --worker under PYTHON (the other MediaPipe venv) with JOBS as JSON on stdin; its JSON answer."""
    out = subprocess.run([python, script, "--worker", *args], input=json.dumps(jobs), capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"worker under {python} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def quiet_logs():
    """MediaPipe's C++ logs go to stderr; keep the tools' own progress lines readable."""
    os.environ.setdefault("GLOG_minloglevel", "2")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)
