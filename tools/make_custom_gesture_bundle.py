#!/usr/bin/env python3
"""A small custom gesture classifier, made the way MediaPipe Model Maker makes one, as a test fixture.

MediaPipe's gesture graph (hand_gesture_recognizer_graph.cc, kCustomGestureClassifierTFLiteName) runs a
`custom_gesture_classifier.tflite` found inside hand_gesture_recognizer.task beside the canned classifier, on
the same [1,128] gesture embedding, and CombinedPredictionCalculator puts the custom classifier's answer first.
Model Maker (mediapipe_model_maker.gesture_recognizer) trains such a classifier and bundles it. This script
makes one from what ../shared holds, without TensorFlow or Model Maker:

1. Samples: the shared hand images (and their mirror images) and every frame of hand_gesture_fist_thumbsup.mp4.
   MediaPipe 0.10.14's GestureRecognizer (the shared gesture_recognizer.task, IMAGE mode, numHands 2) gives for
   each hand the landmarks, world landmarks, handedness and its canned gesture.
2. The embedder's three inputs are made from them as the graph makes them (LandmarksToMatrixCalculator with
   object normalization, origin 0, IMAGE_SIZE and a NORM_RECT of rotation 0; HandednessToMatrixCalculator), and
   LiteRT (the other venv, run as a child process) runs gesture_embedder.tflite on them, and the canned
   classifier too: its top label must equal MediaPipe's canned gesture, which checks the inputs.
3. Labels, distinct from the canned names except the background "None" that CombinedPredictionCalculator
   needs: Closed_Fist -> fist, Thumb_Up -> thumb, Open_Palm -> open, anything else -> None.
4. The classifier is Model Maker's default head (layer_widths []): BatchNormalization -> ReLU -> Dropout ->
   Dense(N, softmax). Batch normalization at inference is x * scale + shift, taken here from the training
   embeddings' mean and variance; the dense layer is softmax regression trained with numpy. It is written as
   the TFLite graph TFLite's converter makes of that Keras model (and of the canned classifier): MUL, ADD with
   fused RELU, FULLY_CONNECTED, SOFTMAX, built with the TFLite schema's object API, and then given metadata by
   MediaPipe's own metadata writer, called exactly as Model Maker's metadata_writer.py calls it (name
   HandGestureRecognition, feature input "embedding", classification output "scores" with labels.txt and
   ScoreThresholdingOptions global_score_threshold 0.5).
5. The classifier is bundled (in /tmp only: the bundle would hold Google's models) with
   model_asset_bundle_utils as Model Maker bundles it, MediaPipe runs the bundle on the shared hand images,
   pose1.jpg (no hand) and every 5th clip frame, and its results are written as the reference. Each hand's
   custom and canned scores from LiteRT are kept beside MediaPipe's answer, with the path
   CombinedPredictionCalculator takes, and every answer is checked against that path.

Writes Tests/Fixtures/custom_gesture_classifier.tflite (its labels packed inside, as Model Maker packs them) and
Tests/Fixtures/custom_gesture_reference.json.

Usage (from the repository): .cache/mediapipe/bin/python tools/make_custom_gesture_bundle.py
        [--shared ../shared] [--litert-python .cache/venv/bin/python] [--out Tests/Fixtures]
"""
import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

LABELS = ["None", "fist", "thumb", "open"]
CANNED_TO_CUSTOM = {"Closed_Fist": "fist", "Thumb_Up": "thumb", "Open_Palm": "open"}
SCORE_THRESHOLD = 0.5  # Model Maker's export_model default
BN_EPSILON = 1e-3  # Keras BatchNormalization's default
CLIP = "hand_gesture_fist_thumbsup.mp4"
IMAGES = ["hand_two_palms.png", "hand_f5547.jpg", "hand_standing.png", "hand_2hands.png"]
REFERENCE_IMAGES = IMAGES + ["pose1.jpg"]
REFERENCE_FRAME_STEP = 5


# ---------------------------------------------------------------------------------------------------------------
# LiteRT child process: runs in the venv that has ai_edge_litert.

def litert_main(request_path, reply_path):
    from ai_edge_litert.interpreter import Interpreter
    request = np.load(request_path, allow_pickle=False)
    models = json.loads(str(request["models"]))
    reply = {}

    def run(content, feeds):
        interpreter = Interpreter(model_content=content)
        interpreter.allocate_tensors()
        by_name = {d["name"]: d for d in interpreter.get_input_details()}
        n = len(next(iter(feeds.values())))
        out = interpreter.get_output_details()[0]
        rows = []
        for i in range(n):
            for name, values in feeds.items():
                interpreter.set_tensor(by_name[name]["index"], values[i:i + 1])
            interpreter.invoke()
            rows.append(interpreter.get_tensor(out["index"])[0].copy())
        return np.array(rows, dtype=np.float32)

    embeddings = run(open(models["embedder"], "rb").read(),
                     {"hand": request["hand"], "handedness": request["handedness"],
                      "world_hand": request["world_hand"]})
    reply["embedding"] = embeddings
    for key in ("canned", "custom"):
        if key in models:
            content = open(models[key], "rb").read()
            interpreter = Interpreter(model_content=content)
            name = interpreter.get_input_details()[0]["name"]
            reply[key] = run(content, {name: embeddings})
    np.savez(reply_path, **reply)


def litert(python, tmp, models, inputs):
    request, reply = os.path.join(tmp, "request.npz"), os.path.join(tmp, "reply.npz")
    np.savez(request, models=json.dumps(models), **inputs)
    subprocess.run([python, os.path.abspath(__file__), "--litert-child", request, reply], check=True)
    return dict(np.load(reply))


# ---------------------------------------------------------------------------------------------------------------
# Samples and MediaPipe.

def read_image(path):
    import cv2
    bgr = cv2.imread(path, cv2.IMREAD_COLOR)
    return np.ascontiguousarray(bgr[:, :, ::-1])


def clip_frames(path):
    import clip_frames as shared_clip
    return [np.ascontiguousarray(f) for f in shared_clip.decode(path)[0]]


def recognizer(model_path, custom_options=None):
    from mediapipe.tasks import python as mpt
    from mediapipe.tasks.python import vision
    from mediapipe.tasks.python.components.processors import classifier_options
    extra = {}
    if custom_options:
        extra["custom_gesture_classifier_options"] = classifier_options.ClassifierOptions(**custom_options)
    return vision.GestureRecognizer.create_from_options(vision.GestureRecognizerOptions(
        base_options=mpt.BaseOptions(model_asset_path=model_path),
        running_mode=vision.RunningMode.IMAGE, num_hands=2, **extra))


def recognize(task, rgb):
    import mediapipe as mp
    return task.recognize(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb))


def cats(categories):
    return [{"index": c.index, "score": c.score, "categoryName": c.category_name, "displayName": c.display_name}
            for c in categories]


def lm(points, world=False):
    out = []
    for p in points:
        d = {"x": p.x, "y": p.y, "z": p.z}
        if not world:
            d["visibility"], d["presence"] = p.visibility, p.presence
        out.append(d)
    return out


def result_json(r):
    return {"handedness": [cats(h) for h in r.handedness],
            "landmarks": [lm(h) for h in r.hand_landmarks],
            "worldLandmarks": [lm(h, True) for h in r.hand_world_landmarks],
            "gestures": [cats(g) for g in r.gestures]}


# ---------------------------------------------------------------------------------------------------------------
# The embedder's inputs, as hand_gesture_recognizer_graph.cc makes them.

F32 = np.float32


def normalize_object(points):
    """NormalizeObject with origin_offset 0 (float arithmetic; max starts at FLT_MIN as in the C++)."""
    p = (points - points[0]).astype(F32)
    max_x = max(F32(np.finfo(F32).tiny), p[:, 0].max())
    max_y = max(F32(np.finfo(F32).tiny), p[:, 1].max())
    scale = F32(max(F32(max_x - p[:, 0].min()), F32(max_y - p[:, 1].min())) + F32(1e-5))
    return (p / scale).astype(F32)


def rotate_zero(points):
    """RotateLandmarks with rotation 0 (the NORM_RECT of an image without rotation): x - 0.5 in double, stored as
    float, then x * cos - y * sin + 0.5 with cos 1, sin -0."""
    out = points.copy()
    for axis in (0, 1):
        v = (points[:, axis].astype(np.float64) - 0.5).astype(F32)
        out[:, axis] = (v.astype(np.float64) + 0.5).astype(F32)
    return out


def embedder_inputs(landmarks, world, handedness, width, height):
    image = np.array([[p.x, p.y, p.z] for p in landmarks], dtype=F32)
    max_dim = F32(max(width, height))
    sx, sy = F32(width) / max_dim, F32(height) / max_dim
    aspect = image.copy()
    aspect[:, 0] = ((image[:, 0].astype(np.float64) - 0.5) * sx + 0.5).astype(F32)
    aspect[:, 1] = ((image[:, 1].astype(np.float64) - 0.5) * sy + 0.5).astype(F32)
    hand = normalize_object(rotate_zero(aspect))
    world_pts = np.array([[p.x, p.y, p.z] for p in world], dtype=F32)
    world_hand = normalize_object(rotate_zero(world_pts))
    best = max(handedness, key=lambda c: c.score)
    right = best.score if best.category_name.lower() == "right" else F32(1) - F32(best.score)
    return hand, np.array([right], dtype=F32), world_hand


# ---------------------------------------------------------------------------------------------------------------
# Training and the TFLite model.

def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def train(embeddings, targets, classes):
    mean = embeddings.mean(axis=0)
    var = embeddings.var(axis=0)
    scale = (1.0 / np.sqrt(var + BN_EPSILON)).astype(F32)
    shift = (-mean * scale).astype(F32)
    features = np.maximum(embeddings * scale + shift, 0).astype(np.float64)
    counts = np.bincount(targets, minlength=classes)
    sample_weight = (len(targets) / (classes * np.maximum(counts, 1)))[targets]
    onehot = np.eye(classes)[targets]
    w = np.zeros((classes, features.shape[1]))
    b = np.zeros(classes)
    l2, rate = 1e-3, 0.5
    for _ in range(3000):
        p = softmax(features @ w.T + b)
        g = (p - onehot) * sample_weight[:, None] / len(targets)
        w -= rate * (g.T @ features + l2 * w)
        b -= rate * g.sum(axis=0)
    return scale, shift, w.astype(F32), b.astype(F32)


def classifier_tflite(scale, shift, weights, bias):
    import flatbuffers
    from mediapipe.tasks.metadata import schema_py_generated as S
    classes = len(bias)

    model = S.ModelT()
    model.version = 3
    model.description = b"custom gesture classifier test fixture (tools/make_custom_gesture_bundle.py)"
    model.buffers = []

    def buffer(array=None):
        b = S.BufferT()
        if array is not None:
            b.data = np.frombuffer(np.ascontiguousarray(array, dtype="<f4").tobytes(), dtype=np.uint8)
        model.buffers.append(b)
        return len(model.buffers) - 1

    buffer()  # buffer 0: empty, by convention
    graph = S.SubGraphT()
    graph.name = b"main"
    graph.tensors = []

    def tensor(name, shape, signature=None, data=None):
        t = S.TensorT()
        t.name, t.shape, t.type = name.encode(), list(shape), S.TensorType.FLOAT32
        if signature is not None:
            t.shapeSignature = list(signature)
        t.buffer = buffer(data)
        graph.tensors.append(t)
        return len(graph.tensors) - 1

    x = tensor("hand_embedding", [1, 128], [-1, 128])
    mul_c = tensor("model/batch_normalization/batchnorm/mul", [128], data=scale)
    add_c = tensor("model/batch_normalization/batchnorm/sub", [128], data=shift)
    fc_w = tensor("model/custom_gesture_recognizer_out/MatMul", [classes, 128], data=weights)
    fc_b = tensor("model/custom_gesture_recognizer_out/BiasAdd/ReadVariableOp", [classes], data=bias)
    mul_o = tensor("model/batch_normalization/batchnorm/mul_1", [1, 128], [-1, 128])
    relu_o = tensor("model/re_lu/Relu;model/batch_normalization/batchnorm/add_1", [1, 128], [-1, 128])
    logits = tensor("model/custom_gesture_recognizer_out/MatMul;model/custom_gesture_recognizer_out/BiasAdd",
                    [1, classes], [-1, classes])
    out = tensor("Identity", [1, classes], [-1, classes])
    graph.inputs, graph.outputs = [x], [out]

    model.operatorCodes = []
    for code in (S.BuiltinOperator.MUL, S.BuiltinOperator.ADD, S.BuiltinOperator.FULLY_CONNECTED,
                 S.BuiltinOperator.SOFTMAX):
        c = S.OperatorCodeT()
        c.builtinCode = c.deprecatedBuiltinCode = code
        c.version = 1
        model.operatorCodes.append(c)

    def op(code, inputs, outputs, options_type, options):
        o = S.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = code, inputs, outputs
        o.builtinOptionsType, o.builtinOptions = options_type, options
        return o

    mul = S.MulOptionsT()
    mul.fusedActivationFunction = S.ActivationFunctionType.NONE
    add = S.AddOptionsT()
    add.fusedActivationFunction = S.ActivationFunctionType.RELU
    fc = S.FullyConnectedOptionsT()
    fc.fusedActivationFunction = S.ActivationFunctionType.NONE
    fc.weightsFormat = S.FullyConnectedOptionsWeightsFormat.DEFAULT
    fc.keepNumDims = False
    sm = S.SoftmaxOptionsT()
    sm.beta = 1.0
    graph.operators = [
        op(0, [x, mul_c], [mul_o], S.BuiltinOptions.MulOptions, mul),
        op(1, [mul_o, add_c], [relu_o], S.BuiltinOptions.AddOptions, add),
        op(2, [relu_o, fc_w, fc_b], [logits], S.BuiltinOptions.FullyConnectedOptions, fc),
        op(3, [logits], [out], S.BuiltinOptions.SoftmaxOptions, sm),
    ]
    model.subgraphs = [graph]
    builder = flatbuffers.Builder(4096)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def with_metadata(content):
    """MediaPipe's metadata writer, called as Model Maker's gesture_recognizer/metadata_writer.py calls it."""
    from mediapipe.tasks.python.metadata.metadata_writers import metadata_writer
    writer = metadata_writer.MetadataWriter.create(bytearray(content))
    writer.add_general_info("HandGestureRecognition", "Recognize the hand gesture in the image.")
    writer.add_feature_input(name="embedding", description="Embedding feature vector from gesture embedder.")
    writer.add_classification_output(
        labels=metadata_writer.Labels().add(LABELS),
        score_thresholding=metadata_writer.ScoreThresholding(global_score_threshold=SCORE_THRESHOLD),
        name="scores", description="Hand gesture category scores.")
    # The populator zips labels.txt (zipfile.writestr) with the current time: a fixed one keeps the fixture's
    # bytes reproducible.
    import time
    from unittest import mock
    with mock.patch("time.time", return_value=time.mktime((2024, 1, 1, 0, 0, 0, 0, 0, -1))):
        return writer.populate()


def bundle(shared_task, custom, path):
    """shared gesture_recognizer.task with custom_gesture_classifier.tflite added to hand_gesture_recognizer.task,
    written with model_asset_bundle_utils as Model Maker writes its bundle."""
    from mediapipe.tasks.python.metadata.metadata_writers import model_asset_bundle_utils as mabu
    with zipfile.ZipFile(shared_task) as z:
        landmarker = z.read("hand_landmarker.task")
        gesture = z.read("hand_gesture_recognizer.task")
    with zipfile.ZipFile(io.BytesIO(gesture)) as z:
        members = {name: z.read(name) for name in z.namelist()}
    members["custom_gesture_classifier.tflite"] = custom
    inner = path + ".hand_gesture_recognizer.task"
    mabu.create_model_asset_bundle(members, inner)
    mabu.create_model_asset_bundle({"hand_landmarker.task": landmarker,
                                    "hand_gesture_recognizer.task": open(inner, "rb").read()}, path)
    return members


# ---------------------------------------------------------------------------------------------------------------

def combined(custom_scores, canned_scores, canned_labels, threshold=SCORE_THRESHOLD, denylist=()):
    """CombinedPredictionCalculator over [custom, canned]: the custom list as TensorsToClassificationCalculator
    makes it (denied labels and scores below `threshold` dropped; the canned classifier's metadata has no threshold),
    each list's first highest score, the first non-None winner, else the first list's None. Returns
    (label, score, path)."""
    custom = [(LABELS[i], s) for i, s in enumerate(custom_scores) if s >= threshold and LABELS[i] not in denylist]
    canned = [(canned_labels[i], s) for i, s in enumerate(canned_scores)]
    first = None
    for name, entries in (("custom", custom), ("canned", canned)):
        if not entries:
            continue
        label, score = "", 0.0  # GetMaxScoringClassification: the first strictly greater score above 0
        for e in sorted(entries, key=lambda e: -e[1]):  # the calculator sorts by descending score
            if e[1] > score:
                label, score = e
        if label != "None":
            return label, float(score), name
        if first is None:
            first = (label, float(score), name + "-background")
    return first


# Option variants run on the reference samples besides MediaPipe's defaults: (name, custom ClassifierOptions
# arguments, threshold and denylist for `combined`).
VARIANTS = [
    ("customScoreThreshold0.95", {"score_threshold": 0.95}, 0.95, ()),
    ("customDenylistThumb", {"category_denylist": ["thumb"]}, SCORE_THRESHOLD, ("thumb",)),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
    ap.add_argument("--litert-python", default=os.path.join(os.path.dirname(__file__), "..", ".cache", "venv", "bin",
                                                          "python"))
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures"))
    ap.add_argument("--litert-child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.litert_child:
        return litert_main(*args.litert_child)

    import mediapipe as mp
    shared_task = os.path.join(args.shared, "models", "gesture_recognizer.task")
    tmp = tempfile.mkdtemp(prefix="custom_gesture_")
    with zipfile.ZipFile(shared_task) as z:
        with zipfile.ZipFile(io.BytesIO(z.read("hand_gesture_recognizer.task"))) as g:
            for name in ("gesture_embedder.tflite", "canned_gesture_classifier.tflite"):
                open(os.path.join(tmp, name), "wb").write(g.read(name))
            with zipfile.ZipFile(io.BytesIO(g.read("canned_gesture_classifier.tflite"))) as c:
                canned_labels = c.read("labels.txt").decode().split("\n")
    models = {"embedder": os.path.join(tmp, "gesture_embedder.tflite"),
              "canned": os.path.join(tmp, "canned_gesture_classifier.tflite")}

    # 1. Samples: MediaPipe's hands and canned gestures.
    images = {}
    for name in IMAGES:
        rgb = read_image(os.path.join(args.shared, "images", name))
        images[name] = rgb
        images[name + "#mirrored"] = np.ascontiguousarray(rgb[:, ::-1])
    images["pose1.jpg"] = read_image(os.path.join(args.shared, "images", "pose1.jpg"))
    for i, frame in enumerate(clip_frames(os.path.join(args.shared, "videos", CLIP))):
        images[f"{CLIP}#{i}"] = frame

    task = recognizer(shared_task)
    hands = []  # (sample name, hand index, canned label, canned score, inputs)
    canned_results = {}
    for name, rgb in images.items():
        r = recognize(task, rgb)
        canned_results[name] = r
        h, w = rgb.shape[:2]
        for k in range(len(r.hand_landmarks)):
            hands.append((name, k, r.gestures[k][0].category_name, r.gestures[k][0].score,
                          embedder_inputs(r.hand_landmarks[k], r.hand_world_landmarks[k], r.handedness[k], w, h)))
    task.close()
    print(f"{len(images)} samples, {len(hands)} hands", file=sys.stderr)

    # 2. Embeddings and canned scores from LiteRT; the canned answer must be MediaPipe's.
    inputs = {"hand": np.stack([x[4][0] for x in hands]), "handedness": np.stack([x[4][1][None] for x in hands]),
              "world_hand": np.stack([x[4][2] for x in hands])}
    inputs["handedness"] = inputs["handedness"].reshape(-1, 1)
    reply = litert(args.litert_python, tmp, models, inputs)
    embeddings, canned = reply["embedding"], reply["canned"]
    worst = 0.0
    for (name, k, label, score, _), scores in zip(hands, canned):
        top = int(np.argmax(scores))
        assert canned_labels[top] == label, (name, k, label, canned_labels[top], scores)
        worst = max(worst, abs(float(scores[top]) - score))
    print(f"canned classifier on our embedder inputs: every label MediaPipe's, scores within {worst:.2e}",
          file=sys.stderr)

    # 3-4. Train and write the classifier.
    targets = np.array([LABELS.index(CANNED_TO_CUSTOM.get(x[2], "None")) for x in hands])
    print("training samples per label:", dict(zip(LABELS, np.bincount(targets, minlength=len(LABELS)).tolist())),
          file=sys.stderr)
    scale, shift, weights, bias = train(embeddings, targets, len(LABELS))
    plain = classifier_tflite(scale, shift, weights, bias)
    content, metadata_json = with_metadata(plain)
    content = bytes(content)
    os.makedirs(args.out, exist_ok=True)
    tflite_path = os.path.join(args.out, "custom_gesture_classifier.tflite")
    open(tflite_path, "wb").write(content)
    models["custom"] = tflite_path
    reply = litert(args.litert_python, tmp, models, inputs)
    custom = reply["custom"]
    numpy_scores = softmax(np.maximum(embeddings * scale + shift, 0) @ weights.T.astype(np.float64) + bias)
    print(f"LiteRT vs numpy custom scores: {np.abs(custom - numpy_scores).max():.2e}", file=sys.stderr)
    accuracy = float((custom.argmax(axis=1) == targets).mean())
    print(f"training accuracy {accuracy:.3f}; {len(content)} bytes", file=sys.stderr)

    # 5. MediaPipe with the bundle: every sample is checked, the reference samples (and any whose answer comes
    # from the canned list) are kept.
    bundle_path = os.path.join(tmp, "gesture_recognizer_custom.task")
    bundle(shared_task, content, bundle_path)
    by_hand = {(x[0], x[1]): (custom[i], canned[i]) for i, x in enumerate(hands)}

    def run_all(custom_options, threshold, denylist):
        task = recognizer(bundle_path, custom_options)
        out, mismatches, paths = {}, 0, {}
        for name, rgb in images.items():
            r = recognize(task, rgb)
            plain_r = canned_results[name]
            assert len(r.hand_landmarks) == len(plain_r.hand_landmarks), name
            notes = []
            for k in range(len(r.hand_landmarks)):
                assert r.hand_landmarks[k][0].x == plain_r.hand_landmarks[k][0].x, name  # the same hands
                custom_scores, canned_scores = by_hand[(name, k)]
                label, score, path = combined(custom_scores, canned_scores, canned_labels, threshold, denylist)
                got = r.gestures[k][0]
                if got.category_name != label or abs(got.score - score) > 1e-5:
                    mismatches += 1
                    print(f"MISMATCH {name} hand {k}: MediaPipe {got.category_name} {got.score}, expected {label} "
                          f"{score}", file=sys.stderr)
                paths[path] = paths.get(path, 0) + 1
                notes.append({"customScores": dict(zip(LABELS, map(float, custom_scores))),
                              "cannedScores": dict(zip(canned_labels, map(float, canned_scores))),
                              "winner": path})
            out[name] = (r, notes)
        task.close()
        print(f"MediaPipe with the custom bundle, custom options {custom_options}: {mismatches} answers differ from "
              f"CombinedPredictionCalculator over LiteRT's scores; winners {paths}", file=sys.stderr)
        if mismatches:
            raise SystemExit("MediaPipe's answers do not follow the expected combination")
        return out

    default = run_all(None, SCORE_THRESHOLD, ())
    variants = [(v, run_all(v[1], v[2], v[3])) for v in VARIANTS]

    def kept(name):
        frame = int(name.split("#")[1]) if name.startswith(CLIP + "#") else None
        return (name in REFERENCE_IMAGES or (frame is not None and frame % REFERENCE_FRAME_STEP == 0)
                or any(n["winner"].startswith("canned") for n in default[name][1]))

    names = [n for n in images if kept(n)]
    results = []
    for name in names:
        h, w = images[name].shape[:2]
        r, notes = default[name]
        results.append({"image": name, "width": w, "height": h, "timestampMs": None, "result": result_json(r),
                        "liteRT": notes})
    variant_json = []
    for (vname, options, _, _), out in variants:
        variant_json.append({"name": vname, "customGestureClassifierOptions": options, "results": [
            {"image": name, "gestures": [cats(g) for g in out[name][0].gestures],
             "winners": [n["winner"] for n in out[name][1]]} for name in names]})

    reference = {
        "task": "gesture",
        "model": "gesture_recognizer.task + custom_gesture_classifier.tflite",
        "runningMode": "IMAGE",
        "numHands": 2,
        "mediapipeVersion": mp.__version__,
        "note": ("gesture_recognizer.task from shared/models with Tests/Fixtures/custom_gesture_classifier.tflite added "
                 "to hand_gesture_recognizer.task as custom_gesture_classifier.tflite (canned classifier kept). Clip "
                 f"frames ({CLIP}#N) are decoded by ffmpeg to rgb24 and each run alone in IMAGE mode. 'liteRT' has, "
                 "per hand, LiteRT's custom and canned softmax scores for MediaPipe's own landmarks (the embedder "
                 "inputs made as hand_gesture_recognizer_graph.cc makes them) and which list "
                 "CombinedPredictionCalculator takes the answer from: custom (custom top label not None, its score "
                 f">= the metadata threshold {SCORE_THRESHOLD}), canned (custom None or every custom score below the "
                 "threshold, canned top not None), custom-background / canned-background (no list has a non-None "
                 "winner: the first list's None). 'variants' are the same samples (same hands, landmarks and "
                 "handedness) with other custom gesture classifier options (MediaPipe Python ClassifierOptions "
                 "field names): their gestures and winners. Samples: the shared hand images, pose1.jpg, every "
                 f"{REFERENCE_FRAME_STEP}th clip frame and any frame whose answer comes from the canned classifier. "
                 "Generated by tools/make_custom_gesture_bundle.py."),
        "labels": LABELS,
        "scoreThreshold": SCORE_THRESHOLD,
        "results": results,
        "variants": variant_json,
    }
    with open(os.path.join(args.out, "custom_gesture_reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")
    with open(os.path.join(tmp, "metadata.json"), "w") as f:
        f.write(metadata_json)
    print(f"wrote {tflite_path}, custom_gesture_reference.json; bundle and metadata.json "
          f"left in {tmp}", file=sys.stderr)


if __name__ == "__main__":
    main()
