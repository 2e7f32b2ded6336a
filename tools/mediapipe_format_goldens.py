#!/usr/bin/env python3
"""Photos in the encodings users' files come in, and MediaPipe's own results on each -> Tests/Fixtures/formats/
(issue #42, "truth from outside").

    .cache/mediapipe-1.2.3/bin/python tools/mediapipe_format_goldens.py \
        [--shared ../shared] [--mp01014 .cache/mediapipe/bin/python] [--venv .cache/venv/bin/python] \
        [--out Tests/Fixtures/formats]

Three held-out photos (a pose, a face, two hands), downscaled with Pillow so that every file stays small; the
downscaled 8-bit RGB PNG is "the photo". Each is written the ways phones, scanners, web tools and print workflows
write it (Pillow 13, libjpeg-turbo's cjpeg/jpegtran, pillow-heif in .cache/venv for HEIC; see FORMATS below), and run
through MediaPipe 1.2.3's `Image.create_from_file` and the photo's task (pose_landmarker_lite.task,
face_landmarker.task, gesture_recognizer.task; options as ../shared/README.md states for the references). Every file
runs in a worker process that is restarted when MediaPipe aborts, so an abort is recorded, not fatal. Where 1.2.3
refuses the file, aborts on it, or ignores an orientation the project applies (PNG eXIf), the truth is 1.2.3 on the
pixels another decoder gives (djpeg for JPEG, Pillow, pillow-heif for HEIC), turned upright as Pillow's
`ImageOps.exif_transpose` turns them. MediaPipe 0.10.14 (.cache/mediapipe) runs every file too: where it reads the
file, files.json says how far its result is from 1.2.3's (MediaPipe's own spread; 0.10.14 applies no EXIF).

Writes (see Tests/Fixtures/formats/README.md): the files, <task>.json (the schema of ../shared/reference/*.json,
compact as Tests/Fixtures/orientation/, plus `truthSource` per result) and files.json (per file: SHA-256, how it was
made, what each MediaPipe did with it, its decoded pixels' shape and SHA-256). Not run by CI: the committed JSON is
the truth. Deterministic for the same library versions and CPU.
"""
import argparse
import glob
import hashlib
import io
import json
import os
import shlex
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

# name -> (shared image, downscaled size (even sides: HEIC's 4:2:0 needs them), task)
PHOTOS = {"pose": ("pose5.jpg", (128, 192), "pose"),
          "face": ("face_day13.jpg", (160, 120), "face"),
          "hand": ("hand_two_palms.png", (192, 128), "gesture")}
TASK_FILES = {"pose": "pose.json", "face": "face.json", "gesture": "gesture.json"}


# ---------------------------------------------------------------- MediaPipe worker (runs under either version)

def worker(models_dir):
    """Jobs as a JSON list on stdin; one JSON line per stage on stdout, flushed, so that the parent knows where an
    abort happened: "decoded" (or "refused"), then "result" (or "error")."""
    import mediapipe as mp
    import mediapipe_orientation_goldens as og
    runner = og.Runner(models_dir)
    jobs = json.load(sys.stdin)

    def say(d):
        sys.stdout.write(json.dumps(d) + "\n")
        sys.stdout.flush()

    for job in jobs:
        if "path" in job:
            try:
                image = mp.Image.create_from_file(job["path"])
                # Copied while `image` is alive: 1.2.3's view of a collected Image reads freed memory.
                pixels = np.array(image.numpy_view(), copy=True)
            except Exception as e:  # what MediaPipe says when it refuses the file
                say({"id": job["id"], "stage": "refused", "error": said(e)})
                continue
            np.save(job["pixelsOut"], pixels)
            say({"id": job["id"], "stage": "decoded", "imageFormat": mp.ImageFormat(image.image_format).name,
                 "shape": list(pixels.shape), "dtype": str(pixels.dtype),
                 "sha256": hashlib.sha256(np.ascontiguousarray(pixels).tobytes()).hexdigest()})
        else:
            pixels = np.load(job["npy"])
            fmt = {3: mp.ImageFormat.SRGB, 4: mp.ImageFormat.SRGBA}[pixels.shape[2]]
            image = mp.Image(image_format=fmt, data=np.ascontiguousarray(pixels))
        try:
            result = runner.run(job["task"], image, 0)
        except Exception as e:
            # A failed graph stays failed, and closing it can hang 1.2.3: the next file gets a fresh process.
            say({"id": job["id"], "stage": "error", "error": said(e)})
            os._exit(RESTART)
        say({"id": job["id"], "stage": "result", "width": image.width, "height": image.height, "result": result,
             "version": mp.__version__})
    os._exit(0)  # not through the tasks' __del__, which 1.2.3 runs after its C library is gone


RESTART = 3  # the worker's exit code for "start me again for the rest"


def said(error):
    """An exception's message on one line, without MediaPipe's source-location trace."""
    text = str(error).split("=== Source Location Trace")[0]
    return f"{type(error).__name__}: " + " ".join(text.split())


def noise_free(stderr):
    """MediaPipe's own last words (glog F/E lines, Python errors), without its start-up chatter."""
    keep = [l for l in stderr.splitlines() if l[:1] in ("F", "E") or "Check failed" in l or "Error" in l or "Aborted" in l]
    keep = [l for l in keep if "absl::InitializeLog" not in l and "cuda" not in l.lower()]
    return keep[-4:]


def run_jobs(python, models_dir, jobs, log):
    """Every job's stages; a job whose worker dies gets {"stage": "aborted", ...} and the rest go to a new worker."""
    answers, pending = {}, list(jobs)
    while pending:
        with tempfile.TemporaryFile("w+") as err:
            proc = subprocess.Popen([python, os.path.abspath(__file__), "--worker", "--models", models_dir],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True)
            proc.stdin.write(json.dumps(pending))
            proc.stdin.close()
            for line in proc.stdout:
                d = json.loads(line)
                answers.setdefault(d["id"], []).append(d)
            code = proc.wait()
            err.seek(0)
            stderr = err.read()
        done = {i for i, stages in answers.items() if stages[-1]["stage"] in ("refused", "result", "error")}
        left = [j for j in pending if j["id"] not in done]
        if not left:
            break
        if code == RESTART:
            pending = left
            continue
        if code == 0:
            raise SystemExit(f"worker under {python} ended without answering {left[0]['id']}:\n{stderr[-3000:]}")
        first = left[0]
        answers.setdefault(first["id"], []).append(
            {"id": first["id"], "stage": "aborted", "exitCode": code, "signal": -code if code < 0 else None,
             "lastWords": noise_free(stderr)})
        print(f"    {first['id']}: worker died ({code}); {noise_free(stderr)[-1:]}", file=log)
        pending = left[1:]
    return answers


# ---------------------------------------------------------------- making the files

def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png16(array, colour_type):
    """16-bit PNG (Pillow writes none but grey): big-endian samples, filter 0 on every row, zlib level 9."""
    height, width = array.shape[:2]
    raw = array.astype(">u2").tobytes()
    row = len(raw) // height
    body = b"".join(b"\0" + raw[y * row:(y + 1) * row] for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, colour_type, 0, 0, 0))
            + png_chunk(b"IDAT", zlib.compress(body, 9)) + png_chunk(b"IEND", b""))


class Maker:
    """Writes one photo's files; each records the call that made it (`made`)."""

    def __init__(self, name, photo8, photo16, out, tmp, venv):
        from PIL import Image
        self.Image = Image
        self.name, self.out, self.tmp, self.venv = name, out, tmp, venv
        self.rgb = photo8                                   # PIL RGB, the photo
        self.rgb16 = photo16                                # HxWx3 uint16, the same downscale kept at 16 bits
        h, w = photo16.shape[:2]
        # An alpha that varies over the picture (a soft vignette, 96..255): MediaPipe drops alpha, so must we.
        yy, xx = np.mgrid[0:h, 0:w]
        r = np.hypot((xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2)) / np.sqrt(2)
        self.alpha16 = np.round(65535 - r * (65535 - 96 * 257)).astype(np.uint16)
        self.alpha8 = (self.alpha16 >> 8).astype(np.uint8)
        self.files = []

    def path(self, variant, ext):
        return os.path.join(self.out, f"{self.name}-{variant}.{ext}")

    def add(self, variant, ext, made, **meta):
        path = self.path(variant, ext)
        assert os.path.exists(path), path
        self.files.append({"file": os.path.basename(path), "photo": self.name, "variant": variant, "made": made, **meta})

    def sideways(self, image):
        """What a phone stores for EXIF orientation 6: the picture turned 90° counter-clockwise (shown turned back
        clockwise)."""
        return image.transpose(self.Image.Transpose.ROTATE_90)

    @staticmethod
    def exif6():
        from PIL import Image
        exif = Image.Exif()
        exif[0x0112] = 6
        return exif

    def run(self, *args):
        subprocess.run(list(args), check=True, capture_output=True)
        return " ".join(shlex.quote(os.path.basename(a) if os.path.isabs(a) else a) for a in args)

    def make(self):
        Image, rgb = self.Image, self.rgb
        from PIL import PngImagePlugin
        rgba = Image.fromarray(np.dstack([np.asarray(rgb), self.alpha8]), "RGBA")
        grey = rgb.convert("L")

        # ---- PNG
        rgb.save(self.path("rgb8", "png"))
        self.add("rgb8", "png", 'photo.save(f, "PNG")  # the photo itself: Pillow LANCZOS downscale of the shared image')
        rgba.save(self.path("rgba8", "png"))
        self.add("rgba8", "png", 'Image.fromarray(np.dstack([photo, alpha]), "RGBA").save(f, "PNG")')
        rgb.quantize(256).save(self.path("palette", "png"))
        self.add("palette", "png", 'photo.quantize(256).save(f, "PNG")')
        q = rgb.quantize(255)
        q.save(self.path("palette-trns", "png"), transparency=int(np.asarray(q)[0, 0]))
        self.add("palette-trns", "png", 'q = photo.quantize(255); q.save(f, "PNG", transparency=q.getpixel((0, 0)))  # tRNS: that entry fully transparent')
        grey.save(self.path("grey", "png"))
        self.add("grey", "png", 'photo.convert("L").save(f, "PNG")')
        Image.merge("LA", (grey, Image.fromarray(self.alpha8))).save(self.path("grey-alpha", "png"))
        self.add("grey-alpha", "png", 'Image.merge("LA", (photo.convert("L"), alpha)).save(f, "PNG")')
        with open(self.path("rgb16", "png"), "wb") as f:
            f.write(png16(self.rgb16, 2))
        self.add("rgb16", "png", "png16(photo16, colour type 2): the downscale kept at 16 bits (float LANCZOS per channel), "
                 "written with numpy + zlib (filter 0, level 9)")
        with open(self.path("rgba16", "png"), "wb") as f:
            f.write(png16(np.dstack([self.rgb16, self.alpha16]), 6))
        self.add("rgba16", "png", "png16(np.dstack([photo16, alpha16]), colour type 6)")
        grey16 = np.round(self.rgb16 @ np.array([0.299, 0.587, 0.114])).astype(np.uint16)
        with open(self.path("grey16", "png"), "wb") as f:
            f.write(png16(grey16, 0))
        self.add("grey16", "png", "png16(round(photo16 @ [0.299, 0.587, 0.114]), colour type 0)")
        info = PngImagePlugin.PngInfo()
        info.add(b"gAMA", struct.pack(">I", 100000))
        rgb.save(self.path("gama1", "png"), pnginfo=info)
        self.add("gama1", "png", 'info = PngInfo(); info.add(b"gAMA", (100000).to_bytes(4, "big")); photo.save(f, "PNG", pnginfo=info)  '
                 "# gamma 1.0: stb_image ignores it, libpng's simplified API would not")
        self.sideways(rgb).save(self.path("exif6", "png"), exif=self.exif6())
        self.add("exif6", "png", 'photo.transpose(ROTATE_90).save(f, "PNG", exif=Exif({0x0112: 6}))  # eXIf chunk, orientation 6',
                 orientation=6)

        # ---- JPEG
        rgb.save(self.path("baseline", "jpg"), quality=90)
        self.add("baseline", "jpg", 'photo.save(f, "JPEG", quality=90)  # baseline, 4:2:0, JFIF')
        base = self.path("baseline", "jpg")
        made = self.run("jpegtran", "-progressive", "-outfile", self.path("progressive", "jpg"), base)
        self.add("progressive", "jpg", made + "  # lossless transcode: the baseline's coefficients")
        made = self.run("jpegtran", "-arithmetic", "-outfile", self.path("arithmetic", "jpg"), base)
        self.add("arithmetic", "jpg", made + "  # lossless transcode, arithmetic coding")
        ppm = os.path.join(self.tmp, f"{self.name}.ppm")
        rgb.save(ppm)
        made = self.run("cjpeg", "-quality", "90", "-restart", "5B", "-outfile", self.path("restart", "jpg"), ppm)
        self.add("restart", "jpg", made.replace(os.path.basename(ppm), "photo.ppm") + "  # a restart marker every 5 MCUs")
        grey.save(self.path("grey", "jpg"), quality=90)
        self.add("grey", "jpg", 'photo.convert("L").save(f, "JPEG", quality=90)  # one component')
        # Print workflows: CMYK with black ink (K = 255 − max(R, G, B), the multiplicative split that decoders undo),
        # stored as Adobe writes it, inverted (stored = 255 − ink); Pillow inverts what it is given on save.
        a = np.asarray(rgb).astype(np.float64)
        m = a.max(axis=2, keepdims=True)
        stored = np.concatenate([np.where(m > 0, a * 255 / np.maximum(m, 1), 255), m], axis=2)
        stored = np.round(stored).astype(np.uint8)                    # what the scan holds: 255 − ink, K last
        Image.fromarray(255 - stored, "CMYK").save(self.path("cmyk", "jpg"), quality=90)
        self.add("cmyk", "jpg", 'Image.fromarray(ink, "CMYK").save(f, "JPEG", quality=90)  # ink: K = 255 − max(R,G,B), '
                 "C = 255 − R·255/max(R,G,B) (M, Y alike); Pillow stores 255 − ink with an Adobe APP14 marker, transform 0")
        # YCCK (Photoshop's CMYK JPEGs): libjpeg's cmyk_ycck_convert on the same stored values — Y, Cb, Cr of
        # (255 − stored C, M, Y), K as stored — written as four components, the APP14 transform byte set to 2.
        r_, g_, b_ = [255.0 - stored[:, :, i] for i in range(3)]
        y = 0.299 * r_ + 0.587 * g_ + 0.114 * b_
        cb = -0.168735892 * r_ - 0.331264108 * g_ + 0.5 * b_ + 128
        cr = 0.5 * r_ - 0.418687589 * g_ - 0.081312411 * b_ + 128
        ycck = np.clip(np.round(np.dstack([y, cb, cr, stored[:, :, 3]])), 0, 255).astype(np.uint8)
        buffer = io.BytesIO()
        Image.fromarray(255 - ycck, "CMYK").save(buffer, "JPEG", quality=90)
        data = bytearray(buffer.getvalue())
        at = data.find(b"\xff\xee\x00\x0eAdobe")
        assert at > 0 and data[at + 15] == 0, "Pillow's CMYK JPEG has no Adobe transform-0 marker"
        data[at + 15] = 2
        with open(self.path("ycck", "jpg"), "wb") as f:
            f.write(bytes(data))
        self.add("ycck", "jpg", 'Image.fromarray(255 − YCCK, "CMYK").save(f, "JPEG", quality=90), then the APP14 Adobe '
                 "transform byte 0 → 2; YCCK = libjpeg's cmyk_ycck_convert of the cmyk file's stored values (full-precision "
                 "JFIF YCbCr of 255 − C, M, Y; K unchanged)")
        self.sideways(rgb).save(self.path("exif6", "jpg"), quality=90, exif=self.exif6())
        self.add("exif6", "jpg", 'photo.transpose(ROTATE_90).save(f, "JPEG", quality=90, exif=Exif({0x0112: 6}))', orientation=6)

        # ---- BMP, GIF, PNM (MediaPipe's stb_image reads them)
        rgb.save(self.path("rgb24", "bmp"))
        self.add("rgb24", "bmp", 'photo.save(f, "BMP")')
        rgba.save(self.path("rgba32", "bmp"))
        self.add("rgba32", "bmp", 'Image.fromarray(np.dstack([photo, alpha]), "RGBA").save(f, "BMP")  # 32-bit BGRA, BI_RGB')
        rgb.quantize(256).save(self.path("palette8", "bmp"))
        self.add("palette8", "bmp", 'photo.quantize(256).save(f, "BMP")')
        rgb.save(self.path("still", "gif"))
        self.add("still", "gif", 'photo.save(f, "GIF")  # Pillow: adaptive palette, no dither')
        rgb.save(self.path("animated", "gif"), save_all=True, append_images=[rgb.transpose(Image.Transpose.FLIP_LEFT_RIGHT)],
                 duration=200, loop=0)
        self.add("animated", "gif", 'photo.save(f, "GIF", save_all=True, append_images=[photo.transpose(FLIP_LEFT_RIGHT)], '
                 "duration=200, loop=0)  # two frames; MediaPipe reads the first")
        rgb.save(self.path("rgb", "ppm"))
        self.add("rgb", "ppm", 'photo.save(f, "PPM")  # P6')
        grey.save(self.path("grey", "pgm"))
        self.add("grey", "pgm", 'photo.convert("L").save(f, "PPM")  # P5')

        # ---- TIFF, WebP, AVIF (MediaPipe reads none of them)
        rgb.save(self.path("raw", "tiff"), compression="raw")
        self.add("raw", "tiff", 'photo.save(f, "TIFF", compression="raw")')
        rgb.save(self.path("lzw", "tiff"), compression="tiff_lzw")
        self.add("lzw", "tiff", 'photo.save(f, "TIFF", compression="tiff_lzw")')
        rgb.save(self.path("deflate", "tiff"), compression="tiff_adobe_deflate")
        self.add("deflate", "tiff", 'photo.save(f, "TIFF", compression="tiff_adobe_deflate")')
        self.sideways(rgb).save(self.path("orientation6", "tiff"), compression="tiff_lzw", tiffinfo={0x0112: 6})
        self.add("orientation6", "tiff", 'photo.transpose(ROTATE_90).save(f, "TIFF", compression="tiff_lzw", tiffinfo={0x0112: 6})',
                 orientation=6)
        rgb.save(self.path("lossy", "webp"), quality=80)
        self.add("lossy", "webp", 'photo.save(f, "WEBP", quality=80)')
        rgb.save(self.path("lossless", "webp"), lossless=True)
        self.add("lossless", "webp", 'photo.save(f, "WEBP", lossless=True)')
        rgba.save(self.path("alpha", "webp"), quality=80)
        self.add("alpha", "webp", 'Image.fromarray(np.dstack([photo, alpha]), "RGBA").save(f, "WEBP", quality=80)')
        self.sideways(rgb).save(self.path("exif6", "webp"), quality=80, exif=self.exif6())
        self.add("exif6", "webp", 'photo.transpose(ROTATE_90).save(f, "WEBP", quality=80, exif=Exif({0x0112: 6}))', orientation=6)
        rgb.save(self.path("photo", "avif"), quality=80)
        self.add("photo", "avif", 'photo.save(f, "AVIF", quality=80)  # Pillow\'s AVIF plugin (libavif)')
        self.sideways(rgb).save(self.path("irot", "avif"), quality=80, exif=self.exif6())
        self.add("irot", "avif", 'photo.transpose(ROTATE_90).save(f, "AVIF", quality=80, exif=Exif({0x0112: 6}))  '
                 "# Pillow writes the orientation as irot (and the EXIF tag as 1)", orientation=6)

        # ---- HEIC: pillow-heif (x265) in the project venv
        png = os.path.join(self.tmp, f"{self.name}-photo.png")
        rgb.save(png)
        heif(self.venv, "encode", png, self.path("photo", "heic"), 0)
        self.add("photo", "heic", 'pillow_heif.register_heif_opener(); photo.save(f, "HEIF", quality=80)  # x265')
        heif(self.venv, "encode", png, self.path("irot", "heic"), 6)
        self.add("irot", "heic", 'photo.transpose(ROTATE_90).save(f, "HEIF", quality=80, exif=Exif({0x0112: 6}).tobytes())  '
                 "# pillow-heif writes the orientation as irot", orientation=6)
        return self.files


HEIF_SCRIPT = r"""
import sys, numpy as np, pillow_heif
from PIL import Image
pillow_heif.register_heif_opener()
what, src, dst, orientation = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if what == "encode":
    photo = Image.open(src).convert("RGB")
    if orientation == 6:
        exif = Image.Exif(); exif[0x0112] = 6
        photo.transpose(Image.Transpose.ROTATE_90).save(dst, "HEIF", quality=80, exif=exif.tobytes())
    else:
        photo.save(dst, "HEIF", quality=80)
else:  # decode: pillow-heif applies irot/imir itself
    image = Image.open(src)
    image = image.convert("RGBA" if "A" in image.mode else "RGB")
    np.save(dst, np.asarray(image))
print(pillow_heif.__version__, pillow_heif.libheif_version())
"""


def heif(venv, what, src, dst, orientation):
    out = subprocess.run([venv, "-c", HEIF_SCRIPT, what, src, dst, str(orientation)], check=True, capture_output=True, text=True)
    return out.stdout.split()


# ---------------------------------------------------------------- pixels from other decoders

def pillow_pixels(path, venv, tmp):
    """(pixels upright as exif_transpose turns them, decoder) for a file MediaPipe cannot be the truth of."""
    from PIL import Image, ImageOps
    if path.endswith(".heic"):
        npy = os.path.join(tmp, "heif.npy")
        version, libheif = heif(venv, "decode", path, npy, 0)
        return np.load(npy), f"pillow-heif {version} (libheif {libheif}; applies irot itself)"
    if path.endswith(".avif"):
        # libheif's own decode (Debian's heif-convert, the library our decoder links; it applies irot itself), not
        # Pillow's AVIF plugin: libavif upsamples 4:2:0 chroma differently, by up to 20 levels (mean 0.35) on these
        # files, which alone moved pose's world landmarks 15 mm.
        png = os.path.join(tmp, "avif.png")
        subprocess.run(["heif-convert", path, png], check=True, capture_output=True)
        version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libheif1"], capture_output=True, text=True).stdout
        return np.asarray(Image.open(png).convert("RGB")), f"heif-convert (Debian's libheif {version}; applies irot itself)"
    image = Image.open(path)
    name = f"Pillow {Image.__version__}"
    if path.endswith(".jpg") and image.mode in ("RGB", "L"):
        # libjpeg-turbo's own decode, as Debian ships it (our libjpeg path links the same library), turned by the
        # file's EXIF orientation with exif_transpose's own table.
        orientation = image.getexif().get(0x0112, 1)
        pnm = subprocess.run(["djpeg", "-pnm", path], check=True, capture_output=True).stdout
        image, name = Image.open(io.BytesIO(pnm)), "djpeg " + djpeg_version()
        if orientation != 1:
            exif = image.getexif()
            exif[0x0112] = orientation
            image.info["exif"] = exif.tobytes()
            image = ImageOps.exif_transpose(image)
            name += " + ImageOps.exif_transpose"
    elif image.mode.startswith("I;16") or image.mode == "I":
        # 16-bit grey: Pillow's convert would clip the samples at 255; its samples' high byte is what stb keeps.
        image = Image.fromarray((np.asarray(image).astype(np.uint32) >> 8).astype(np.uint8), "L")
        name += ", 16-bit samples >> 8"
    else:
        image = ImageOps.exif_transpose(image)
        name += " + ImageOps.exif_transpose"
    # Palette with tRNS and grey with alpha keep their alpha (as RGBA); grey goes in as RGB, the channel repeated:
    # what a grey photo is to the tasks.
    keeps_alpha = image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)
    return np.asarray(image.convert("RGBA" if keeps_alpha else "RGB")), name


def djpeg_version():
    out = subprocess.run(["djpeg", "-version"], capture_output=True, text=True)
    return (out.stderr or out.stdout).strip().split("version ")[-1].split()[0]


def sha(pixels):
    return hashlib.sha256(np.ascontiguousarray(pixels).tobytes()).hexdigest()


# ---------------------------------------------------------------- the run

def photos(shared):
    """name -> (8-bit photo, the same downscale at 16 bits). The 16-bit one is Pillow's LANCZOS on each channel in
    float, kept at 12 significant bits and scaled to 16 as a 12-bit scanner or raw converter writes it
    (v12 · 65535 / 4095: the low byte varies, its top bit too, so truncating and rounding differ)."""
    from PIL import Image
    out = {}
    for name, (source, size, _) in PHOTOS.items():
        src = Image.open(os.path.join(shared, "images", source)).convert("RGB")
        photo8 = src.resize(size, Image.Resampling.LANCZOS)
        channels = [np.asarray(c.convert("F").resize(size, Image.Resampling.LANCZOS)) for c in src.split()]
        v12 = np.clip(np.round(np.dstack(channels) * 4095 / 255), 0, 4095)
        photo16 = np.round(v12 * 65535 / 4095).astype(np.uint16)
        out[name] = (photo8, photo16)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared"))
    ap.add_argument("--mp01014", default=os.path.join(ROOT, ".cache", "mediapipe", "bin", "python"))
    ap.add_argument("--venv", default=os.path.join(ROOT, ".cache", "venv", "bin", "python"))
    ap.add_argument("--out", default=os.path.join(ROOT, "Tests", "Fixtures", "formats"))
    ap.add_argument("--models", default=os.path.join(ROOT, "Models"))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return worker(a.models)
    import mediapipe as mp
    import mediapipe_orientation_goldens as og
    from PIL import Image
    assert mp.__version__ == "1.2.3", "run under MediaPipe 1.2.3 (.cache/mediapipe-1.2.3/bin/python)"
    if not os.path.isdir(a.shared):
        a.shared = "/work/shared"
    start, log = time.time(), sys.stderr
    os.makedirs(a.out, exist_ok=True)
    # Our own files only: Tests/Fixtures/formats/pixels/ belongs to tools/make_format_pixel_fixtures.py.
    for name in PHOTOS:
        for old in glob.glob(os.path.join(a.out, f"{name}-*")):
            os.remove(old)
    tmp = tempfile.mkdtemp(prefix="format-goldens-")
    files = []
    for name, (photo8, photo16) in photos(a.shared).items():
        files += Maker(name, photo8, photo16, a.out, tmp, a.venv).make()
    total = sum(os.path.getsize(os.path.join(a.out, f["file"])) for f in files)
    print(f"{len(files)} files, {total / 1e6:.2f} MB ({time.time() - start:.0f} s)", file=log)

    task_of = {name: task for name, (_, _, task) in PHOTOS.items()}
    jobs = {v: [] for v in ("1.2.3", "0.10.14")}
    for f in files:
        for v in jobs:
            jobs[v].append({"id": f"{v}:{f['file']}", "path": os.path.join(a.out, f["file"]), "task": task_of[f["photo"]],
                            "pixelsOut": os.path.join(tmp, f"{v}-{f['file']}.npy")})
    answers = {}
    for v, python in (("1.2.3", sys.executable), ("0.10.14", a.mp01014)):
        print(f"MediaPipe {v} on every file ({time.time() - start:.0f} s)", file=log)
        answers.update(run_jobs(python, a.models, jobs[v], log))

    # Where 1.2.3 is not the truth on the file: its results on another decoder's pixels.
    fallback, why = [], {}
    for f in files:
        stages = answers[f"1.2.3:{f['file']}"]
        last = stages[-1]
        reason = None
        if last["stage"] == "refused":
            reason = "MediaPipe 1.2.3 refuses the file"
        elif last["stage"] in ("aborted", "error"):
            reason = "MediaPipe 1.2.3 reads the file but its graph fails on it"
        elif f["file"].endswith(".png") and f.get("orientation"):
            reason = "MediaPipe 1.2.3 ignores PNG eXIf orientation; the project applies it (issue #42)"
        if reason:
            other, decoder = pillow_pixels(os.path.join(a.out, f["file"]), a.venv, tmp)
            pixels = other
            if last["stage"] in ("aborted", "error") and stages[0]["stage"] == "decoded":
                # It read the file (one grey channel): the truth is its own decode, the channel repeated as RGB;
                # the other decoder's pixels run too, to show how much a one-level decoding difference moves.
                own = np.load(answers_pixels(jobs["1.2.3"], f["file"]))
                assert own.shape[2] == 1, f"{f['file']}: {own.shape}"
                pixels, decoder, alternative = np.repeat(own, 3, axis=2), "MediaPipe 1.2.3's create_from_file", (other, decoder)
                np.save(os.path.join(tmp, f"other-{f['file']}.npy"), other)
                fallback.append({"id": f"other:{f['file']}", "npy": os.path.join(tmp, f"other-{f['file']}.npy"),
                                 "task": task_of[f["photo"]]})
            else:
                alternative = None
            npy = os.path.join(tmp, f"pixels-{f['file']}.npy")
            np.save(npy, pixels)
            why[f["file"]] = (reason, decoder, pixels, alternative)
            fallback.append({"id": f"pixels:{f['file']}", "npy": npy, "task": task_of[f["photo"]]})
    print(f"MediaPipe 1.2.3 on other decoders' pixels: {len(fallback)} files ({time.time() - start:.0f} s)", file=log)
    answers.update(run_jobs(sys.executable, a.models, fallback, log))

    results = {task: [] for task in TASK_FILES}
    table = {}
    for f in files:
        path = os.path.join(a.out, f["file"])
        task = task_of[f["photo"]]
        with open(path, "rb") as fh:
            data = fh.read()
        entry = {**f, "task": task, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "mediapipe": {}}
        mine = {}
        for v in ("1.2.3", "0.10.14"):
            stages = answers[f"{v}:{f['file']}"]
            said = {}
            for s in stages:
                if s["stage"] == "refused":
                    said.update(read=False, refused=s["error"].replace(a.out + os.sep, ""))
                elif s["stage"] == "decoded":
                    said.update(read=True, imageFormat=s["imageFormat"], shape=s["shape"], dtype=s["dtype"], pixelsSha256=s["sha256"])
                elif s["stage"] == "error":
                    said.update(task="error", error=s["error"])
                elif s["stage"] == "aborted":
                    said.update(task="aborted", exitCode=s["exitCode"], lastWords=s["lastWords"])
                elif s["stage"] == "result":
                    said.update(task="ran")
                    mine[v] = s
            if said.get("read"):
                # How MediaPipe's decode compares with Pillow's own (diagnostic; Pillow as it reads the file, no EXIF).
                got = np.load(answers_pixels(jobs[v], f["file"]))
                got = got[:, :, 0] if got.ndim == 3 and got.shape[2] == 1 else got
                theirs = pillow_plain(path, got.shape)
                if theirs is not None:
                    said["maxDiffFromPillow"] = int(np.abs(got.astype(int) - theirs.astype(int)).max())
            entry["mediapipe"][v] = said
        if f["file"] in why:
            reason, decoder, pixels, alternative = why[f["file"]]
            answer = answers[f"pixels:{f['file']}"][-1]
            assert answer["stage"] == "result", f"{f['file']}: MediaPipe 1.2.3 failed on the pixels too: {answer}"
            source = ("mediapipe-pixels-mediapipe-decode" if decoder.startswith("MediaPipe") else
                      "mediapipe-pixels-djpeg" if decoder.startswith("djpeg") else
                      "mediapipe-pixels-pillow-heif" if decoder.startswith("pillow-heif") else "mediapipe-pixels-pillow")
            entry["truth"] = {"source": source, "why": reason, "decoder": decoder + (", grey repeated as RGB" if alternative else ""),
                              "shape": list(pixels.shape), "pixelsSha256": sha(pixels)}
            if alternative:
                other, other_decoder = alternative
                other_answer = answers[f"other:{f['file']}"][-1]
                d = og.max_diff(other_answer["result"], answer["result"])
                entry["truth"]["otherDecoder"] = {
                    "decoder": other_decoder, "maxPixelDiff": int(np.abs(other[:, :, 0].astype(int) - pixels[:, :, 0].astype(int)).max()),
                    "resultMaxDiff": og.finite(d) if d != float("inf") else "structure differs"}
            truth = answer
        else:
            source = "mediapipe-file"
            entry["truth"] = {"source": source}
            truth = mine["1.2.3"]
        if "0.10.14" in mine:
            d = og.max_diff(og.normalized(task, mine["0.10.14"]["result"]), truth["result"])
            entry["mediapipe"]["0.10.14"]["maxDiffFromTruth"] = og.finite(d) if d != float("inf") else "structure differs"
        results[task].append({"image": f["file"], "width": truth["width"], "height": truth["height"], "timestampMs": None,
                              "truthSource": source, "result": truth["result"]})
        if source != "mediapipe-file" and "1.2.3" in mine:
            # PNG eXIf: MediaPipe's own answer on the sideways file too, should the project follow it instead.
            results[task][-1]["mediapipeFileResult"] = {"width": mine["1.2.3"]["width"], "height": mine["1.2.3"]["height"],
                                                        "result": mine["1.2.3"]["result"]}
        table[f["file"]] = entry
        m = entry["mediapipe"]
        print(f"  {f['file']:28s} 1.2.3: {describe(m['1.2.3'])} | 0.10.14: {describe(m['0.10.14'])} | truth {source}", file=log)

    models = og.MODELS
    for task, name in TASK_FILES.items():
        og.write(os.path.join(a.out, name), {"task": task, "model": models[task], "runningMode": "IMAGE",
                                             "mediapipeVersion": "1.2.3", "results": results[task]})
    doc = {"generator": "tools/mediapipe_format_goldens.py", "mediapipeVersions": ["1.2.3", "0.10.14"],
           "pillow": Image.__version__, "photos": {n: {"source": s, "size": list(z), "task": t} for n, (s, z, t) in PHOTOS.items()},
           "files": table}
    with open(os.path.join(a.out, "files.json"), "w") as fh:
        fh.write("{" + ",\n".join(f"{json.dumps(k)}:{json.dumps(og.rounded(v), separators=(',', ':'), ensure_ascii=False)}"
                                  for k, v in doc.items() if k != "files"))
        fh.write(',\n"files":{\n' + ",\n".join(f"{json.dumps(k)}:{json.dumps(og.rounded(v), separators=(',', ':'), ensure_ascii=False)}"
                                              for k, v in table.items()) + "\n}}\n")
    print(f"done in {time.time() - start:.0f} s", file=log)


def answers_pixels(jobs, file):
    return next(j["pixelsOut"] for j in jobs if j["id"].endswith(":" + file))


def pillow_plain(path, shape):
    """Pillow's pixels for the file in MediaPipe's channel count (no EXIF applied), or None where Pillow gives none."""
    from PIL import Image
    try:
        image = Image.open(path)
        image.seek(0)
        mode = {1: "L", 3: "RGB", 4: "RGBA"}.get(shape[2] if len(shape) == 3 else 1)
        shape = tuple(shape[:2]) if mode == "L" else tuple(shape)
        if image.mode in ("I;16", "I;16B", "I") and mode == "L":
            return (np.asarray(image).astype(np.uint32) >> 8).astype(np.uint8)  # Pillow has no 16-bit RGB: compare grey only
        pixels = np.asarray(image.convert(mode))
        return pixels if pixels.shape == shape else None
    except Exception:
        return None


def describe(said):
    if not said.get("read"):
        return "refused (" + said.get("refused", "?")[:60] + ")"
    text = f"read {said['imageFormat']} {said['shape']}"
    if said.get("task") != "ran":
        text += f", task {said.get('task')}"
    return text


if __name__ == "__main__":
    main()
