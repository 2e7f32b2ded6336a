#!/usr/bin/env python3
"""MediaPipe's Pose, Face or Hand Landmarker, Gesture Recognizer, Object Detector or Image Classifier (Python Tasks
API, its own XNNPACK build), served for `bench pose`, `bench face`, `bench hand`, `bench gesture`, `bench objects` and
`bench classify`. Runs under MediaPipe 1.2.3 (.cache/mediapipe-1.2.3, the bench's default) and 0.10.14
(.cache/mediapipe, `--mediapipe 0.10.14`) alike: the Tasks API it uses is the same in both. Neither lets Python set a
thread count; XNNPACK runs one thread on desktop Linux in both.

    mediapipe_landmarker_time.py TASK MODEL MODE SOURCE FRAMES
TASK is pose, face, hand, gesture, object (MediaPipe's Object Detector), classify (its Image Classifier), or
registered:CLASS:METHOD (a registered task of ours: MediaPipe's vision.CLASS and its METHOD), default options (face: blendshapes and transformation matrices on, as `bench face` runs ours).
MODE is image, video or live; SOURCE an image (image mode: the same image FRAMES times) or a video whose first
FRAMES frames are decoded as our VideoDecoder decodes them (ffmpeg, rgb24, no scaling). Prints `ready VERSION` (the
MediaPipe it imported), then:
  image / video: for each stdin line `START COUNT`, runs frames START..START+COUNT-1 (video mode: timestamps
                 round(i * 1000 / fps), strictly increasing across requests) and prints their milliseconds;
  live:          for each stdin line `SECONDS [SCENE_START]`, feeds frames through detect_async, each as soon as the last result
                 is out (see below), for that long, waits for the last result, and prints
                 `submitted delivered seconds` (to the last result). Each frame shows the scene at the moment it is
                 sent: the clip in real time from SCENE_START seconds on, played forward and back (the bench's
                 LiveScene);
  either:        for the line `cpu`, prints `CPU_SECONDS WALL_SECONDS`: the process's CPU time (every thread) and the
                 wall time over the image- or video-mode calls timed so far, so the bench can say how many cores
                 MediaPipe kept busy.
numPoses / numFaces 1 and every other option at MediaPipe's defaults, as the bench runs ours."""
import sys
import threading
import time

import numpy as np
import mediapipe as mp
from mediapipe.tasks import python as mpt
from mediapipe.tasks.python import vision

import clip_frames


def frames_of(mode, source, count):
    if mode == "image":
        image = mp.Image.create_from_file(source)
        rgb = image.numpy_view()[:, :, :3].copy()
        return [rgb] * count, 30.0
    frames, fps = clip_frames.decode(source, count)
    return list(frames), fps


def scene_frame(seconds, count, fps):
    """The frame on screen `seconds` into the clip played forward then backward at its own rate (as LiveScene)."""
    if count < 2:
        return 0
    cycle = 2 * (count - 1)
    step = int(seconds * fps) % cycle
    return step if step < count else cycle - step


def main():
    task, model, mode, source, count = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    frames, fps = frames_of(mode, source, count)
    images = [mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(f)) for f in frames]
    running_mode = {"image": vision.RunningMode.IMAGE, "video": vision.RunningMode.VIDEO,
                    "live": vision.RunningMode.LIVE_STREAM}[mode]
    delivered = [0]
    done = threading.Event()
    last = [None]
    last_delivery = [0.0]

    answered = threading.Event()

    def on_result(result, image, timestamp_ms):
        delivered[0] += 1
        last_delivery[0] = time.perf_counter()
        answered.set()
        if timestamp_ms == last[0]:
            done.set()

    common = dict(base_options=mpt.BaseOptions(model_asset_path=model), running_mode=running_mode,
                  result_callback=on_result if mode == "live" else None)
    if task.startswith("registered:"):
        # A registered task of ours (bench's `registered:CLASS:METHOD`): MediaPipe's class of that name with its
        # default options, its METHOD, METHOD_for_video and METHOD_async under the landmarkers' names.
        _, class_name, method = task.split(":")
        options_class = getattr(vision, class_name + "Options")
        # The interactive segmenter's options have no running mode (image mode only) or callback.
        given = {k: v for k, v in common.items() if k in options_class.__init__.__code__.co_varnames}
        instance = getattr(vision, class_name).create_from_options(options_class(**given))
        class Renamed:
            detect = getattr(instance, method)
            detect_for_video = getattr(instance, method + "_for_video", None)
            detect_async = getattr(instance, method + "_async", None)
            close = instance.close
        if "InteractiveSegmenter" in class_name:
            # Image mode only, with a region of interest: a keypoint at the centre, as `bench interactive-segmenter`
            # gives ours (its registration's default keypoint).
            from mediapipe.tasks.python.components.containers import keypoint as keypoint_module
            module = sys.modules[type(instance).__module__]
            region = module.RegionOfInterest(format=module.RegionOfInterest.Format.KEYPOINT,
                                             keypoint=keypoint_module.NormalizedKeypoint(0.5, 0.5))
            segment = instance.segment
            Renamed.detect = staticmethod(lambda image: segment(image, region))
        landmarker = Renamed
    elif task == "face":
        options = vision.FaceLandmarkerOptions(output_face_blendshapes=True,
                                               output_facial_transformation_matrixes=True, **common)
        landmarker = vision.FaceLandmarker.create_from_options(options)
    elif task == "hand":
        landmarker = vision.HandLandmarker.create_from_options(vision.HandLandmarkerOptions(**common))
    elif task == "classify":
        classifier = vision.ImageClassifier.create_from_options(vision.ImageClassifierOptions(**common))
        class Renamed:
            detect = classifier.classify
            detect_for_video = classifier.classify_for_video
            detect_async = classifier.classify_async
            close = classifier.close
        landmarker = Renamed
    elif task == "object":
        detector = vision.ObjectDetector.create_from_options(vision.ObjectDetectorOptions(**common))
        class Renamed:
            detect = detector.detect
            detect_for_video = detector.detect_for_video
            detect_async = detector.detect_async
            close = detector.close
        landmarker = Renamed
    elif task == "gesture":
        recognizer = vision.GestureRecognizer.create_from_options(vision.GestureRecognizerOptions(**common))
        # The same three calls under the landmarkers' names, so the loops below serve every task.
        class Renamed:
            detect = recognizer.recognize
            detect_for_video = recognizer.recognize_for_video
            detect_async = recognizer.recognize_async
            close = recognizer.close
        landmarker = Renamed
    else:
        # "pose-masks": bench pose --segmentation-masks on.
        landmarker = vision.PoseLandmarker.create_from_options(
            vision.PoseLandmarkerOptions(output_segmentation_masks=task == "pose-masks", **common))
    timestamp = 0
    if mode == "image":
        for _ in range(3):
            landmarker.detect(images[0])
    print(f"ready {mp.__version__}", flush=True)
    timed_cpu, timed_wall = 0.0, 0.0
    for line in sys.stdin:
        if line.strip() == "cpu":
            print(f"{timed_cpu:.4f} {timed_wall:.4f}", flush=True)
            continue
        if mode == "live":
            fields = line.split()
            seconds = float(fields[0])
            scene_start = float(fields[1]) if len(fields) > 1 else 0.0
            delivered[0] = 0
            done.clear()
            submitted = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                timestamp += 1
                last[0] = timestamp
                answered.clear()
                landmarker.detect_async(images[scene_frame(scene_start + time.perf_counter() - start, len(images), fps)], timestamp)
                submitted += 1
                # The next frame goes in when the last result is out: MediaPipe's throughput with nothing dropped.
                # Fed a frame every millisecond, MediaPipe 0.10.14 hangs for good in detect_async once it has to
                # drop frames (face: google-ai-edge/mediapipe#5466, reproduced here with frames 5 ms apart; hand and
                # pose on the real-time scene: no reply in minutes), or queues them instead of dropping and works
                # through them for seconds after the last call (gesture) — on a core the bench's next turn of ours
                # would share.
                answered.wait(timeout=1.0)
            # The last frame may have been dropped; then no result carries its timestamp.
            done.wait(timeout=1.0)
            print(f"{submitted} {delivered[0]} {last_delivery[0] - start:.4f}", flush=True)
            continue
        start_index, n = map(int, line.split())
        samples = []
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for i in range(start_index, start_index + n):
            image = images[i % len(images)]
            t0 = time.perf_counter()
            if mode == "image":
                landmarker.detect(image)
            else:
                timestamp = max(timestamp + 1, round(i * 1000 / fps))
                landmarker.detect_for_video(image, timestamp)
            samples.append((time.perf_counter() - t0) * 1000)
        timed_cpu += time.process_time() - cpu0
        timed_wall += time.perf_counter() - wall0
        print(" ".join(f"{s:.4f}" for s in samples), flush=True)
    landmarker.close()


if __name__ == "__main__":
    main()
