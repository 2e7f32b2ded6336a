#!/usr/bin/env python3
"""Seed corpora for the libFuzzer harnesses (tools/fuzz), written to Tests/Fuzz/corpus/<harness>/ and checked in.

Seeds are small on purpose: libFuzzer mutates a seed whole on every execution, so a 6 MB model would run a few
hundred times a second where a 2 kB one runs tens of thousands. Each harness gets inputs that reach deep into its
parser: one-operator models from the kernel sweeps' generator (every family, float32, the smallest shapes), zip
bundles stored, deflated and nested, the metadata, custom options and face geometry that the shipped models carry,
and images of every colour layout the decoders take.

Run with the project venv: .cache/venv/bin/python tools/make_fuzz_seeds.py (needs Models/ filled by fetch-models).
"""
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

import flatbuffers
import numpy as np
from flatbuffers import flexbuffers
from PIL import Image
from ai_edge_litert import schema_py_generated as schema

sys.path.insert(0, os.path.dirname(__file__))
import litert_kernel_sweeps as sweeps  # noqa: E402  (tools/litert_kernel_sweeps.py)

ROOT = os.path.join(os.path.dirname(__file__), "..")
OUT = os.path.join(ROOT, "Tests", "Fuzz", "corpus")
MODELS = os.path.join(ROOT, "Models")
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")


def write(harness, data, label):
    folder = os.path.join(OUT, harness)
    os.makedirs(folder, exist_ok=True)
    name = f"{label}-{hashlib.sha1(data).hexdigest()[:10]}"
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def model_seeds():
    """The smallest float32 case of every kernel-sweep family, and the small fixtures (int8 graphs)."""
    models = []
    for family, make_family in sweeps.FAMILIES.items():
        rng = np.random.default_rng(1)
        built = []
        for make in make_family(rng):
            case = make()
            if case.kind != "float32":
                continue
            try:
                built.append(sweeps.build(case, sweeps.version(case), case.inputs, case.outputs))
            except Exception:  # a case that needs LiteRT's calibration first
                continue
        for content in sorted(built, key=len)[:2]:
            write("model-plan", content, family)
            models.append(content)
    for fixture in ("custom_gesture_classifier.tflite", "int8_float_io.tflite"):
        with open(os.path.join(FIXTURES, fixture), "rb") as f:
            write("model-plan", f.read(), fixture.split(".")[0])
    return models


def bundle_seeds(models):
    tiny = min(models, key=len)
    for method, label in ((zipfile.ZIP_STORED, "stored"), (zipfile.ZIP_DEFLATED, "deflated")):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", method) as z:
            z.writestr("detector.tflite", tiny)
            z.writestr("labels.txt", "a\nb\n")
        write("bundle-zip", buffer.getvalue(), label)
        inner = buffer.getvalue()
        outer = io.BytesIO()
        with zipfile.ZipFile(outer, "w", zipfile.ZIP_STORED) as z:
            z.writestr("inner.task", inner)
            z.writestr("landmarks.tflite", tiny)
        write("bundle-zip", outer.getvalue(), "nested-" + label)


def model_metadata(path):
    with open(path, "rb") as f:
        data = f.read()
    model = schema.Model.GetRootAs(data, 0)
    return data, model


def metadata_seeds():
    for name in ("efficientnet_lite0.tflite", "ssd_mobilenet_v1.tflite", "mobilenet_v1_0.25_128_quant.tflite",
                 "bird_classifier.tflite"):
        path = os.path.join(MODELS, name)
        if not os.path.exists(path):
            continue
        data, model = model_metadata(path)
        for i in range(model.MetadataLength()):
            entry = model.Metadata(i)
            if entry.Name() != b"TFLITE_METADATA":
                continue
            buffer = model.Buffers(entry.Buffer())
            if buffer.DataLength():
                content = buffer.DataAsNumpy().tobytes()
            else:  # stored past the flatbuffer (models over 2 GB layout, also used by some converters)
                content = data[buffer.Offset():buffer.Offset() + buffer.Size()]
            write("tflite-metadata", content, name.split(".")[0])


def detector_metadata_seeds():
    """MediaPipe's object detector metadata (ObjectDetectorOptions, identifier V001, as EfficientDet-Lite carries it
    under DETECTOR_METADATA): EfficientDet-Lite0's decoding options with three of its anchors (its 19,206 make a
    461 kB blob), and the same without decoding options."""
    def blob(with_decoding):
        b = flatbuffers.Builder(256)
        anchors = []
        for x, y, w, h in [(0.0125, 0.0125, 0.075, 0.075), (0.0125, 0.0125, 0.10606602, 0.05303301), (0.8333334, 0.8333333, 1.122462, 2.244924)]:
            b.StartObject(4)
            b.PrependFloat32Slot(0, x, 0.0)
            b.PrependFloat32Slot(1, y, 0.0)
            b.PrependFloat32Slot(2, w, 0.0)
            b.PrependFloat32Slot(3, h, 0.0)
            anchors.append(b.EndObject())
        b.StartVector(4, len(anchors), 4)
        for anchor in reversed(anchors):
            b.PrependUOffsetTRelative(anchor)
        vector = b.EndVector()
        b.StartObject(1)
        b.PrependUOffsetTRelativeSlot(0, vector, 0)
        fixed = b.EndObject()
        b.StartObject(1)
        b.PrependUOffsetTRelativeSlot(0, fixed, 0)
        ssd = b.EndObject()
        decoding = None
        if with_decoding:
            b.StartObject(12)
            for slot, value in enumerate([90, 19206, 4, 0, 0, 2]):
                b.PrependInt32Slot(slot, value, 0)
            for slot in range(6, 10):
                b.PrependFloat32Slot(slot, 1.0, 0.0)
            b.PrependBoolSlot(10, True, False)
            b.PrependBoolSlot(11, False, False)
            decoding = b.EndObject()
        b.StartObject(3)
        b.PrependUOffsetTRelativeSlot(1, ssd, 0)
        if decoding is not None:
            b.PrependUOffsetTRelativeSlot(2, decoding, 0)
        b.Finish(b.EndObject(), file_identifier=b"V001")
        return bytes(b.Output())

    write("detector-metadata", blob(True), "efficientdet-lite0-3-anchors")
    write("detector-metadata", blob(False), "anchors-only")


def flexbuffer_seeds():
    data, model = model_metadata(os.path.join(MODELS, "ssd_mobilenet_v1.tflite"))
    graph = model.Subgraphs(0)
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        if op.CustomOptionsLength():
            write("flexbuffer", op.CustomOptionsAsNumpy().tobytes(), "detection-postprocess")
    for label, value in (
        ("map", {"max_detections": 10, "nms_score_threshold": 0.3, "use_regular_nms": False, "y_scale": 10.0}),
        ("vector", [1, 2.5, "text", True, [3, 4], {"k": b"\x00\x01"}]),
        ("typed", [1.0, 2.0, 3.0]),
        ("scalar", 7),
    ):
        write("flexbuffer", bytes(flexbuffers.Dumps(value)), label)


def face_geometry_seeds():
    path = os.path.join(MODELS, "face_landmarker.task")
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            if name.endswith(".task"):
                with zipfile.ZipFile(io.BytesIO(z.read(name))) as inner:
                    for member in inner.namelist():
                        if "geometry" in member:
                            write("face-geometry-protobuf", inner.read(member), "geometry")
            elif "geometry" in name:
                write("face-geometry-protobuf", z.read(name), "geometry")


def npy_seeds():
    for label, array in (("f32", np.arange(6, dtype=np.float32).reshape(2, 3)),
                         ("u8", np.arange(4, dtype=np.uint8)),
                         ("i32-3d", np.zeros((1, 2, 2), dtype=np.int32)),
                         ("scalar", np.array(1.5, dtype=np.float32)),
                         ("fortran", np.asfortranarray(np.ones((2, 2), dtype=np.float32)))):
        buffer = io.BytesIO()
        np.save(buffer, array)
        write("npy", buffer.getvalue(), label)


def image_seeds():
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 256, (13, 17, 4), dtype=np.uint8)
    rgb = Image.fromarray(pixels[:, :, :3])
    for label, image, options in (("rgb", rgb, {}), ("rgba", Image.fromarray(pixels), {}),
                                  ("gray", rgb.convert("L"), {}), ("palette", rgb.convert("P"), {}),
                                  ("interlaced", rgb, {"interlace": 1})):
        buffer = io.BytesIO()
        image.save(buffer, "PNG", **options)
        write("png", buffer.getvalue(), label)
    gray16 = Image.fromarray((rng.integers(0, 65536, (5, 6))).astype(np.uint16))
    buffer = io.BytesIO()
    gray16.save(buffer, "PNG")
    write("png", buffer.getvalue(), "gray16")

    exif = Image.Exif()
    exif[0x0112] = 6
    for label, image, options in (("420", rgb, {"subsampling": 2}), ("444", rgb, {"subsampling": 0}),
                                  ("422", rgb, {"subsampling": 1}), ("gray", rgb.convert("L"), {}),
                                  ("progressive", rgb, {"progressive": True}),
                                  ("exif", rgb, {"exif": exif.tobytes()}),
                                  ("cmyk", rgb.convert("CMYK"), {})):
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=80, **options)
        write("jpeg", buffer.getvalue(), label)

    # EXIF APP1 payloads ("Exif\0\0" + TIFF), both byte orders, the orientation tag among others.
    payload = exif.tobytes()
    write("exif", payload if payload.startswith(b"Exif") else b"Exif\x00\x00" + payload, "pillow")
    def tiff(order, entries):
        pack = (lambda v, n: v.to_bytes(n, "little")) if order == b"II" else (lambda v, n: v.to_bytes(n, "big"))
        body = order + pack(42, 2) + pack(8, 4) + pack(len(entries), 2)
        for tag, kind, count, value in entries:
            body += pack(tag, 2) + pack(kind, 2) + pack(count, 4) + pack(value, 2) + b"\0\0"
        return b"Exif\x00\x00" + body + pack(0, 4)
    write("exif", tiff(b"MM", [(0x010F, 2, 1, 0), (0x0112, 3, 1, 8)]), "motorola")
    write("exif", tiff(b"II", [(0x0112, 3, 1, 3)]), "intel")


def format_seeds():
    """The decoders added for issue #42: every layout each reads, small (13 × 17)."""
    rng = np.random.default_rng(5)
    pixels = rng.integers(0, 256, (13, 17, 4), dtype=np.uint8)
    rgb, rgba = Image.fromarray(pixels[:, :, :3]), Image.fromarray(pixels)
    def save(harness, label, image, fmt, **options):
        buffer = io.BytesIO()
        image.save(buffer, fmt, **options)
        write(harness, buffer.getvalue(), label)
    for label, image in (("rgb24", rgb), ("rgba32", rgba), ("palette8", rgb.quantize(200)), ("mono1", rgb.convert("1"))):
        save("bmp", label, image, "BMP")
    save("gif", "still", rgb, "GIF")  # not interlaced: Pillow interlaces only images 16 pixels or more a side
    save("gif", "transparent", rgb.quantize(64), "GIF", transparency=3)
    save("gif", "animated", rgb, "GIF", save_all=True, append_images=[rgb.rotate(90, expand=False)], duration=50)
    save("gif", "interlaced", rgb.resize((17, 16)), "GIF", interlace=True)
    save("pnm", "ppm", rgb, "PPM")
    save("pnm", "pgm", rgb.convert("L"), "PPM")
    write("pnm", b"P5 # comment\n3 2\n65535\n" + bytes(range(12)), "pgm16")
    for label, image, options in (("raw", rgb, {}), ("lzw", rgb, {"compression": "tiff_lzw"}),
                                  ("deflate-rgba", rgba, {"compression": "tiff_adobe_deflate"}),
                                  ("gray", rgb.convert("L"), {}), ("palette", rgb.quantize(16), {}),
                                  ("jpeg", rgb, {"compression": "jpeg"})):
        save("tiff", label, image, "TIFF", **options)
    exif = Image.Exif()
    exif[0x0112] = 6
    for label, image, options in (("lossy", rgb, {"quality": 70}), ("lossless", rgb, {"lossless": True}),
                                  ("alpha", rgba, {"quality": 70}), ("exif", rgb, {"exif": exif.tobytes()}),
                                  ("animated", rgb, {"save_all": True, "append_images": [rgb.rotate(90)], "lossless": True})):
        save("webp", label, image, "WEBP", **options)
    try:
        import pillow_heif
        pillow_heif.register_heif_opener()
        save("heif", "heic", rgb, "HEIF", quality=50)
        save("heif", "heic-alpha", rgba, "HEIF", quality=50)
        save("heif", "heic-irot", rgb, "HEIF", quality=50, exif=exif.tobytes())
    except ImportError:
        print("make_fuzz_seeds: pillow-heif is not installed; no HEIC seeds", file=sys.stderr)
    if shutil.which("heif-enc"):  # AVIF through Debian's libheif (libheif-examples), as libheif decodes it
        with tempfile.TemporaryDirectory() as folder:
            source, target = os.path.join(folder, "seed.png"), os.path.join(folder, "seed.avif")
            rgb.save(source)
            subprocess.run(["heif-enc", "-A", "-q", "50", "-o", target, source], check=True, capture_output=True)
            with open(target, "rb") as f:
                write("heif", f.read(), "avif")


def running_mode_seeds():
    rng = np.random.default_rng(4)
    for mode in range(3):
        write("running-mode", bytes([mode, 3]) + rng.integers(0, 256, 120, dtype=np.uint8).tobytes(), f"mode{mode}")


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    models = model_seeds()
    bundle_seeds(models)
    metadata_seeds()
    detector_metadata_seeds()
    flexbuffer_seeds()
    face_geometry_seeds()
    npy_seeds()
    image_seeds()
    format_seeds()
    running_mode_seeds()
    for harness in sorted(os.listdir(OUT)):
        files = os.listdir(os.path.join(OUT, harness))
        size = sum(os.path.getsize(os.path.join(OUT, harness, f)) for f in files)
        print(f"{harness}: {len(files)} seeds, {size / 1e3:.1f} kB")


if __name__ == "__main__":
    main()
