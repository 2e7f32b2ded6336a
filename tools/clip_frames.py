"""A clip's frames exactly as our VideoDecoder gives them (and as ../shared/reference was made): ffmpeg to rgb24, no
scaling, no rotation metadata applied; the frame rate from ffprobe's r_frame_rate. Shared by the tools/ scripts."""
import json
import subprocess

import numpy as np


def decode(path, count=None):
    """(frames as an N × height × width × 3 uint8 array, frames per second); the first `count` frames if given."""
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height,r_frame_rate", "-of", "json", path], capture_output=True, check=True)
    stream = json.loads(probe.stdout)["streams"][0]
    width, height = stream["width"], stream["height"]
    num, den = map(int, stream["r_frame_rate"].split("/"))
    limit = ["-frames:v", str(count)] if count else []
    raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, *limit, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, height, width, 3), num / den
