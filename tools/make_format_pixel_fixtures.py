#!/usr/bin/env python3
"""Small test images in every photo format we decode, and the outside truth for their pixels.

Writes Tests/Fixtures/formats/pixels/<name> (each a crop of a shared photo, a few dozen pixels a side) and
Tests/Fixtures/formats/pixels/truth.json. The truth for a file is:
- where MediaPipe reads the format (PNG, JPEG, BMP, GIF, PNM: stb_image inside `Image.create_from_file`): MediaPipe
  1.2.3's own `create_from_file(path).numpy_view()`, its shape and SHA-256, run in .cache/mediapipe-1.2.3. (Keep the
  Image alive while reading the view: in 1.2.3 the view borrows the Image's buffer, and a view of a collected Image
  reads freed memory — `create_from_file(p).numpy_view()` in one expression gives garbage.) Files MediaPipe refuses
  (grey + alpha PNG: two channels) fall back to Pillow, said so in `truth`.
- elsewhere (TIFF, WebP, HEIF/HEIC, AVIF): Pillow's decode (pillow-heif's for HEIF), turned upright by
  `ImageOps.exif_transpose` where the format's EXIF orientation applies (TIFF, WebP) as for a JPEG; HEIF is upright
  by its irot/imir already, and its EXIF orientation is ignored (pillow-heif resets it).
  Where our library (Debian's) and Pillow's bundled one can round differently, the truth's pixels are kept too
  (`<name>.truth.npy`) so that the test can state the largest difference.

Hand-made files cover what no encoder here writes but stb_image has rules for: BMP with 12-byte OS/2 headers,
16-bit 5-5-5 and 5-6-5 bit fields, all-zero alpha, top-down rows; a GIF whose frame leaves the background showing
(stb fills it with the background entry, red and blue swapped); a PGM with comments and a maximum of 15 (stb does not
scale); PNGs with gAMA and eXIf.

Run with the project venv: .cache/venv/bin/python tools/make_format_pixel_fixtures.py [--shared ../shared]
(needs pillow-heif in that venv — tools/setup installs it — and heif-enc from libheif-examples for AVIF).
"""
import argparse
import hashlib
import io
import json
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
import pillow_heif
from PIL import Image, ImageOps, features

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "Tests", "Fixtures", "formats", "pixels")
MEDIAPIPE = os.path.join(ROOT, ".cache", "mediapipe-1.2.3", "bin", "python")

# Run inside MediaPipe 1.2.3's venv: the shape and SHA-256 of create_from_file's pixels for each path, or its error.
MEDIAPIPE_SCRIPT = r"""
import hashlib, json, sys
import numpy as np
import mediapipe as mp
answers = {}
for path in sys.argv[1:]:
    try:
        image = mp.Image.create_from_file(path)
        pixels = np.array(image.numpy_view(), copy=True)  # copied while `image` is alive
        answers[path] = {"shape": list(pixels.shape), "dtype": str(pixels.dtype),
                         "sha256": hashlib.sha256(pixels.tobytes()).hexdigest()}
    except Exception as error:
        answers[path] = {"error": str(error)}
print(json.dumps(answers))
"""


def photo(shared, width=37, height=29):
    """A crop of a shared photo (a face and background, real texture), odd-sized to catch row padding."""
    image = Image.open(os.path.join(shared, "images", "pose1.jpg")).convert("RGB")
    w, h = image.size
    box = (w // 2 - 120, h // 4 - 20, w // 2 + 120, h // 4 + 170)
    return image.crop(box).resize((width, height), Image.LANCZOS)


def with_alpha(image):
    rgba = image.convert("RGBA")
    alpha = np.linspace(0, 255, image.width * image.height).reshape(image.height, image.width).astype(np.uint8)
    alpha[:, :3] = 255
    alpha[:2, :] = 0
    rgba.putalpha(Image.fromarray(alpha))
    return rgba


def save(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def encoded(image, fmt, **options):
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def exif_bytes(orientation):
    exif = Image.Exif()
    exif[0x0112] = orientation
    return exif.tobytes()


# PNG by hand: chunks a Pillow save cannot write (16-bit colour, gAMA alone, eXIf).
def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png(array, colour_type, bit_depth, extra=(), after=()):
    height, width = array.shape[:2]
    if bit_depth == 16:
        raw = array.astype(">u2").tobytes()
        row = len(raw) // height
    else:
        raw = array.astype(np.uint8).tobytes()
        row = len(raw) // height
    body = b"".join(b"\0" + raw[y * row:(y + 1) * row] for y in range(height))
    head = png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0))
    return (b"\x89PNG\r\n\x1a\n" + head + b"".join(png_chunk(k, v) for k, v in extra)
            + png_chunk(b"IDAT", zlib.compress(body)) + b"".join(png_chunk(k, v) for k, v in after)
            + png_chunk(b"IEND", b""))


def png_packed(levels, bits):
    """Grey below 8 bits (no writer here makes one): samples packed high bits first, rows padded to a byte."""
    height, width = levels.shape
    per_byte = 8 // bits
    rows = []
    for row in levels.astype(np.uint8):
        padded = np.append(row, np.zeros((-len(row)) % per_byte, np.uint8)).reshape(-1, per_byte)
        packed = np.zeros(len(padded), np.uint8)
        for i in range(per_byte):
            packed |= padded[:, i] << (8 - bits * (i + 1))
        rows.append(b"\0" + packed.tobytes())
    head = png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bits, 0, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + head + png_chunk(b"IDAT", zlib.compress(b"".join(rows))) + png_chunk(b"IEND", b"")


def bmp(width, height, bits, pixel_rows, header_size=40, compression=0, masks=None, palette=None, top_down=False):
    """A BMP from already packed rows (bottom row first unless top_down), padded to 4 bytes."""
    rows = b"".join(r + b"\0" * ((-len(r)) % 4) for r in pixel_rows)
    palette_bytes = b""
    if palette is not None:
        palette_bytes = b"".join(bytes((b, g, r)) + (b"" if header_size == 12 else b"\0") for r, g, b in palette)
    mask_bytes = b"" if masks is None else b"".join(struct.pack("<I", m) for m in masks)
    if header_size == 12:
        info = struct.pack("<IHHHH", 12, width, height, 1, bits)
    else:
        info = struct.pack("<IiiHHIIiiII", 40, width, -height if top_down else height, 1, bits, compression,
                           len(rows), 2835, 2835, 0, 0)
    offset = 14 + len(info) + len(mask_bytes) + len(palette_bytes)
    return b"BM" + struct.pack("<IHHI", offset + len(rows), 0, 0, offset) + info + mask_bytes + palette_bytes + rows


def gif_uncompressed(width, height, palette, frame, indices, background=0, transparent=None, interlaced=False):
    """A GIF whose LZW stream holds one literal code per pixel (a clear code every 200 codes keeps the width at
    9 bits): every byte is ours to choose, where Pillow always writes a full-screen frame."""
    x, y, w, h = frame
    size_bits = 7  # 256-entry global table
    data = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80 | size_bits, background, 0)
    table = list(palette) + [(0, 0, 0)] * (256 - len(palette))
    data += b"".join(bytes(c) for c in table)
    if transparent is not None:
        data += b"\x21\xF9\x04" + bytes([1]) + b"\0\0" + bytes([transparent]) + b"\0"
    data += b"\x2C" + struct.pack("<HHHHB", x, y, w, h, 0x40 if interlaced else 0)
    data += bytes([8])
    codes, clear = [], 256
    order = list(range(h))
    if interlaced:
        order = list(range(0, h, 8)) + list(range(4, h, 8)) + list(range(2, h, 4)) + list(range(1, h, 2))
    pixels = [int(indices[r][c]) for r in order for c in range(w)]
    for i, p in enumerate(pixels):
        if i % 200 == 0:
            codes.append(clear)
        codes.append(p)
    codes.append(clear + 1)
    bits, count, out = 0, 0, bytearray()
    for code in codes:
        bits |= code << count
        count += 9
        while count >= 8:
            out.append(bits & 0xFF)
            bits >>= 8
            count -= 8
    if count:
        out.append(bits & 0xFF)
    for i in range(0, len(out), 255):
        block = out[i:i + 255]
        data += bytes([len(block)]) + bytes(block)
    return data + b"\0\x3B"


def make_files(shared):
    base = photo(shared)
    rgb = np.asarray(base)
    h, w = rgb.shape[:2]
    rng = np.random.default_rng(42)
    files = {}  # name -> (truth kind, exif_transpose?)

    def add(name, data, truth, upright=False):
        save(name, data)
        files[name] = (truth, upright)

    # PNG: MediaPipe is the truth.
    wide = (rgb.astype(np.uint32) * 257 + rng.integers(0, 257, rgb.shape)).astype(np.uint16)
    add("rgb16.png", png(wide, 2, 16), "mediapipe")
    alpha16 = (np.asarray(with_alpha(base))[:, :, 3:].astype(np.uint32) * 257).astype(np.uint16)
    add("rgba16.png", png(np.concatenate([wide, alpha16], axis=2), 6, 16), "mediapipe")
    add("gray16.png", png(wide[:, :, 1], 0, 16), "mediapipe")
    trns = png_chunk(b"tRNS", struct.pack(">HHH", *map(int, wide[3, 5])))[8:-4]
    add("rgb16-trns.png", png(wide, 2, 16, extra=[(b"tRNS", trns)]), "mediapipe")
    add("rgb16-interlaced.png", encoded_interlaced16(wide), "mediapipe")
    # gAMA 1.0 (linear): libpng's simplified API converts it to sRGB; stb ignores it.
    add("rgb8-gama.png", png(rgb, 2, 8, extra=[(b"gAMA", struct.pack(">I", 100000))]), "mediapipe")
    add("rgb8-srgb-chrm.png", png(rgb, 2, 8, extra=[(b"sRGB", b"\0"), (b"gAMA", struct.pack(">I", 45455))]), "mediapipe")
    add("rgb8-icc.png", encoded(base, "PNG", icc_profile=_icc_profile()), "mediapipe")
    add("palette-trns.png", encoded(base.quantize(64), "PNG", transparency=3), "mediapipe")
    add("palette.png", encoded(base.quantize(200), "PNG"), "mediapipe")
    add("gray1.png", encoded(base.convert("1"), "PNG"), "mediapipe")
    add("gray2.png", png_packed(np.asarray(base.convert("L")) >> 6, 2), "mediapipe")
    add("gray4.png", png_packed(np.asarray(base.convert("L")) >> 4, 4), "mediapipe")
    add("gray.png", encoded(base.convert("L"), "PNG"), "mediapipe")
    add("gray-alpha.png", encoded(with_alpha(base).convert("LA"), "PNG"), "mediapipe")
    add("rgba.png", encoded(with_alpha(base), "PNG"), "mediapipe")
    # eXIf orientation 6 (and the chunk after IDAT, where writers may put it): MediaPipe 1.2.3 does not apply it.
    exif = exif_bytes(6)
    add("exif6.png", png(rgb, 2, 8, extra=[(b"eXIf", exif[6:] if exif.startswith(b"Exif") else exif)]), "mediapipe")

    # BMP: MediaPipe (stb_image) is the truth.
    add("rgb24.bmp", encoded(base, "BMP"), "mediapipe")
    add("palette8.bmp", encoded(base.quantize(256), "BMP"), "mediapipe")
    add("palette4.bmp", bmp_palette(base, 4), "mediapipe")
    add("mono1.bmp", encoded(base.convert("1"), "BMP"), "mediapipe")
    add("rgba32.bmp", encoded(with_alpha(base), "BMP"), "mediapipe")
    bgra = np.asarray(with_alpha(base))[:, :, [2, 1, 0, 3]]
    add("bgr32-zero-alpha.bmp", bmp(w, h, 32, [np.concatenate([bgra[y, :, :3], np.zeros((w, 1), np.uint8)], 1).tobytes()
                                               for y in reversed(range(h))]), "mediapipe")
    v555 = ((rgb[:, :, 0].astype(np.uint16) >> 3) << 10) | ((rgb[:, :, 1].astype(np.uint16) >> 3) << 5) | (rgb[:, :, 2] >> 3)
    add("rgb555.bmp", bmp(w, h, 16, [v555[y].astype("<u2").tobytes() for y in reversed(range(h))]), "mediapipe")
    v565 = ((rgb[:, :, 0].astype(np.uint16) >> 3) << 11) | ((rgb[:, :, 1].astype(np.uint16) >> 2) << 5) | (rgb[:, :, 2] >> 3)
    add("rgb565-bitfields.bmp", bmp(w, h, 16, [v565[y].astype("<u2").tobytes() for y in reversed(range(h))],
                                    compression=3, masks=(0xF800, 0x07E0, 0x001F)), "mediapipe")
    # 8 bytes between header and pixels: stb (2.28 on) skips them twice, so MediaPipe reads from 8 bytes late.
    gap = bmp(w, h, 24, [rgb[y, :, ::-1].tobytes() for y in reversed(range(h))])
    gap = gap[:10] + struct.pack("<I", 54 + 8) + gap[14:54] + bytes(range(1, 9)) + gap[54:] + bytes(range(8))
    add("gap.bmp", gap, "mediapipe")
    add("top-down.bmp", bmp(w, h, 24, [rgb[y, :, ::-1].tobytes() for y in range(h)], top_down=True), "mediapipe")
    # 200 colours: stb reads (offset − 38) / 3 = (26 + 3·256 − 38) / 3 = 252 entries of a 256-entry OS/2 palette,
    # and entries 252–255 are its uninitialized stack, which no truth can pin.
    quantized = base.quantize(200)
    palette = np.asarray(quantized.getpalette()[:600], np.uint8).reshape(-1, 3)
    palette = np.concatenate([palette, np.zeros((56, 3), np.uint8)])
    indices = np.asarray(quantized)
    add("os2-palette8.bmp", bmp(w, h, 8, [indices[y].tobytes() for y in reversed(range(h))], header_size=12,
                                palette=[tuple(c) for c in palette]), "mediapipe")

    # GIF: MediaPipe (stb_image) is the truth.
    add("pillow.gif", encoded(base, "GIF"), "mediapipe")
    add("pillow-transparent.gif", encoded(base.quantize(255), "GIF", transparency=7), "mediapipe")
    frames = [base, base.transpose(Image.FLIP_LEFT_RIGHT), base.rotate(180)]
    add("animated.gif", encoded(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0),
        "mediapipe")
    gif_palette = [tuple(c) for c in palette] + [(0, 0, 0)] * (256 - len(palette))
    gif_palette[250] = (200, 30, 90)  # the background: red and blue differ, so stb's swap shows
    frame_indices = indices[3:h - 5, 4:w - 6]
    add("background-frame.gif", gif_uncompressed(w, h, gif_palette, (4, 3, w - 10, h - 8), frame_indices,
                                                 background=250, transparent=int(indices[5, 5])), "mediapipe")
    add("interlaced-frame.gif", gif_uncompressed(w, h, gif_palette, (0, 0, w, h), indices, background=0,
                                                 interlaced=True), "mediapipe")

    # PNM: MediaPipe (stb_image) is the truth.
    add("rgb.ppm", encoded(base, "PPM"), "mediapipe")
    add("gray.pgm", encoded(base.convert("L"), "PPM"), "mediapipe")
    dark = (np.asarray(base.convert("L")) >> 4).astype(np.uint8)
    add("gray16.pgm", b"P5 %d %d 65535\n" % (w, h) + wide[:, :, 1].astype(">u2").tobytes(), "mediapipe")
    add("rgb16.ppm", b"P6\n%d %d\n4095\n" % (w, h) + (wide >> 4).astype(">u2").tobytes(), "mediapipe")
    add("max15-comments.pgm", b"P5\n# a comment\n%d # width\n%d\n15\n" % (w, h) + dark.tobytes(), "mediapipe")

    # TIFF: Pillow is the truth (its libtiff 4.7 against Debian's 4.5).
    for compression in ("raw", "tiff_lzw", "tiff_adobe_deflate", "packbits"):
        add(f"rgb-{compression}.tiff", encoded(base, "TIFF", compression=compression), "pillow")
    add("gray.tiff", encoded(base.convert("L"), "TIFF", compression="tiff_lzw"), "pillow")
    add("palette.tiff", encoded(base.quantize(64), "TIFF"), "pillow")
    add("rgba.tiff", encoded(with_alpha(base), "TIFF", compression="tiff_lzw"), "pillow")
    add("jpeg-ycbcr.tiff", encoded(base, "TIFF", compression="jpeg", quality=90), "pillow")
    for orientation in (3, 6, 8):
        tiff = Image.open(io.BytesIO(encoded(base, "TIFF", compression="tiff_lzw")))
        info = tiff.getexif()
        info[0x0112] = orientation
        add(f"orientation{orientation}.tiff", encoded(base, "TIFF", compression="tiff_lzw", exif=info.tobytes()),
            "pillow", upright=True)

    # WebP: Pillow is the truth (its libwebp 1.6 against Debian's 1.2.4).
    add("lossy.webp", encoded(base, "WEBP", quality=80), "pillow")
    add("lossless.webp", encoded(base, "WEBP", lossless=True), "pillow")
    add("lossy-alpha.webp", encoded(with_alpha(base), "WEBP", quality=80), "pillow")
    add("lossless-alpha.webp", encoded(with_alpha(base), "WEBP", lossless=True), "pillow")
    add("exif6.webp", encoded(base, "WEBP", quality=80, exif=exif_bytes(6)), "pillow", upright=True)
    add("animated.webp", encoded(frames[0], "WEBP", save_all=True, append_images=frames[1:], duration=100,
                                 lossless=True), "pillow")

    # HEIF: pillow-heif is the truth (its libheif 1.2x against Debian's 1.15); irot from an EXIF orientation on save.
    pillow_heif.register_heif_opener()
    add("photo.heic", encoded(base, "HEIF", quality=85), "pillow-heif")
    add("alpha.heic", encoded(with_alpha(base), "HEIF", quality=85), "pillow-heif")
    add("irot6.heic", encoded(base, "HEIF", quality=85, exif=exif_bytes(6)), "pillow-heif")
    # AVIF with Debian's heif-enc (aom); the truth is Pillow's own AVIF plugin (libavif), another library.
    if features.check("avif"):
        source = os.path.join(OUT, ".avif-source.png")
        base.save(source)
        target = os.path.join(OUT, "photo.avif")
        subprocess.run(["heif-enc", "-A", "-q", "85", "-o", target, source], check=True, capture_output=True)
        os.remove(source)
        files["photo.avif"] = ("pillow", False)
    return files


def _icc_profile():
    from PIL import ImageCms
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


def encoded_interlaced16(wide):
    """Adam7 16-bit RGB by hand (no writer here makes one): the seven passes, filter 0, one zlib stream."""
    height, width = wide.shape[:2]
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    body = b""
    for x0, y0, dx, dy in passes:
        sub = wide[y0::dy, x0::dx]
        if sub.size == 0:
            continue
        for row in sub:
            body += b"\0" + row.astype(">u2").tobytes()
    head = png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 1))
    return b"\x89PNG\r\n\x1a\n" + head + png_chunk(b"IDAT", zlib.compress(body)) + png_chunk(b"IEND", b"")


def bmp_palette(base, bits):
    quantized = base.quantize(1 << bits)
    palette = np.asarray(quantized.getpalette()[:3 << bits], np.uint8).reshape(-1, 3)
    indices = np.asarray(quantized)
    rows = []
    for y in reversed(range(indices.shape[0])):
        row = indices[y]
        if len(row) % 2:
            row = np.append(row, 0)
        rows.append(((row[0::2] << 4) | row[1::2]).astype(np.uint8).tobytes())
    return bmp(indices.shape[1], indices.shape[0], bits, rows, palette=[tuple(c) for c in palette])


def pillow_pixels(path, truth, upright):
    image = Image.open(path)
    if upright:
        image = ImageOps.exif_transpose(image)
    if image.mode == "P":
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    if image.mode not in ("L", "LA", "RGB", "RGBA"):
        image = image.convert("RGBA" if "A" in image.mode else "RGB")
    return np.asarray(image)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        os.remove(os.path.join(OUT, name))
    files = make_files(args.shared)
    paths = [os.path.join(OUT, name) for name in sorted(files)]
    answers = json.loads(subprocess.run([MEDIAPIPE, "-c", MEDIAPIPE_SCRIPT] + paths, check=True,
                                        capture_output=True, text=True).stdout)
    truth = {}
    for name in sorted(files):
        kind, upright = files[name]
        path = os.path.join(OUT, name)
        mediapipe = answers[path]
        entry = {"mediapipe_1_2_3": mediapipe}
        if kind == "mediapipe" and "error" not in mediapipe:
            entry.update(truth="mediapipe 1.2.3 create_from_file", shape=mediapipe["shape"], sha256=mediapipe["sha256"])
        else:
            if kind == "mediapipe":
                kind = "pillow"  # MediaPipe refuses it (two channels): the photo's pixels as Pillow reads them
            pixels = pillow_pixels(path, kind, upright)
            library = f"pillow {Image.__version__}" + (f", pillow-heif {pillow_heif.__version__}" if kind == "pillow-heif" else "")
            entry.update(truth=library + (" + exif_transpose" if upright else ""), shape=list(pixels.shape),
                         sha256=hashlib.sha256(pixels.tobytes()).hexdigest())
            np.save(path + ".truth.npy", pixels)
        truth[name] = entry
        print(f"{name}: {entry['truth']} {entry['shape']}" + (f" (MediaPipe: {mediapipe['error']})" if "error" in mediapipe else ""))
    with open(os.path.join(OUT, "truth.json"), "w") as f:
        json.dump({"generator": "tools/make_format_pixel_fixtures.py", "files": truth}, f, indent=1, sort_keys=True)
        f.write("\n")
    size = sum(os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT))
    print(f"wrote {len(truth)} files to {OUT} ({size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
