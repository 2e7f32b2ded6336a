#!/usr/bin/env python3
"""MediaPipe's Object Detector on EfficientDet-Lite0 (its default model, no post-processing operator in the model) over
the shared photos, a clip, turned buffers and EXIF files -> Tests/Fixtures/efficientdet_reference.json.zip (issue #43; the JSON, deflated: tools/fixture_zip.py),
and a numpy reference of MediaPipe's out-of-model post-processing that reproduces those results from LiteRT's raw
outputs (`--check`).

    .cache/mediapipe-1.2.3/bin/python tools/mediapipe_efficientdet_goldens.py [--shared ../shared] \
        [--mp01014 .cache/mediapipe/bin/python] [--litert .cache/venv/bin/python] \
        [--out Tests/Fixtures/efficientdet_reference.json.zip]
    .cache/mediapipe-1.2.3/bin/python tools/mediapipe_efficientdet_goldens.py --check [--fixture ...]

Runs under MediaPipe 1.2.3 (the truth) and calls itself under 0.10.14 (`--worker`) on the same jobs, then under the
LiteRT venv (`--litert-worker`: OpenCV 4.10 preprocessing, LiteRT's raw outputs, the numpy post-processing below).
About 4 minutes on two cores (the numpy NMS and the two std::sort ports are plain Python). Deterministic. Inputs are
rebuilt from ../shared as tools/mediapipe_task_common.py says (photos by create_from_file, np.rot90 buffers,
EXIF-tagged JPEGs, ffmpeg frames). The written spec of the post-processing is outside the repository
(briefs/efficientdet-postprocessing.md); the numpy functions below are that spec, executable.

Sets (an entry's "set"; options camelCase as our Swift options, {} = MediaPipe's defaults: maxResults -1,
scoreThreshold 0.0, minSuppressionThreshold 0.3 (not settable from Python), no allow/deny list):
- "default": IMAGE mode, {} on every PHOTOS photo. Every box of the 19,206 anchors whose best score is >= 0.0
  survives to the NMS, so these results hold 1,300-2,500 detections each, down to score 1/256: they pin the NMS's
  tie order (see "sortTies" below).
- "top5": {maxResults 5, scoreThreshold 0.3}; "allow": {categoryAllowlist [person, dog]};
  "deny": {categoryDenylist [person]}; "low": {scoreThreshold 0.1, maxResults 25}; same photos.
- "video": VIDEO mode, {scoreThreshold 0.1, maxResults 25}, the first VIDEO_FRAMES frames of
  outdoor_person_dog_sam2.mp4, timestamps from the frame index and fps; image "outdoor_person_dog_sam2.mp4#i".
- "rotated": {scoreThreshold 0.1, maxResults 25} on np.rot90(upright, k), k = 0..3, with rotationDegrees = 90k;
  width/height are the turned buffer's and boxes are in its pixel frame.
- "exif": {scoreThreshold 0.1, maxResults 25} on the JPEG with an APP1 EXIF orientation N = 1..8 inserted after SOI
  (exifSegmentHex); 1.2.3's create_from_file shows the pixels through appliedTransform; 0.10.14 ignores EXIF and is run
  on the buffer 1.2.3 shows (checked by digest).

Entry: {set, runningMode, image, width, height, timestampMs, options, [rot90k, rotationDegrees | exifOrientation,
exifSegmentHex, appliedTransform], result, result_0_10_14, numpyCheck}. A result is
  {"detections": [[originX, originY, width, height, index, score, categoryName, displayName, ...], ...]}
one row per detection, in MediaPipe's order: the box in pixels (ints as MediaPipe gives them), then one
(index, score, categoryName, displayName) quadruple per category (a detection has more than one only when
DetectionsDeduplicateCalculator merged equal pixel boxes). MediaPipe gives index None (the label id is dropped once a
label name is attached) and displayName None (the model has no display-name file) for every category: written as
null. Scores are MediaPipe's float32 values written as the shortest decimal that reads back to the same float32
(they are k/256: the model's scores are dequantized uint8).
`result_0_10_14` is 0.10.14's result in full for the bounded sets (maxResults set) and, for the unbounded ones
("default", "allow", "deny"), {"count", "sameAs123", "firstDifference"} (its rows differ from 1.2.3's only by the
order of equal scores, see below; the numpy check reproduces them all, "numpyCheck" in the header).
`numpyCheck` (per entry): "exact" when the numpy reference below, run on LiteRT's raw outputs for the same pixels,
gives the same rows (every field, scores equal as float32), else the first differing row of each side.

The header's "spread" compares 1.2.3 with 0.10.14: entries with equal rows, the entries that differ and where; and
"sortTies": the whole difference is std::sort's order of equal scores in NonMaxSuppressionCalculator (libc++'s in
1.2.3's libmediapipe.so, libstdc++'s in 0.10.14): the numpy reference reproduces each version exactly with a port
of that version's std::sort (libcxx_sort / libstdcxx_sort below). "preprocessing": how many "default" entries the
numpy reference reproduces from each candidate preprocessing (stretch by warpPerspective = MediaPipe's
ImageToTensorCalculator without keep_aspect_ratio; letterbox; cv2.resize).
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_zip  # noqa: E402
import mediapipe_task_common as common  # noqa: E402

MODEL = "efficientdet_lite0.tflite"
PHOTOS = ["obj_cat.jpg", "obj_kitchen_empty.jpg", "obj_kitchen_people.jpg", "obj_street_people.jpg",
          "coral_bird.png", "coral_cat.png", "pose1.jpg", "multi1.jpg"]
OPTION_SETS = [("default", {}), ("top5", {"maxResults": 5, "scoreThreshold": 0.3}),
               ("allow", {"categoryAllowlist": ["person", "dog"]}), ("deny", {"categoryDenylist": ["person"]}),
               ("low", {"scoreThreshold": 0.1, "maxResults": 25})]
LOW = dict(OPTION_SETS)["low"]
CLIP = "outdoor_person_dog_sam2.mp4"
VIDEO_FRAMES = 30
ROTATED = ["obj_street_people.jpg"]
EXIF = ["obj_street_people.jpg"]
PY_OPTIONS = {"maxResults": "max_results", "scoreThreshold": "score_threshold",
              "categoryAllowlist": "category_allowlist", "categoryDenylist": "category_denylist"}
UNBOUNDED = {"default", "allow", "deny"}
F32 = np.float32


# ---------------------------------------------------------------- the model's metadata (1.2.3's generated readers)

def model_metadata(path):
    """Decoding options, anchors (x_center, y_center, width, height) and labels, read as MediaPipe's
    detection_postprocessing_graph.cc reads them: custom metadata "DETECTOR_METADATA" (object_detector_metadata_schema
    .fbs), the TENSOR_AXIS_LABELS file of the output tensor named "score", the BoundingBoxProperties of "location"."""
    from mediapipe.tasks.metadata import metadata_schema_py_generated as msc
    from mediapipe.tasks.metadata import object_detector_metadata_schema_py_generated as od
    from mediapipe.tasks.metadata import schema_py_generated as tfl
    import zipfile
    import io
    with open(path, "rb") as f:
        buf = f.read()
    model = tfl.Model.GetRootAsModel(buf, 0)
    meta = None
    for i in range(model.MetadataLength()):
        if model.Metadata(i).Name() == b"TFLITE_METADATA":
            meta = msc.ModelMetadata.GetRootAsModelMetadata(model.Buffers(model.Metadata(i).Buffer()).DataAsNumpy().tobytes(), 0)
    sub = meta.SubgraphMetadata(0)
    outputs = [sub.OutputTensorMetadata(i) for i in range(sub.OutputTensorMetadataLength())]
    names = [t.Name().decode() for t in outputs]
    location = outputs[names.index("location")]
    props = msc.BoundingBoxProperties()
    props.Init(location.Content().ContentProperties().Bytes, location.Content().ContentProperties().Pos)
    score = outputs[names.index("score")]
    label_file = [score.AssociatedFiles(i).Name().decode() for i in range(score.AssociatedFilesLength())
                  if score.AssociatedFiles(i).Type() == msc.AssociatedFileType.TENSOR_AXIS_LABELS][0]
    labels = zipfile.ZipFile(io.BytesIO(buf)).read(label_file).decode().splitlines()
    process_units = [score.ProcessUnits(i).OptionsType() for i in range(score.ProcessUnitsLength())]
    custom = {sub.CustomMetadata(i).Name().decode(): sub.CustomMetadata(i).DataAsNumpy().tobytes()
              for i in range(sub.CustomMetadataLength())}
    det = od.ObjectDetectorOptions.GetRootAsObjectDetectorOptions(custom["DETECTOR_METADATA"], 0)
    t = det.TensorsDecodingOptions()
    fixed = det.SsdAnchorsOptions().FixedAnchorsSchema()
    anchors = np.array([[fixed.Anchors(i).XCenter(), fixed.Anchors(i).YCenter(), fixed.Anchors(i).Width(),
                         fixed.Anchors(i).Height()] for i in range(fixed.AnchorsLength())], dtype=F32)
    decoding = {"numClasses": t.NumClasses(), "numBoxes": t.NumBoxes(), "numCoords": t.NumCoords(),
                "keypointCoordOffset": t.KeypointCoordOffset(), "numKeypoints": t.NumKeypoints(),
                "numValuesPerKeypoint": t.NumValuesPerKeypoint(), "xScale": t.XScale(), "yScale": t.YScale(),
                "wScale": t.WScale(), "hScale": t.HScale(), "applyExponentialOnBoxSize": bool(t.ApplyExponentialOnBoxSize()),
                "sigmoidScore": bool(t.SigmoidScore())}
    summary = {"outputTensorMetadata": names, "customMetadata": sorted(custom),
               "locationBoundingBox": {"index": [props.Index(i) for i in range(props.IndexLength())],
                                       "type": props.Type(), "coordinateType": props.CoordinateType()},
               "scoreProcessUnits": process_units, "labelFile": label_file, "labelCount": len(labels),
               "unknownLabel": "???", "unknownLabelIndices": [i for i, n in enumerate(labels) if n == "???"],
               "tensorsDecodingOptions": decoding, "anchorCount": len(anchors),
               "anchorsFirst": [[common.f32(v) for v in a] for a in anchors[:4]], "anchorsSha256": common.digest(anchors)}
    return summary, anchors, labels


# ---------------------------------------------------------------- std::sort, as each MediaPipe build links it

def libcxx_sort(a, comp):
    """libc++'s std::sort (libcxx/include/__algorithm/sort.h, the pdqsort-style __introsort: insertion sort under 24,
    ninther over 128, equal-on-left partition when the pivot equals the element before the range, the
    __insertion_sort_incomplete early exit) for a comparator that is not branchless (no bitset partition). 1.2.3's
    libmediapipe.so links libc++ (it carries "libc++abi" and no libstdc++ dependency)."""
    def swap(i, j):
        a[i], a[j] = a[j], a[i]

    def sort3(x, y, z):
        if not comp(a[y], a[x]):
            if not comp(a[z], a[y]):
                return
            swap(y, z)
            if comp(a[y], a[x]):
                swap(x, y)
            return
        if comp(a[z], a[y]):
            swap(x, z)
            return
        swap(x, y)
        if comp(a[z], a[y]):
            swap(y, z)

    def sort4(x1, x2, x3, x4):
        sort3(x1, x2, x3)
        if comp(a[x4], a[x3]):
            swap(x3, x4)
            if comp(a[x3], a[x2]):
                swap(x2, x3)
                if comp(a[x2], a[x1]):
                    swap(x1, x2)

    def sort5(x1, x2, x3, x4, x5):
        sort4(x1, x2, x3, x4)
        if comp(a[x5], a[x4]):
            swap(x4, x5)
            if comp(a[x4], a[x3]):
                swap(x3, x4)
                if comp(a[x3], a[x2]):
                    swap(x2, x3)
                    if comp(a[x2], a[x1]):
                        swap(x1, x2)

    def small(first, last):
        n = last - first
        if n == 2:
            if comp(a[last - 1], a[first]):
                swap(first, last - 1)
        elif n == 3:
            sort3(first, first + 1, last - 1)
        elif n == 4:
            sort4(first, first + 1, first + 2, last - 1)
        elif n == 5:
            sort5(first, first + 1, first + 2, first + 3, last - 1)
        return n <= 5

    def insert(i, j, first, guarded):
        t, k, j = a[i], j, i
        while True:
            a[j] = a[k]
            j = k
            if guarded and j == first:
                break
            k -= 1
            if not comp(t, a[k]):
                break
        a[j] = t

    def insertion_sort(first, last, guarded):
        for i in range(first + 1, last):
            if comp(a[i], a[i - 1]):
                insert(i, i - 1, first, guarded)

    def insertion_sort_incomplete(first, last):
        if small(first, last):
            return True
        j = first + 2
        sort3(first, first + 1, j)
        count = 0
        for i in range(j + 1, last):
            if comp(a[i], a[j]):
                insert(i, j, first, True)
                count += 1
                if count == 8:
                    return i + 1 == last
            j = i
        return True

    def partition_equals_on_right(first, last):
        begin, pivot = first, a[first]
        first += 1
        while comp(a[first], pivot):
            first += 1
        if begin == first - 1:
            while first < last:
                last -= 1
                if comp(a[last], pivot):
                    break
        else:
            last -= 1
            while not comp(a[last], pivot):
                last -= 1
        already = first >= last
        while first < last:
            swap(first, last)
            first += 1
            while comp(a[first], pivot):
                first += 1
            last -= 1
            while not comp(a[last], pivot):
                last -= 1
        pos = first - 1
        if begin != pos:
            a[begin] = a[pos]
        a[pos] = pivot
        return pos, already

    def partition_equals_on_left(first, last):
        begin, pivot = first, a[first]
        first += 1
        if comp(pivot, a[last - 1]):
            while not comp(pivot, a[first]):
                first += 1
        else:
            while first < last and not comp(pivot, a[first]):
                first += 1
        if first < last:
            last -= 1
            while comp(pivot, a[last]):
                last -= 1
        while first < last:
            swap(first, last)
            first += 1
            while not comp(pivot, a[first]):
                first += 1
            last -= 1
            while comp(pivot, a[last]):
                last -= 1
        pos = first - 1
        if begin != pos:
            a[begin] = a[pos]
        a[pos] = pivot
        return first

    def introsort(first, last, depth, leftmost):
        while True:
            length = last - first
            if length <= 1 or small(first, last):
                return
            if length < 24:
                insertion_sort(first, last, leftmost)
                return
            if depth == 0:
                raise NotImplementedError("libc++ heap-sort fallback reached (not ported)")
            depth -= 1
            half = length // 2
            if length > 128:
                sort3(first, first + half, last - 1)
                sort3(first + 1, first + half - 1, last - 2)
                sort3(first + 2, first + half + 1, last - 3)
                sort3(first + half - 1, first + half, first + half + 1)
                swap(first, first + half)
            else:
                sort3(first + half, first, last - 1)
            if not leftmost and not comp(a[first - 1], a[first]):
                first = partition_equals_on_left(first, last)
                continue
            i, already = partition_equals_on_right(first, last)
            if already:
                left_done = insertion_sort_incomplete(first, i)
                if insertion_sort_incomplete(i + 1, last):
                    if left_done:
                        return
                    last = i
                    continue
                if left_done:
                    first = i + 1
                    continue
            introsort(first, i, depth, leftmost)
            leftmost = False
            first = i + 1

    if a:
        introsort(0, len(a), 2 * (len(a).bit_length() - 1), True)


def libstdcxx_sort(a, comp):
    """libstdc++'s std::sort (bits/stl_algo.h: introsort to runs of 16 with median-of-three pivot moved to the first
    element, unguarded partition, then one final insertion sort); 0.10.14's framework bindings link libstdc++.so.6.
    Checked against g++ 12's std::sort on random inputs with many ties."""
    def swap(i, j):
        a[i], a[j] = a[j], a[i]

    def median_to_first(result, x, y, z):
        if comp(a[x], a[y]):
            if comp(a[y], a[z]):
                swap(result, y)
            elif comp(a[x], a[z]):
                swap(result, z)
            else:
                swap(result, x)
        elif comp(a[x], a[z]):
            swap(result, x)
        elif comp(a[y], a[z]):
            swap(result, z)
        else:
            swap(result, y)

    def partition(first, last, pivot):
        while True:
            while comp(a[first], a[pivot]):
                first += 1
            last -= 1
            while comp(a[pivot], a[last]):
                last -= 1
            if not first < last:
                return first
            swap(first, last)
            first += 1

    def loop(first, last, depth):
        while last - first > 16:
            if depth == 0:
                raise NotImplementedError("libstdc++ heap-sort fallback reached (not ported)")
            depth -= 1
            median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
            cut = partition(first + 1, last, first)
            loop(cut, last, depth)
            last = cut

    def linear_insert(last):
        val, prev = a[last], last - 1
        while comp(val, a[prev]):
            a[last] = a[prev]
            last, prev = prev, prev - 1
        a[last] = val

    def insertion_sort(first, last):
        for i in range(first + 1, last):
            if comp(a[i], a[first]):
                val = a[i]
                a[first + 1:i + 1] = a[first:i]
                a[first] = val
            else:
                linear_insert(i)

    n = len(a)
    if n == 0:
        return
    loop(0, n, 2 * (n.bit_length() - 1))
    if n > 16:
        insertion_sort(0, 16)
        for i in range(16, n):
            linear_insert(i)
    else:
        insertion_sort(0, n)


SORTS = {"libc++": libcxx_sort, "libstdc++": libstdcxx_sort}


# ---------------------------------------------------------------- the numpy reference (the spec, executable)

def decode_boxes(raw, anchors, d):
    """TensorsToDetectionsCalculator::DecodeBoxes, box_format YXHW (set by ConfigureOutModelNmsTensorsToDetections
    Calculator), float32 throughout: (ymin, xmin, ymax, xmax) normalized to the 320x320 input."""
    y, x, h, w = (raw[:, i] for i in range(4))
    ax, ay, aw, ah = (anchors[:, i] for i in range(4))
    xc = x / F32(d["xScale"]) * aw + ax
    yc = y / F32(d["yScale"]) * ah + ay
    if d["applyExponentialOnBoxSize"]:
        # std::exp on a float: glibc's expf, correctly rounded here by going through double (the results do not
        # tell the two apart, nor an FMA in the two lines above: see the spec)
        h = np.exp((h / F32(d["hScale"])).astype(np.float64)).astype(F32) * ah
        w = np.exp((w / F32(d["wScale"])).astype(np.float64)).astype(F32) * aw
    else:
        h = h / F32(d["hScale"]) * ah
        w = w / F32(d["wScale"]) * aw
    return yc - h / F32(2), xc - w / F32(2), yc + h / F32(2), xc + w / F32(2)


def allowed_classes(options, labels):
    """GetAllowOrDenyCategoryIndicesIfAny: the first label index of each listed name, unknown names ignored; an
    allowlist whose names are all unknown leaves allow_classes empty, which TensorsToDetectionsCalculator reads as
    'no list' (every class allowed)."""
    allowed = np.ones(len(labels), bool)
    names = options.get("categoryAllowlist") or options.get("categoryDenylist") or []
    indices = sorted({labels.index(n) for n in names if n in labels})
    if options.get("categoryAllowlist") and indices:
        allowed[:] = False
        allowed[indices] = True
    elif options.get("categoryDenylist"):
        allowed[indices] = False
    return allowed


def relative_detections(raw_boxes, raw_scores, anchors, d, options, labels, sort):
    """TensorsToDetections (class = first max over the allowed classes, score >= threshold, no negative or NaN
    size), then NonMaxSuppressionCalculator (DEFAULT = greedy hard NMS, IntersectionOverUnion > 0.3 suppresses,
    candidates in std::sort order of descending score, max_num_detections = maxResults or all). Returns
    [(xmin, ymin, width, height, score, class)] relative to the model input, in output order."""
    ymin, xmin, ymax, xmax = decode_boxes(raw_boxes, anchors, d)
    allowed = allowed_classes(options, labels)
    masked = np.where(allowed[None, :], raw_scores, -np.inf)
    classes = np.argmax(masked, axis=1)  # the first of equal maxima, as the strict '<' in ProcessCPU keeps it
    best = masked[np.arange(len(masked)), classes]
    width, height = xmax - xmin, ymax - ymin
    threshold = F32(options.get("scoreThreshold", 0.0))
    keep = (best >= threshold) & ~(width < 0) & ~(height < 0) & ~np.isnan(width) & ~np.isnan(height)
    index = np.nonzero(keep)[0]
    bx, by, bw, bh = xmin[index], ymin[index], width[index], height[index]
    # Location::GetRelativeBBox -> Rectangle_f(x, y, w, h): max corner = min corner + size, in float
    x0, y0, x1, y1 = bx, by, bx + bw, by + bh
    area = (x1 - x0) * (y1 - y0)
    candidates = [(k, float(best[i])) for k, i in enumerate(index)]
    SORTS[sort](candidates, lambda p, q: p[1] > q[1])  # SortBySecond
    limit = options.get("maxResults", -1)
    limit = limit if limit > -1 else len(candidates)
    kept, threshold_nms = [], F32(0.3)
    for k, _ in candidates:
        if kept:
            r = np.array(kept)
            touching = ~((x1[r] < x0[k]) | (x1[k] < x0[r]) | (y1[r] < y0[k]) | (y1[k] < y0[r]))
            ix0, iy0 = np.maximum(x0[r], x0[k]), np.maximum(y0[r], y0[k])
            ix1, iy1 = np.minimum(x1[r], x1[k]), np.minimum(y1[r], y1[k])
            inter = (ix1 - ix0) * (iy1 - iy0)
            union = area[r] + area[k] - inter  # rect1 = the retained box, rect2 = the candidate
            with np.errstate(all="ignore"):
                similarity = np.where(touching & (union > 0), inter / union, F32(0))
            if np.any(similarity > threshold_nms):
                continue
        kept.append(k)
        if len(kept) >= limit:
            break
    return [(bx[k], by[k], bw[k], bh[k], best[index[k]], int(classes[index[k]])) for k in kept]


def projection_matrix(width, height, degrees):
    """The ROI MediaPipe's vision task API builds for rotation_degrees (BaseVisionTaskApi::ConvertToNormalizedRect,
    ImageToTensor's GetRoi) and GetRotatedSubRectToRectTransformMatrix's float matrix (rows 1-2 used by
    DetectionProjectionCalculator), flip off."""
    rotation = F32(-degrees * math.pi / 180.0)
    nw, nh = F32(1), F32(1)
    if abs(degrees) % 180:
        nw, nh = F32(F32(nh * F32(height)) / F32(width)), F32(F32(nw * F32(width)) / F32(height))
    a, b = F32(nw * F32(width)), F32(nh * F32(height))
    e, f = F32(F32(0.5) * F32(width)), F32(F32(0.5) * F32(height))
    c, s = F32(math.cos(float(rotation))), F32(math.sin(float(rotation)))
    g, h = F32(1) / F32(width), F32(1) / F32(height)
    half = F32(0.5)
    m0 = a * c * g
    m1 = -b * s * g
    m3 = (-half * a * c + half * b * s + e) * g
    m4 = a * s * h
    m5 = b * c * h
    m7 = (-half * b * c - half * a * s + f) * h
    return (m0, m1, m3, m4, m5, m7), (e, f, a, b, float(rotation))


def pixel_rows(relative, width, height, degrees, labels):
    """DetectionProjectionCalculator (corners through the matrix, their bounding box), DetectionTransformation
    Calculator (BoundedValue<int>: float product truncated toward zero, min(v, size), negative -> 0),
    DetectionsDeduplicateCalculator (equal pixel boxes fold their categories into the first), DetectionLabelIdTo
    TextCalculator (label name; no display name; label id dropped -> index None)."""
    (m0, m1, m3, m4, m5, m7), _ = projection_matrix(width, height, degrees)
    rows, seen = [], {}
    for bx, by, bw, bh, score, cls in relative:
        corners = [(bx, by), (bx + bw, by), (bx + bw, by + bh), (bx, by + bh)]
        px = [x * m0 + y * m1 + m3 for x, y in corners]
        py = [x * m4 + y * m5 + m7 for x, y in corners]
        left, top = min(px), min(py)
        w, h = max(px) - left, max(py) - top

        def bounded(v, upper):
            v = min(int(v), upper)
            return 0 if v < 0 else v
        box = (bounded(left * F32(width), width), bounded(top * F32(height), height),
               bounded(w * F32(width), width), bounded(h * F32(height), height))
        category = [None, common.f32(score), labels[cls], None]
        if box in seen:
            rows[seen[box]].extend(category)
        else:
            seen[box] = len(rows)
            rows.append([*box, *category])
    return rows


# ---------------------------------------------------------------- LiteRT worker (.cache/venv: LiteRT, OpenCV 4.10)

def stretch_tensor(rgb, size, degrees=0):
    """ImageToTensorCalculator on CPU (image_to_tensor_converter_opencv.cc): cv2.boxPoints of the ROI,
    getPerspectiveTransform onto (0,H),(0,0),(W,0),(W,H), warpPerspective INTER_LINEAR with BORDER_REPLICATE, RGBA
    -> RGB, uint8 range [0, 255] unchanged. No keep_aspect_ratio: the whole image is stretched to 320x320."""
    import cv2
    height, width = rgb.shape[:2]
    _, (e, f, a, b, rotation) = projection_matrix(width, height, degrees)
    src = cv2.boxPoints(((float(e), float(f)), (float(a), float(b)), float(F32(rotation) * F32(180) / F32(math.pi))))
    dst = np.array([[0, size], [0, 0], [size, 0], [size, size]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(src.astype(np.float32), dst)
    return cv2.warpPerspective(np.ascontiguousarray(rgb[:, :, :3]), matrix, (size, size), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def alternative_tensor(rgb, size, how):
    """Candidate preprocessings MediaPipe does not use, to show the stretch is the one: letterbox (the ROI padded to
    the tensor's aspect as PadRoi does, zero border) and cv2.resize."""
    import cv2
    height, width = rgb.shape[:2]
    if how == "letterbox":
        side = max(width, height)
        src = cv2.boxPoints(((width / 2, height / 2), (side, side), 0)).astype(np.float32)
        dst = np.array([[0, size], [0, 0], [size, 0], [size, size]], dtype=np.float32)
        return cv2.warpPerspective(np.ascontiguousarray(rgb[:, :, :3]), cv2.getPerspectiveTransform(src, dst),
                                   (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    interpolation = {"resize-linear": cv2.INTER_LINEAR, "resize-area": cv2.INTER_AREA}[how]
    return cv2.resize(np.ascontiguousarray(rgb[:, :, :3]), (size, size), interpolation=interpolation)


def unletterbox(relative, width, height):
    side = max(width, height)
    sx, sy = F32(side / width), F32(side / height)
    ox, oy = F32((width - side) / 2 / width), F32((height - side) / 2 / height)
    return [(x * sx + ox, y * sy + oy, w * sx, h * sy, s, c) for x, y, w, h, s, c in relative]


def litert_worker(model, metadata_path):
    """Jobs on stdin: {pixels (.npy), degrees, runs: [{options, sort}], [alternatives]}; answers numpy rows."""
    from ai_edge_litert.interpreter import Interpreter
    jobs = json.load(sys.stdin)
    meta = np.load(metadata_path, allow_pickle=False)
    anchors, d = meta["anchors"], json.loads(str(meta["decoding"]))
    labels = json.loads(str(meta["labels"]))
    interpreter = Interpreter(model_path=model, num_threads=1)
    interpreter.allocate_tensors()
    inp = interpreter.get_input_details()[0]
    size = int(inp["shape"][1])
    by_name = {o["name"]: o["index"] for o in interpreter.get_output_details()}
    # the model's outputs: "StatefulPartitionedCall:0" boxes [1,19206,4], ":1" scores [1,19206,90]
    boxes_index, scores_index = by_name["StatefulPartitionedCall:0"], by_name["StatefulPartitionedCall:1"]

    def infer(tensor):
        interpreter.set_tensor(inp["index"], tensor[None])
        interpreter.invoke()
        return interpreter.get_tensor(boxes_index)[0].copy(), interpreter.get_tensor(scores_index)[0].copy()

    answers = []
    for job in jobs:
        rgb = np.load(job["pixels"])
        height, width = rgb.shape[:2]
        raw_boxes, raw_scores = infer(stretch_tensor(rgb, size, job["degrees"]))
        answer = {"runs": [pixel_rows(relative_detections(raw_boxes, raw_scores, anchors, d, run["options"], labels,
                                                          run["sort"]), width, height, job["degrees"], labels)
                           for run in job["runs"]]}
        alternatives = {}
        for how in job.get("alternatives", []):
            b, s = infer(alternative_tensor(rgb, size, how))
            relative = relative_detections(b, s, anchors, d, {}, labels, "libc++")
            if how == "letterbox":
                relative = unletterbox(relative, width, height)
            alternatives[how] = pixel_rows(relative, width, height, 0, labels)
        answer["alternatives"] = alternatives
        answers.append(answer)
    json.dump(answers, sys.stdout)


# ---------------------------------------------------------------- running MediaPipe (either version)

def to_rows(r):
    rows = []
    for det in r.detections:
        b = det.bounding_box
        row = [b.origin_x, b.origin_y, b.width, b.height]
        for c in det.categories:
            index = None if c.index is None or c.index < 0 else c.index
            row += [index, common.f32(c.score), c.category_name or None, c.display_name or None]
        rows.append(row)
    return {"detections": rows}


class Runner:
    def __init__(self, shared, keep_pixels=None):
        self.shared, self.detectors, self.keep_pixels = shared, {}, keep_pixels

    def detector(self, options, mode):
        import mediapipe as mp  # noqa: F401
        from mediapipe.tasks import python as mpt
        from mediapipe.tasks.python import vision
        key = (json.dumps(options, sort_keys=True), mode)
        if key not in self.detectors:
            self.detectors[key] = vision.ObjectDetector.create_from_options(vision.ObjectDetectorOptions(
                base_options=mpt.BaseOptions(model_asset_path=common.model_path(MODEL, shared=self.shared)),
                running_mode=getattr(vision.RunningMode, mode), **{PY_OPTIONS[k]: v for k, v in options.items()}))
        return self.detectors[key]

    def close(self):
        for d in self.detectors.values():
            try:
                d.close()
            except Exception:  # noqa: BLE001
                pass
        self.detectors = {}

    def keep(self, name, pixels):
        if self.keep_pixels is None:
            return None
        path = os.path.join(self.keep_pixels, f"{len(os.listdir(self.keep_pixels))}.npy")
        np.save(path, np.ascontiguousarray(pixels))
        return path

    def image(self, job):
        import mediapipe as mp
        path = os.path.join(self.shared, "images", job["image"])
        if job["kind"] == "exif":
            tagged = os.path.join(job["tmp"], f"exif{job['n']}_{job['image']}")
            with open(path, "rb") as src, open(tagged, "wb") as dst:
                dst.write(common.exif_tagged(src.read(), job["n"]))
            image = mp.Image.create_from_file(tagged)
            if mp.__version__.startswith("0."):  # 0.10.x ignores the tag: turn the buffer as 1.x shows it
                pixels = common.transform(np.array(image.numpy_view()), common.EXIF_TRANSFORMS[job["n"]])
                image = mp.Image(image_format=image.image_format, data=np.ascontiguousarray(pixels))
            return image, 0
        image = mp.Image.create_from_file(path)
        if job["kind"] == "rot":
            pixels = np.ascontiguousarray(np.rot90(np.array(image.numpy_view()), job["k"]))
            image = mp.Image(image_format=image.image_format, data=pixels)
            return image, 90 * job["k"]
        return image, 0

    def run(self, job):
        import mediapipe as mp
        from mediapipe.tasks.python import vision
        try:
            if job["kind"] == "video":
                detector = self.detector(job["options"], "VIDEO")
                frames = []
                for name, pixels, ts in common.video_frames(os.path.join(self.shared, "videos", job["clip"]), job["frames"]):
                    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels)
                    frames.append({"image": name, "width": image.width, "height": image.height, "timestampMs": ts,
                                   "pixels": common.digest(pixels), "kept": self.keep(name, pixels),
                                   "result": to_rows(detector.detect_for_video(image, ts))})
                return {"frames": frames}
            image, degrees = self.image(job)
            detector = self.detector(job["options"], "IMAGE")
            options = vision.ImageProcessingOptions(rotation_degrees=degrees) if degrees else None
            result = to_rows(detector.detect(image, options) if options else detector.detect(image))
            view = np.array(image.numpy_view())
            return {"width": image.width, "height": image.height, "pixels": common.digest(view),
                    "kept": self.keep(job.get("image"), view), "degrees": degrees, "result": result}
        except Exception as e:  # noqa: BLE001 (a version's refusal is part of the record)
            self.close()
            return {"error": f"{type(e).__name__}: {' '.join(str(e).split())}"}


def worker(shared):
    import mediapipe as mp
    jobs = json.load(sys.stdin)
    runner = Runner(shared)
    results = [runner.run(j) for j in jobs]
    runner.close()
    json.dump({"version": mp.__version__, "results": results}, sys.stdout)


# ---------------------------------------------------------------- jobs, comparison, the fixture

def jobs_and_entries(tmp):
    jobs, entries = [], []
    for set_name, options in OPTION_SETS:
        for name in PHOTOS:
            entries.append({"set": set_name, "runningMode": "IMAGE", "image": name, "options": options})
            jobs.append({"kind": "image", "image": name, "options": options})
    entries.append({"set": "video", "runningMode": "VIDEO", "clip": CLIP, "options": LOW})
    jobs.append({"kind": "video", "clip": CLIP, "frames": VIDEO_FRAMES, "options": LOW})
    for name in ROTATED:
        for k in range(4):
            entries.append({"set": "rotated", "runningMode": "IMAGE", "image": name, "options": LOW,
                            "rot90k": k, "rotationDegrees": 90 * k})
            jobs.append({"kind": "rot", "image": name, "k": k, "options": LOW})
    for name in EXIF:
        for n in range(1, 9):
            entries.append({"set": "exif", "runningMode": "IMAGE", "image": name, "options": LOW, "exifOrientation": n,
                            "exifSegmentHex": common.app1_exif_orientation(n).hex(),
                            "appliedTransform": common.EXIF_TRANSFORMS[n]})
            jobs.append({"kind": "exif", "image": name, "n": n, "tmp": tmp, "options": LOW})
    return jobs, entries


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def compare(want, got):
    i = first_difference(want, got)
    if i is None:
        return "exact"
    return {"count": [len(want), len(got)], "firstDifference": i,
            "mediapipe": want[i] if i < len(want) else None, "numpy": got[i] if i < len(got) else None}


def write_metadata(path, anchors, summary, labels):
    np.savez(path, anchors=anchors, decoding=json.dumps(summary["tensorsDecodingOptions"]), labels=json.dumps(labels))


def numpy_check(litert, model, meta_path, flat, sorts, alternatives_for=()):
    """flat: [(key, kept pixels path, degrees, options)] -> {key: {sort: rows}}, alternatives {key: {how: rows}}."""
    by_pixels = {}
    for key, pixels, degrees, options in flat:
        by_pixels.setdefault((pixels, degrees), []).append((key, options))
    jobs, order = [], []
    for (pixels, degrees), runs in by_pixels.items():
        job = {"pixels": pixels, "degrees": degrees,
               "runs": [{"options": options, "sort": sort} for _, options in runs for sort in sorts]}
        if any(key in alternatives_for for key, _ in runs):
            job["alternatives"] = ["letterbox", "resize-linear", "resize-area"]
        jobs.append(job)
        order.append(runs)
    answers = common.call_worker(litert, os.path.abspath(__file__), ["--litert-worker", "--model", model,
                                                                    "--metadata", meta_path], jobs)
    rows, alternatives = {}, {}
    for runs, answer in zip(order, answers):
        results = iter(answer["runs"])
        for key, _ in runs:
            rows[key] = {sort: next(results) for sort in sorts}
            if answer["alternatives"]:
                alternatives[key] = answer["alternatives"]
    return rows, alternatives


def run_mediapipe_jobs(shared, jobs, keep_dir):
    runner = Runner(shared, keep_pixels=keep_dir)
    results = [runner.run(j) for j in jobs]
    runner.close()
    return results


def flatten(entries, results):
    """Per written entry: (entry, 1.2.3's result record)."""
    out = []
    for entry, r in zip(entries, results):
        if "error" in r:
            raise SystemExit(f"1.2.3 failed on {entry}: {r['error']}")
        if entry["runningMode"] == "VIDEO":
            for f in r["frames"]:
                out.append(({**{k: v for k, v in entry.items() if k != "clip"}, "image": f["image"], "width": f["width"],
                             "height": f["height"], "timestampMs": f["timestampMs"]}, {**f, "degrees": 0}))
        else:
            out.append(({**entry, "width": r["width"], "height": r["height"], "timestampMs": None}, r))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=None)
    ap.add_argument("--mp01014", default=common.MP01014)
    ap.add_argument("--litert", default=os.path.join(common.ROOT, ".cache", "venv", "bin", "python"))
    ap.add_argument("--out", default=os.path.join(common.ROOT, "Tests", "Fixtures", "efficientdet_reference.json.zip"))
    ap.add_argument("--check", action="store_true", help="re-derive the fixture's 1.2.3 results with the numpy reference")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--litert-worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--metadata", help=argparse.SUPPRESS)
    a = ap.parse_args()
    shared = common.shared_dir(a.shared)
    if a.litert_worker:
        return litert_worker(a.model, a.metadata)
    common.quiet_logs()
    import mediapipe as mp
    if a.worker:
        return worker(shared)
    assert mp.__version__ == "1.2.3", "run under MediaPipe 1.2.3 (.cache/mediapipe-1.2.3/bin/python)"
    start = time.time()
    model = common.model_path(MODEL, shared=shared)
    summary, anchors, labels = model_metadata(model)
    with tempfile.TemporaryDirectory(prefix="efficientdet-goldens-") as tmp:
        meta_path = os.path.join(tmp, "metadata.npz")
        write_metadata(meta_path, anchors, summary, labels)
        keep_dir = os.path.join(tmp, "pixels")
        os.mkdir(keep_dir)
        jobs, entries = jobs_and_entries(tmp)
        mine = flatten(entries, run_mediapipe_jobs(shared, jobs, keep_dir))
        common.log(f"1.2.3: {len(jobs)} jobs, {len(mine)} entries in {time.time() - start:.0f} s")
        if a.check:
            fixture = json.loads(fixture_zip.read(a.out))["entries"]
            assert len(fixture) == len(mine), "the fixture's entries are not this tool's"
            flat = [(i, r["kept"], r["degrees"], e["options"]) for i, (e, r) in enumerate(mine)]
            rows, _ = numpy_check(a.litert, model, meta_path, flat, ["libc++"])
            bad = 0
            for i, fe in enumerate(fixture):
                verdict = compare(fe["result"]["detections"], rows[i]["libc++"])
                if verdict != "exact":
                    bad += 1
                    common.log(f"{fe['set']} {fe['image']} {fe.get('rot90k', fe.get('exifOrientation', ''))}: {verdict}")
            common.log(f"numpy reference vs the fixture's 1.2.3 results: {len(fixture) - bad} of {len(fixture)} "
                       f"entries exact ({time.time() - start:.0f} s)")
            raise SystemExit(1 if bad else 0)
        theirs = common.call_worker(a.mp01014, os.path.abspath(__file__), ["--shared", shared], jobs)
        common.log(f"{theirs['version']}: done at {time.time() - start:.0f} s")
        other = []
        for entry, r0 in zip(entries, theirs["results"]):
            if entry["runningMode"] == "VIDEO":
                other.extend(r0.get("frames", []))
            else:
                other.append(r0)
        assert len(other) == len(mine)
        for (e, r), r0 in zip(mine, other):
            if "pixels" in r0:
                assert r0["pixels"] == r["pixels"], f"the versions see different pixels: {e}"
        # both versions through the numpy reference: 1.2.3 with libc++'s sort, 0.10.14 with libstdc++'s
        flat = [(i, r["kept"], r["degrees"], e["options"]) for i, (e, r) in enumerate(mine)]
        defaults = {i for i, (e, _) in enumerate(mine) if e["set"] == "default"}
        rows, alternatives = numpy_check(a.litert, model, meta_path, flat, ["libc++", "libstdc++"], defaults)
        common.log(f"LiteRT + numpy: done at {time.time() - start:.0f} s")

    out, spread = [], {"entries": 0, "equalRows": 0, "differ": []}
    checks = {"libc++ vs 1.2.3": 0, "libstdc++ vs 0.10.14": 0, "libc++ vs 0.10.14": 0, "libstdc++ vs 1.2.3": 0}
    preprocessing = {"stretch": 0, "letterbox": 0, "resize-linear": 0, "resize-area": 0}
    for i, ((entry, r), r0) in enumerate(zip(mine, other)):
        want = r["result"]["detections"]
        e = {**entry, "result": r["result"]}
        verdict = compare(want, rows[i]["libc++"])
        checks["libc++ vs 1.2.3"] += verdict == "exact"
        checks["libstdc++ vs 1.2.3"] += rows[i]["libstdc++"] == want
        if "result" in r0:
            theirs_rows = r0["result"]["detections"]
            spread["entries"] += 1
            if theirs_rows == want:
                spread["equalRows"] += 1
            else:
                spread["differ"].append(f"{entry['set']} {entry['image']}{'/' + str(entry.get('rot90k', entry.get('exifOrientation', ''))) if entry['set'] in ('rotated', 'exif') else ''}: "
                                        f"{len(want)} vs {len(theirs_rows)} rows, first at {first_difference(want, theirs_rows)}")
            checks["libstdc++ vs 0.10.14"] += rows[i]["libstdc++"] == theirs_rows
            checks["libc++ vs 0.10.14"] += rows[i]["libc++"] == theirs_rows
            if entry["set"] in UNBOUNDED:
                e["result_0_10_14"] = {"count": len(theirs_rows), "sameAs123": theirs_rows == want,
                                       "firstDifference": first_difference(want, theirs_rows),
                                       "numpyLibstdcxx": "exact" if rows[i]["libstdc++"] == theirs_rows else "differs"}
            else:
                e["result_0_10_14"] = r0["result"]
        else:
            e["result_0_10_14"] = r0
        e["numpyCheck"] = verdict
        if i in alternatives:
            preprocessing["stretch"] += verdict == "exact"
            for how, alt in alternatives[i].items():
                preprocessing[how] += alt == want
        out.append(e)

    n_default = len(alternatives)
    header = {
        "task": "objectDetector", "model": MODEL, "mediapipeVersion": mp.__version__, "result_0_10_14": theirs["version"],
        "generator": "tools/mediapipe_efficientdet_goldens.py",
        "modelSha256": common.sha256_file(model), "metadata": summary,
        "defaults": {"maxResults": -1, "scoreThreshold": 0.0, "minSuppressionThreshold": 0.3, "multiclassNms": False,
                     "overlap": "INTERSECTION_OVER_UNION", "nmsAlgorithm": "DEFAULT (greedy hard NMS)"},
        "numpyCheck": {k: f"{v} of {len(out)} entries exact" for k, v in checks.items()},
        "sortTies": "1.2.3 and 0.10.14 differ only in the order std::sort gives equal scores in "
                    "NonMaxSuppressionCalculator (libc++ vs libstdc++): the numpy reference with each port reproduces "
                    "each version (numpyCheck)",
        "preprocessing": {k: f"{v} of {n_default} default entries exact" for k, v in preprocessing.items()},
        "spread": spread}
    text = "{\n" + "".join(f" {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))},\n" for key, value in header.items())
    text += ' "entries": [\n' + ",\n".join("  " + json.dumps(e, separators=(",", ":")) for e in out) + "\n ]\n}\n"
    # 1.9 MB as text: kept deflated (tools/fixture_zip.py).
    fixture_zip.write(a.out, text)
    common.log(f"numpy check: {json.dumps(header['numpyCheck'])}")
    common.log(f"preprocessing: {json.dumps(header['preprocessing'])}")
    common.log(f"spread 1.2.3 vs {theirs['version']}: {spread['equalRows']} of {spread['entries']} equal")
    common.log(f"wrote {os.path.relpath(a.out)}: {len(out)} entries, {os.path.getsize(a.out)} bytes, "
               f"{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
