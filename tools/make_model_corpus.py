#!/usr/bin/env python3
"""A corpus of common vision architectures as .tflite, made by TensorFlow's own converter, to run against LiteRT.

Issue #43 asks that "any model a user brings" runs. Users bring what TensorFlow's converter makes of the usual
architectures, so this script builds them in Keras with random weights (fixed seeds), calibrates their batch
normalization on the shared photos (one forward pass in training mode with momentum 0, so that every layer sees
normalized, non-degenerate activations without training), and converts each twice:

  NAME_float32.tflite   the converter's defaults: float32 weights, activations and I/O;
  NAME_int8.tflite      full integer quantization as it is done today: optimizations=[Optimize.DEFAULT], a
                        representative dataset of the photos in ../shared/images resized to the input size,
                        supported_ops=[TFLITE_BUILTINS_INT8], int8 input and output (uint8 for the models in
                        UINT8_IO, which the converter does with a QUANTIZE at each end).

and writes NAME_VARIANT.json beside each: architecture, what it stands for, input shape / dtype / quantization and
the float range the photo is mapped to, outputs, and the operator list (name, version, count) read back from the
flatbuffer. Nothing here is trained or meant to be accurate: the point is the operators, their options and their
quantization, exactly as the converter writes them.

The architectures (ARCHITECTURES below), at the input sizes they ship at:
  yolov8n_like      320  YOLOv8-n's structure: Conv-BN-SiLU, C2f (SPLIT), SPPF (5x5 max pools), nearest upsampling,
                         PAN neck, decoupled head with DFL (softmax over 16 bins) and box decoding against anchors
  movenet_like      192  MobileNetV2 backbone + FPN (bilinear upsampling, ADD) + MoveNet's four heads
  mobilenet_v3_large 224 keras.applications.MobileNetV3Large (hard-swish, squeeze-excite with hard-sigmoid)
  efficientnet_v2_b0 224 keras.applications.EfficientNetV2B0 (fused MBConv, SiLU, squeeze-excite)
                         Both end on their logits (classifier_activation=None): with random weights a 1000-way
                         softmax is near uniform, every probability below int8's step of 1/256, so each int8
                         output would be the zero point and a comparison would prove nothing.
  deeplab_v3        257  MobileNetV2-like backbone at output stride 16 with dilated depthwise convolutions, ASPP
                         (dilated 3x3 at rates 6/12/18 and image pooling), bilinear resize with align_corners
  unet              256  U-Net: conv blocks, max pools, Conv2DTranspose (TRANSPOSE_CONV) and skip concatenations
  espcn_x3          224  ESPCN super-resolution: tanh convolutions and a sub-pixel DEPTH_TO_SPACE
  midas_like        256  MiDaS-small-like depth: MobileNetV2 taps at 1/4..1/32, fusion blocks with residual conv
                         units, bilinear align_corners upsampling, ReLU depth head

Usage (the venv: python3 -m venv .cache/tensorflow && .cache/tensorflow/bin/pip install tensorflow-cpu numpy pillow):
    .cache/tensorflow/bin/python tools/make_model_corpus.py [--shared ../shared] [--out .cache/model-corpus]
        [--only NAME ...]
Then tools/compare_model_corpus.py runs each model with ours and with LiteRT.
"""
import argparse
import collections
import contextlib
import io
import json
import os
import sys
import time
import types

import numpy as np

SEED = 4343
HERE = os.path.dirname(os.path.abspath(__file__))
UINT8_IO = {"efficientnet_v2_b0"}


# ---------------------------------------------------------------------------------------------------------------
# Photos.

def load_photos(shared, size):
    """Every photo in ../shared/images, RGB, resized (bilinear) to size x size, as float pixels in [0, 255]."""
    from PIL import Image
    folder = os.path.join(shared, "images")
    names = sorted(n for n in os.listdir(folder) if n.lower().endswith((".jpg", ".jpeg", ".png")))
    if not names:
        sys.exit(f"no photos in {folder}")
    return np.stack([np.asarray(Image.open(os.path.join(folder, n)).convert("RGB").resize((size, size), Image.BILINEAR),
                                dtype=np.float32) for n in names])


def scaled(pixels, low, high):
    return pixels / 255.0 * (high - low) + low


# ---------------------------------------------------------------------------------------------------------------
# Building blocks. Layers that need a TensorFlow op Keras has no layer for are small Layer subclasses (they
# convert to the one builtin each stands for).

def custom_layers(keras, tf):
    class Split(keras.layers.Layer):
        def __init__(self, parts, **kwargs):
            super().__init__(**kwargs)
            self.parts = parts

        def call(self, x):
            return tf.split(x, self.parts, axis=-1)

        def compute_output_shape(self, shape):
            return [shape[:-1] + (shape[-1] // self.parts,)] * self.parts

    class DepthToSpace(keras.layers.Layer):
        def __init__(self, block, **kwargs):
            super().__init__(**kwargs)
            self.block = block

        def call(self, x):
            return tf.nn.depth_to_space(x, self.block)

        def compute_output_shape(self, shape):
            b = self.block
            return (shape[0], shape[1] * b, shape[2] * b, shape[3] // (b * b))

    class ResizeAlignCorners(keras.layers.Layer):
        """Bilinear resize with align_corners, as DeepLab and MiDaS (PyTorch's interpolate(align_corners=True)) do."""
        def __init__(self, size, **kwargs):
            super().__init__(**kwargs)
            self.size = tuple(size)

        def call(self, x):
            return tf.compat.v1.image.resize_bilinear(x, self.size, align_corners=True)

        def compute_output_shape(self, shape):
            return (shape[0],) + self.size + (shape[3],)

    class ResizeNearest(keras.layers.Layer):
        """2x nearest upsampling as Ultralytics' TensorFlow exports write it (RESIZE_NEAREST_NEIGHBOR); Keras 3's
        UpSampling2D(interpolation="nearest") converts to RESHAPE + TILE instead."""
        def call(self, x):
            return tf.image.resize(x, (2 * x.shape[1], 2 * x.shape[2]), method="nearest")

        def compute_output_shape(self, shape):
            return (shape[0], 2 * shape[1], 2 * shape[2], shape[3])

    class Constant(keras.layers.Layer):
        """Multiplies or adds a fixed array (YOLO's anchor points and strides)."""
        def __init__(self, value, op, **kwargs):
            super().__init__(**kwargs)
            self.value, self.op = np.asarray(value, np.float32), op

        def call(self, x):
            c = tf.constant(self.value)
            return {"add": x + c, "sub": c - x, "mul": x * c}[self.op]

        def compute_output_shape(self, shape):
            return shape

    return types.SimpleNamespace(Split=Split, DepthToSpace=DepthToSpace, ResizeAlignCorners=ResizeAlignCorners,
                                 ResizeNearest=ResizeNearest, Constant=Constant)


def conv_bn_act(L, x, filters, kernel, strides=1, activation="relu", dilation=1, name=None):
    x = L.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False, dilation_rate=dilation,
                 name=name)(x)
    x = L.BatchNormalization()(x)
    return L.Activation(activation)(x) if activation else x


def inverted_residual(L, x, expansion, filters, strides=1, dilation=1):
    """MobileNetV2's block: 1x1 expand, ReLU6 (3x3 depthwise, possibly dilated), 1x1 project, residual."""
    channels = x.shape[-1]
    y = x
    if expansion != 1:
        y = L.ReLU(6.0)(L.BatchNormalization()(L.Conv2D(channels * expansion, 1, use_bias=False)(y)))
    y = L.DepthwiseConv2D(3, strides=strides, padding="same", dilation_rate=dilation, use_bias=False)(y)
    y = L.ReLU(6.0)(L.BatchNormalization()(y))
    y = L.BatchNormalization()(L.Conv2D(filters, 1, use_bias=False)(y))
    if strides == 1 and channels == filters:
        y = L.Add()([x, y])
    return y


# ---------------------------------------------------------------------------------------------------------------
# Architectures: each returns (keras.Model, input range low, high, what it stands for).

def yolov8n_like(keras, tf, size):
    L = keras.layers
    C = custom_layers(keras, tf)

    def conv(x, c, k=1, s=1):
        return conv_bn_act(L, x, c, k, s, activation="silu")

    def c2f(x, c, n, shortcut):
        y = C.Split(2)(conv(x, c, 1))                       # SPLIT into two halves, as Ultralytics' chunk(2, 1)
        parts = list(y)
        b = parts[-1]
        for _ in range(n):
            t = conv(conv(b, c // 2, 3), c // 2, 3)
            b = L.Add()([b, t]) if shortcut else t
            parts.append(b)
        return conv(L.Concatenate()(parts), c, 1)

    def sppf(x, c):
        x = conv(x, c // 2, 1)
        p1 = L.MaxPooling2D(5, strides=1, padding="same")(x)
        p2 = L.MaxPooling2D(5, strides=1, padding="same")(p1)
        p3 = L.MaxPooling2D(5, strides=1, padding="same")(p2)
        return conv(L.Concatenate()([x, p1, p2, p3]), c, 1)

    inp = keras.Input((size, size, 3), batch_size=1, name="images")
    x = conv(inp, 16, 3, 2)
    x = conv(x, 32, 3, 2)
    x = c2f(x, 32, 1, True)
    x = conv(x, 64, 3, 2)
    p3 = c2f(x, 64, 2, True)
    x = conv(p3, 128, 3, 2)
    p4 = c2f(x, 128, 2, True)
    x = conv(p4, 256, 3, 2)
    x = c2f(x, 256, 1, True)
    p5 = sppf(x, 256)
    h4 = c2f(L.Concatenate()([C.ResizeNearest()(p5), p4]), 128, 1, False)
    n3 = c2f(L.Concatenate()([C.ResizeNearest()(h4), p3]), 64, 1, False)
    n4 = c2f(L.Concatenate()([conv(n3, 64, 3, 2), h4]), 128, 1, False)
    n5 = c2f(L.Concatenate()([conv(n4, 128, 3, 2), p5]), 256, 1, False)

    classes, bins = 80, 16
    levels, anchors, strides = [], [], []
    for feature, stride in ((n3, 8), (n4, 16), (n5, 32)):
        box = L.Conv2D(4 * bins, 1)(conv(conv(feature, 64, 3), 64, 3))
        cls = L.Conv2D(classes, 1)(conv(conv(feature, 80, 3), 80, 3))
        h, w = feature.shape[1], feature.shape[2]
        levels.append(L.Reshape((h * w, 4 * bins + classes))(L.Concatenate()([box, cls])))
        gy, gx = np.meshgrid(np.arange(h) + 0.5, np.arange(w) + 0.5, indexing="ij")
        anchors.append(np.stack([gx.ravel(), gy.ravel()], 1))
        strides.append(np.full((h * w, 1), stride))
    anchors, strides = np.concatenate(anchors)[None], np.concatenate(strides)[None]
    y = L.Concatenate(axis=1)(levels)                                   # [1, 2100, 144]
    box, cls = L.Lambda(lambda t: t[..., :4 * bins])(y), L.Lambda(lambda t: t[..., 4 * bins:])(y)
    # DFL: a softmax over 16 distance bins per side and its expectation (Ultralytics' fixed 1x1 conv of arange(16)).
    box = L.Softmax()(L.Reshape((anchors.shape[1], 4, bins))(box))
    dfl = L.Dense(1, use_bias=False, trainable=False, name="dfl")
    box = L.Reshape((anchors.shape[1], 4))(dfl(box))
    lt, rb = C.Split(2)(box)
    x1y1, x2y2 = C.Constant(anchors, "sub")(lt), C.Constant(anchors, "add")(rb)
    centre = L.Rescaling(0.5)(L.Add()([x1y1, x2y2]))
    wh = L.Subtract()([x2y2, x1y1])
    boxes = C.Constant(strides, "mul")(L.Concatenate()([centre, wh]))
    scores = L.Activation("sigmoid")(cls)
    out = L.Permute((2, 1), name="output0")(L.Concatenate()([boxes, scores]))   # [1, 84, 2100] as Ultralytics exports
    model = keras.Model(inp, out, name="yolov8n_like")
    model.get_layer("dfl").set_weights([np.arange(bins, dtype=np.float32).reshape(bins, 1)])
    return model, 0.0, 1.0, "YOLOv8-n structure (width 0.25, depth 0.33), 80 classes, decoded boxes"


def movenet_like(keras, tf, size):
    L = keras.layers
    inp = keras.Input((size, size, 3), batch_size=1, name="input")
    backbone = keras.applications.MobileNetV2(input_tensor=inp, weights=None, include_top=False, alpha=1.0)
    taps = [backbone.get_layer(n).output for n in
            ("block_3_expand_relu", "block_6_expand_relu", "block_13_expand_relu", "out_relu")]
    x = conv_bn_act(L, taps[-1], 64, 1)
    for tap in reversed(taps[:-1]):                                     # FPN down to stride 4 (48x48)
        x = L.UpSampling2D(2, interpolation="bilinear")(x)
        x = L.Add()([x, conv_bn_act(L, tap, 64, 1)])
        x = L.SeparableConv2D(64, 3, padding="same")(x)
    heads = []
    for name, channels, activation in (("heatmap", 17, "sigmoid"), ("center", 1, "sigmoid"),
                                       ("regression", 34, None), ("offset", 34, None)):
        h = L.ReLU()(L.DepthwiseConv2D(3, padding="same")(x))
        h = L.Conv2D(96, 1, activation="relu")(h)
        heads.append(L.Conv2D(channels, 1, activation=activation, name=name)(h))
    return keras.Model(inp, heads, name="movenet_like"), -1.0, 1.0, \
        "MoveNet's structure: MobileNetV2 + FPN to stride 4 + heatmap, centre, regression and offset heads"


def mobilenet_v3_large(keras, tf, size):
    inp = keras.Input((size, size, 3), batch_size=1, name="input")
    model = keras.applications.MobileNetV3Large(input_tensor=inp, weights=None, include_preprocessing=True,
                                                classifier_activation=None)
    return model, 0.0, 255.0, "keras.applications.MobileNetV3Large, 1000 logits"


def efficientnet_v2_b0(keras, tf, size):
    inp = keras.Input((size, size, 3), batch_size=1, name="input")
    model = keras.applications.EfficientNetV2B0(input_tensor=inp, weights=None, include_preprocessing=True,
                                                classifier_activation=None)
    return model, 0.0, 255.0, "keras.applications.EfficientNetV2B0, 1000 logits"


def deeplab_v3(keras, tf, size):
    L = keras.layers
    C = custom_layers(keras, tf)
    inp = keras.Input((size, size, 3), batch_size=1, name="input")
    x = conv_bn_act(L, inp, 32, 3, 2, activation="relu6")                 # 129
    x = inverted_residual(L, x, 1, 16)
    for expansion, filters, repeats, stride, dilation in ((6, 24, 2, 2, 1), (6, 32, 3, 2, 1), (6, 64, 4, 2, 1),
                                                          (6, 96, 3, 1, 2), (6, 160, 3, 1, 2), (6, 320, 1, 1, 2)):
        for i in range(repeats):                                           # output stride 16: 17x17, then dilated
            x = inverted_residual(L, x, expansion, filters, stride if i == 0 else 1, dilation)
    h, w = x.shape[1], x.shape[2]
    branches = [conv_bn_act(L, x, 256, 1)]
    for rate in (6, 12, 18):                                               # ASPP
        branches.append(conv_bn_act(L, x, 256, 3, dilation=rate))
    pooled = L.GlobalAveragePooling2D(keepdims=True)(x)
    pooled = conv_bn_act(L, pooled, 256, 1)
    branches.append(C.ResizeAlignCorners((h, w))(pooled))
    x = conv_bn_act(L, L.Concatenate()(branches), 256, 1)
    x = L.Conv2D(21, 1)(x)
    out = C.ResizeAlignCorners((size, size), name="logits")(x)
    return keras.Model(inp, out, name="deeplab_v3"), -1.0, 1.0, \
        "DeepLab v3: MobileNetV2 at output stride 16 (dilated last stages), ASPP rates 6/12/18 + image pooling, 21 classes"


def unet(keras, tf, size):
    L = keras.layers
    inp = keras.Input((size, size, 3), batch_size=1, name="input")
    skips, x = [], inp
    for filters in (16, 32, 64, 128):
        x = conv_bn_act(L, conv_bn_act(L, x, filters, 3), filters, 3)
        skips.append(x)
        x = L.MaxPooling2D(2)(x)
    x = conv_bn_act(L, conv_bn_act(L, x, 256, 3), 256, 3)
    for filters, skip in zip((128, 64, 32, 16), reversed(skips)):
        x = L.Conv2DTranspose(filters, 2, strides=2, padding="same")(x)     # TRANSPOSE_CONV
        x = L.Concatenate()([x, skip])
        x = conv_bn_act(L, conv_bn_act(L, x, filters, 3), filters, 3)
    out = L.Conv2D(1, 1, activation="sigmoid", name="mask")(x)
    return keras.Model(inp, out, name="unet"), 0.0, 1.0, "U-Net, 4 levels 16..256 filters, transposed-conv upsampling"


def espcn_x3(keras, tf, size):
    L = keras.layers
    C = custom_layers(keras, tf)
    inp = keras.Input((size, size, 3), batch_size=1, name="input")
    x = L.Conv2D(64, 5, padding="same", activation="tanh")(inp)
    x = L.Conv2D(32, 3, padding="same", activation="tanh")(x)
    x = L.Conv2D(3 * 9, 3, padding="same")(x)
    out = C.DepthToSpace(3, name="upscaled")(x)                             # DEPTH_TO_SPACE
    return keras.Model(inp, out, name="espcn_x3"), 0.0, 1.0, "ESPCN x3 super-resolution (RGB), sub-pixel convolution"


def midas_like(keras, tf, size):
    L = keras.layers
    C = custom_layers(keras, tf)
    inp = keras.Input((size, size, 3), batch_size=1, name="input")
    backbone = keras.applications.MobileNetV2(input_tensor=inp, weights=None, include_top=False, alpha=1.0)
    taps = [backbone.get_layer(n).output for n in
            ("block_3_expand_relu", "block_6_expand_relu", "block_13_expand_relu", "out_relu")]
    features = 64

    def residual_unit(x):
        y = L.Conv2D(features, 3, padding="same")(L.ReLU()(x))
        y = L.Conv2D(features, 3, padding="same")(L.ReLU()(y))
        return L.Add()([x, y])

    layers = [L.Conv2D(features, 3, padding="same", use_bias=False)(t) for t in taps]
    path = None
    for layer in reversed(layers):                                        # MiDaS' FeatureFusionBlocks
        x = layer if path is None else L.Add()([path, residual_unit(layer)])
        x = residual_unit(x)
        h, w = x.shape[1], x.shape[2]
        path = L.Conv2D(features, 1)(C.ResizeAlignCorners((2 * h, 2 * w))(x))
    x = L.Conv2D(features // 2, 3, padding="same")(path)
    x = C.ResizeAlignCorners((size, size))(x)
    x = L.Conv2D(32, 3, padding="same", activation="relu")(x)
    out = L.Conv2D(1, 1, activation="relu", name="depth")(x)
    return keras.Model(inp, out, name="midas_like"), -1.0, 1.0, \
        "MiDaS-small-like: MobileNetV2 taps 1/4..1/32, fusion blocks, align_corners bilinear upsampling, ReLU depth"


ARCHITECTURES = collections.OrderedDict([
    ("yolov8n_like", (yolov8n_like, 320)),
    ("movenet_like", (movenet_like, 192)),
    ("mobilenet_v3_large", (mobilenet_v3_large, 224)),
    ("efficientnet_v2_b0", (efficientnet_v2_b0, 224)),
    ("deeplab_v3", (deeplab_v3, 257)),
    ("unet", (unet, 256)),
    ("espcn_x3", (espcn_x3, 224)),
    ("midas_like", (midas_like, 256)),
])


# ---------------------------------------------------------------------------------------------------------------
# Calibration, conversion, description.

def calibrate_batch_norm(keras, model, batch):
    """Sets every BatchNormalization's moving statistics to those of the photos, in one training-mode pass with
    momentum 0: random weights then give activations of unit scale at every depth instead of ones that vanish or
    explode, so that both the float comparison and the int8 calibration see realistic ranges."""
    norms = [layer for layer in model._flatten_layers() if isinstance(layer, keras.layers.BatchNormalization)]
    for layer in norms:
        layer.momentum = 0.0
    model(batch, training=True)
    return len(norms)


def convert(tf, model, images, quantized, io_type):
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if quantized:
        def representative_dataset():
            for image in images:
                yield [image[None].astype(np.float32)]
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative_dataset
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = io_type
        converter.inference_output_type = io_type
    with contextlib.redirect_stdout(io.StringIO()):  # the SavedModel export's listing of captures
        return converter.convert()


def describe(content):
    """The operators ([name, version, count] in first-use order) and the graph's inputs and outputs."""
    from tensorflow.lite.python import schema_py_generated as schema
    model = schema.Model.GetRootAsModel(content, 0)
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    types = {v: k for k, v in vars(schema.TensorType).items() if not k.startswith("_")}
    codes = []
    for i in range(model.OperatorCodesLength()):
        oc = model.OperatorCodes(i)
        code = max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode())
        name = names.get(code, str(code))
        codes.append((oc.CustomCode().decode() if name == "CUSTOM" else name, oc.Version()))
    graph = model.Subgraphs(0)
    counts = collections.Counter(codes[graph.Operators(i).OpcodeIndex()] for i in range(graph.OperatorsLength()))
    order = []
    for i in range(graph.OperatorsLength()):
        key = codes[graph.Operators(i).OpcodeIndex()]
        if key not in order:
            order.append(key)

    def tensor(index):
        t = graph.Tensors(index)
        q = t.Quantization()
        scale = q.ScaleAsNumpy().tolist() if q is not None and q.ScaleLength() else []
        zero = q.ZeroPointAsNumpy().tolist() if q is not None and q.ZeroPointLength() else []
        return {"name": t.Name().decode(), "shape": t.ShapeAsNumpy().tolist(), "dtype": types[t.Type()].lower(),
                "scale": scale[0] if len(scale) == 1 else None, "zero_point": zero[0] if len(zero) == 1 else None}

    return {"subgraphs": model.SubgraphsLength(), "operator_count": graph.OperatorsLength(),
            "operators": [[name, version, counts[(name, version)]] for name, version in order],
            "inputs": [tensor(i) for i in graph.InputsAsNumpy()], "outputs": [tensor(i) for i in graph.OutputsAsNumpy()]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared"))
    ap.add_argument("--out", default=os.path.join(HERE, "..", ".cache", "model-corpus"))
    ap.add_argument("--only", nargs="*", choices=list(ARCHITECTURES), help="only these architectures")
    args = ap.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    import keras
    tf.config.experimental.enable_op_determinism()
    print(f"TensorFlow {tf.__version__}, Keras {keras.__version__}")
    os.makedirs(args.out, exist_ok=True)
    for name, (build, size) in ARCHITECTURES.items():
        if args.only and name not in args.only:
            continue
        started = time.time()
        keras.utils.set_random_seed(SEED)
        pixels = load_photos(args.shared, size)
        model, low, high, summary = build(keras, tf, size)
        images = scaled(pixels, low, high)
        norms = calibrate_batch_norm(keras, model, np.concatenate([images, images[:, :, ::-1]]))
        for variant in ("float32", "int8"):
            io_type = tf.uint8 if name in UINT8_IO else tf.int8
            content = convert(tf, model, images, variant == "int8", io_type)
            stem = f"{name}_{variant}"
            with open(os.path.join(args.out, stem + ".tflite"), "wb") as f:
                f.write(content)
            description = describe(content)
            manifest = {"model": stem + ".tflite", "architecture": name, "summary": summary, "variant": variant,
                        "input_size": size, "input_range": [low, high], "keras_parameters": int(model.count_params()),
                        "batch_norms_calibrated": norms, "seed": SEED, "tensorflow": tf.__version__,
                        "bytes": len(content), **description}
            with open(os.path.join(args.out, stem + ".json"), "w") as f:
                json.dump(manifest, f, indent=1)
            ops = ", ".join(f"{n}x{c}" for n, _, c in description["operators"])
            print(f"{stem}: {len(content) / 1e6:.1f} MB, {description['operator_count']} operators: {ops}")
        print(f"  {name}: {model.count_params()} parameters, {norms} batch norms, {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
