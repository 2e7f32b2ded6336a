#!/usr/bin/env python3
"""Small full-integer (int8) quantized .tflite models, made by TensorFlow's own converter, as test fixtures.

None of the shipped models is int8-quantized, so this script makes two tiny MobileNet-like Keras models (fixed
seeds), trains them for a few steps on the shared photos so that their activations are not degenerate, and
converts them with tf.lite.TFLiteConverter the way full-integer quantization is done today:
optimizations=[tf.lite.Optimize.DEFAULT], a representative dataset of the real photos in ../shared/images
resized to the input size, target_spec.supported_ops=[tf.lite.OpsSet.TFLITE_BUILTINS_INT8]. The result has int8
activations, per-channel int8 weights on CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED and int32 biases.

Inputs are RGB photos resized (bilinear) to the input size and mapped to [-1, 1] (x / 127.5 - 1), as for
MobileNet; an int8 input is that value quantized with the input tensor's scale and zero point.

Writes:
  Tests/Fixtures/int8_mobilenet.tflite  64x64x3 int8 input, [1,10] int8 output (inference_input_type and
      inference_output_type tf.int8). Operators (name, version, count), as converted by TensorFlow 2.21.0:
        CONV_2D v3 x7
        DEPTHWISE_CONV_2D v3 x4
        ADD v2 x1
        PAD v2 x1
        AVERAGE_POOL_2D v2 x1
        MAX_POOL_2D v2 x1
        CONCATENATION v2 x2
        MEAN v2 x2
        FULLY_CONNECTED v4 x3
        LOGISTIC v2 x1
        MUL v2 x1
        RESIZE_BILINEAR v3 x1
        SOFTMAX v2 x1
  Tests/Fixtures/int8_float_io.tflite   32x32x3 float32 input, [1,4] float32 output (the converter's default
      I/O), so the graph starts with QUANTIZE and ends with DEQUANTIZE. Operators (name, version, count):
        QUANTIZE v1 x1
        CONV_2D v3 x2
        DEPTHWISE_CONV_2D v3 x1
        MEAN v2 x1
        FULLY_CONNECTED v4 x1
        SOFTMAX v2 x1
        DEQUANTIZE v2 x1

What the converter does with these graphs (TensorFlow 2.21.0): batch normalization folds into the conv biases
and ReLU6 / ReLU into the ops' fused activation; the squeeze-excite Reshape to [1,1,1,32] is dropped, so MUL
broadcasts a [1,8,8,32] tensor against a [1,32] one; a ZeroPadding2D that equals SAME padding (((0,1),(0,1))
before a stride-2 VALID conv) is folded into the conv, which is why the PAD here is symmetric; CONCATENATION's
inputs and output share one scale, while ADD's two inputs have different scales; UpSampling2D(bilinear) becomes
RESIZE_BILINEAR with half_pixel_centers; the models are converted with a fixed batch of 1, since with a free batch
dimension the Reshape becomes SHAPE + STRIDED_SLICE + PACK + RESHAPE.

Each model is then checked in LiteRT (ai_edge_litert's Interpreter with its default resolver, run in the other
venv as a child process): it runs on every photo, its outputs vary across photos and are not all saturated, its
top class mostly agrees with the float Keras model, and every conv / depthwise / fully-connected weight tensor is
int8 with one scale per output channel (and its bias int32 with scale = input scale x weight scale).

Usage (from the repository; the venv is python3 -m venv .cache/tf && .cache/tf/bin/pip install tensorflow-cpu
numpy pillow):
    .cache/tf/bin/python tools/make_int8_fixtures.py [--shared ../shared] [--out Tests/Fixtures]
        [--litert-python .cache/venv/bin/python]
"""
import argparse
import collections
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

SEED = 1234
HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------------------------------------------------------
# LiteRT child process: runs in the venv that has ai_edge_litert.

def litert_main(request_path, reply_path):
    from ai_edge_litert.interpreter import Interpreter
    request = json.load(open(request_path))
    images = np.load(request["images"])
    interpreter = Interpreter(model_path=request["model"])  # default op resolver (XNNPACK applied where it can)
    interpreter.allocate_tensors()
    inp, out = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    outputs = []
    for image in images:
        x = image[None]
        if inp["dtype"] != np.float32:
            scale, zero_point = inp["quantization"]
            info = np.iinfo(inp["dtype"])
            x = np.clip(np.round(x / scale) + zero_point, info.min, info.max).astype(inp["dtype"])
        interpreter.set_tensor(inp["index"], x)
        interpreter.invoke()
        outputs.append(interpreter.get_tensor(out["index"])[0].tolist())

    def io_details(d):
        return {"name": d["name"], "dtype": np.dtype(d["dtype"]).name, "shape": d["shape"].tolist(),
                "shape_signature": d["shape_signature"].tolist(), "quantization": list(d["quantization"])}

    tensors = {}
    for d in interpreter.get_tensor_details():
        q = d["quantization_parameters"]
        tensors[d["index"]] = {"name": d["name"], "dtype": np.dtype(d["dtype"]).name, "shape": d["shape"].tolist(),
                               "scales": q["scales"].tolist(), "zero_points": q["zero_points"].tolist(),
                               "quantized_dimension": int(q["quantized_dimension"])}
    json.dump({"input": io_details(inp), "output": io_details(out), "outputs": outputs, "tensors": tensors},
              open(reply_path, "w"))


def litert(python, tmp, model_path, images):
    request, reply = os.path.join(tmp, "request.json"), os.path.join(tmp, "reply.json")
    np.save(os.path.join(tmp, "images.npy"), images)
    json.dump({"model": os.path.abspath(model_path), "images": os.path.join(tmp, "images.npy")}, open(request, "w"))
    subprocess.run([python, os.path.abspath(__file__), "--litert-child", request, reply], check=True)
    reply = json.load(open(reply))
    reply["tensors"] = {int(k): v for k, v in reply["tensors"].items()}
    return reply


# ---------------------------------------------------------------------------------------------------------------
# Photos.

def load_photos(shared, size):
    from PIL import Image
    folder = os.path.join(shared, "images")
    names = sorted(n for n in os.listdir(folder) if n.lower().endswith((".jpg", ".jpeg", ".png")))
    if not names:
        sys.exit(f"no photos in {folder}")
    images = []
    for name in names:
        rgb = Image.open(os.path.join(folder, name)).convert("RGB").resize((size, size), Image.BILINEAR)
        images.append(np.asarray(rgb, dtype=np.float32) / 127.5 - 1.0)
    return names, np.stack(images)


# ---------------------------------------------------------------------------------------------------------------
# Models.

def conv_bn(layers, x, filters, kernel, strides=1, padding="same", relu6=True):
    x = layers.Conv2D(filters, kernel, strides=strides, padding=padding, use_bias=False)(x)
    x = layers.BatchNormalization(momentum=0.8)(x)
    return layers.ReLU(6.0)(x) if relu6 else x


def dw_bn(layers, x, kernel, strides=1, padding="same"):
    x = layers.DepthwiseConv2D(kernel, strides=strides, padding=padding, depth_multiplier=1, use_bias=False)(x)
    x = layers.BatchNormalization(momentum=0.8)(x)
    return layers.ReLU(6.0)(x)


def mobilenet_model(keras, batch_size=None):
    """64x64x3 -> 10 classes. Every listed op is there on purpose (see the comments)."""
    layers = keras.layers
    inp = keras.Input((64, 64, 3), batch_size=batch_size, name="image")
    x = conv_bn(layers, inp, 16, 3, strides=2)                  # CONV_2D 3x3 stride 2 SAME, fused RELU6  -> 32x32x16
    x = dw_bn(layers, x, 3)                                     # DEPTHWISE_CONV_2D 3x3 stride 1, RELU6
    x = conv_bn(layers, x, 24, 1, relu6=False)                  # CONV_2D 1x1, no activation              -> 32x32x24
    e = conv_bn(layers, x, 27, 1)                               # inverted residual, odd width 27
    e = dw_bn(layers, e, 3)                                     # DEPTHWISE_CONV_2D on 27 channels
    e = conv_bn(layers, e, 24, 1, relu6=False)
    x = layers.Add()([x, e])                                    # ADD (residual)
    x = layers.ZeroPadding2D(((1, 1), (1, 1)))(x)               # PAD (symmetric, so not foldable into SAME)
    x = dw_bn(layers, x, 3, strides=2, padding="valid")         # DEPTHWISE_CONV_2D 3x3 stride 2 VALID      -> 16x16x24
    x = conv_bn(layers, x, 32, 1)                               #                                            16x16x32
    x = dw_bn(layers, x, 5)                                     # DEPTHWISE_CONV_2D 5x5
    skip = x
    a = layers.MaxPooling2D(2)(x)                               # MAX_POOL_2D                              -> 8x8x32
    b = layers.AveragePooling2D(2)(x)                           # AVERAGE_POOL_2D                          -> 8x8x32
    x = layers.Concatenate()([a, b])                            # CONCATENATION                            -> 8x8x64
    x = conv_bn(layers, x, 32, 1)
    s = layers.GlobalAveragePooling2D()(x)                      # squeeze-excite: MEAN
    s = layers.Dense(8, activation="relu")(s)                   # FULLY_CONNECTED (fused RELU)
    s = layers.Dense(32, activation="sigmoid")(s)               # FULLY_CONNECTED + LOGISTIC
    s = layers.Reshape((1, 1, 32))(s)
    x = layers.Multiply()([x, s])                               # MUL (broadcast over H, W)
    x = layers.UpSampling2D(2, interpolation="bilinear")(x)     # RESIZE_BILINEAR                          -> 16x16x32
    x = layers.Concatenate()([x, skip])                         # CONCATENATION                            -> 16x16x64
    x = conv_bn(layers, x, 40, 1)
    x = layers.GlobalAveragePooling2D()(x)                      # MEAN
    x = layers.Dense(10)(x)                                     # FULLY_CONNECTED
    x = layers.Softmax()(x)                                     # SOFTMAX
    return keras.Model(inp, x, name="int8_mobilenet")


def float_io_model(keras, batch_size=None):
    layers = keras.layers
    inp = keras.Input((32, 32, 3), batch_size=batch_size, name="image")
    x = conv_bn(layers, inp, 8, 3, strides=2)                   # CONV_2D 3x3 stride 2, RELU6              -> 16x16x8
    x = dw_bn(layers, x, 3)                                     # DEPTHWISE_CONV_2D 3x3
    x = conv_bn(layers, x, 12, 1)                               # CONV_2D 1x1
    x = layers.GlobalAveragePooling2D()(x)                      # MEAN
    x = layers.Dense(4)(x)                                      # FULLY_CONNECTED
    x = layers.Softmax()(x)                                     # SOFTMAX
    return keras.Model(inp, x, name="int8_float_io")


def train(keras, model, images, classes, epochs):
    """A few steps on the photos (and their mirror images) with soft labels: enough to give the batch
    normalization real statistics and the layers varied, non-saturated activations, not to fit the labels."""
    x = np.concatenate([images, images[:, :, ::-1]])
    labels = np.arange(len(x)) % classes
    y = keras.utils.to_categorical(labels, classes)
    model.compile(optimizer=keras.optimizers.Adam(2e-3),
                  loss=keras.losses.CategoricalCrossentropy(label_smoothing=0.5))
    model.fit(x, y, batch_size=8, epochs=epochs, shuffle=True, verbose=0)


def convert(tf, model, images, int8_io):
    def representative_dataset():
        for image in images:
            yield [image[None].astype(np.float32)]

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = representative_dataset
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    if int8_io:
        converter.inference_input_type = tf.int8
        converter.inference_output_type = tf.int8
    return converter.convert()


# ---------------------------------------------------------------------------------------------------------------
# Reading the flatbuffer back.

def describe(content):
    """[(op name, version, input tensor indices, output tensor indices)] and the tensors, from the flatbuffer."""
    from tensorflow.lite.python import schema_py_generated as schema
    model = schema.Model.GetRootAsModel(content, 0)
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    codes = []
    for i in range(model.OperatorCodesLength()):
        oc = model.OperatorCodes(i)
        code = max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode())
        codes.append((names.get(code, str(code)), oc.Version()))
    if model.SubgraphsLength() != 1:
        sys.exit(f"expected one subgraph, found {model.SubgraphsLength()}")
    graph = model.Subgraphs(0)
    ops = []
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        name, version = codes[op.OpcodeIndex()]
        ops.append((name, version, op.InputsAsNumpy().tolist(), op.OutputsAsNumpy().tolist()))
    return ops


def op_table(ops):
    counts = collections.Counter((name, version) for name, version, _, _ in ops)
    order = []
    for name, version, _, _ in ops:
        if (name, version) not in order:
            order.append((name, version))
    return [(name, version, counts[(name, version)]) for name, version in order]


def check(label, ops, reply, float_out):
    """Per-channel weights, int32 biases, outputs that vary and mostly agree with the float model."""
    tensors = reply["tensors"]
    weighted = 0
    for name, _, inputs, outputs in ops:
        if name not in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
            continue
        weighted += 1
        w, o = tensors[inputs[1]], tensors[outputs[0]]
        channels = w["shape"][3] if name == "DEPTHWISE_CONV_2D" else w["shape"][0]
        dim = 3 if name == "DEPTHWISE_CONV_2D" else 0
        assert w["dtype"] == "int8", (label, name, w)
        assert len(w["scales"]) == channels == o["shape"][-1], (label, name, w["name"], len(w["scales"]), channels)
        assert channels == 1 or w["quantized_dimension"] == dim, (label, name, w["quantized_dimension"])
        assert all(z == 0 for z in w["zero_points"]), (label, name, "weights are symmetric")
        if len(inputs) > 2 and inputs[2] >= 0:
            b, x = tensors[inputs[2]], tensors[inputs[0]]
            assert b["dtype"] == "int32", (label, name, b)
            expected = np.array(x["scales"]) * np.array(w["scales"])
            assert np.allclose(b["scales"], expected, rtol=1e-5), (label, name, "bias scale")
    assert weighted, label

    out = np.array(reply["outputs"], dtype=np.float64)
    oq = reply["output"]
    if oq["dtype"] != "float32":
        scale, zero_point = oq["quantization"]
        info = np.iinfo(oq["dtype"])
        saturated = np.mean((out == info.min) | (out == info.max))
        out = (out - zero_point) * scale
    else:
        saturated = np.mean((out <= 0.0) | (out >= 1.0))
    distinct = len({tuple(r) for r in np.round(out, 6).tolist()})
    agree = np.mean(out.argmax(1) == float_out.argmax(1))
    diff = np.abs(out - float_out).max()
    top = collections.Counter(out.argmax(1).tolist())
    print(f"  {label}: {len(out)} photos, {distinct} distinct outputs, max prob {out.max():.3f}, "
          f"min prob {out.min():.4f}, saturated fraction {saturated:.3f}, "
          f"top-class histogram {dict(sorted(top.items()))}")
    print(f"  {label}: top class agrees with the float Keras model on {agree:.0%} of photos, "
          f"max |int8 - float| = {diff:.4f}")
    assert distinct >= len(out) * 3 // 4, (label, "outputs barely vary across photos")
    assert saturated < 0.5, (label, "outputs mostly saturated")
    assert len(top) >= 2, (label, "every photo gives the same top class")
    assert agree >= 0.6, (label, "quantized model disagrees with the float model")
    return weighted


def fill_docstring(tables):
    """The op tables as they go in the docstring above (used to keep the docstring in step)."""
    text = {}
    for key, table in tables.items():
        text[key] = "\n".join(f"        {name} v{version} x{count}" for name, version, count in table)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared"))
    ap.add_argument("--out", default=os.path.join(HERE, "..", "Tests", "Fixtures"))
    ap.add_argument("--litert-python", default=os.path.join(HERE, "..", ".cache", "venv", "bin", "python"))
    ap.add_argument("--litert-child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.litert_child:
        return litert_main(*args.litert_child)

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    import keras
    keras.utils.set_random_seed(SEED)
    tf.config.experimental.enable_op_determinism()
    print(f"TensorFlow {tf.__version__}, Keras {keras.__version__}")

    tmp = tempfile.mkdtemp(prefix="int8_fixtures_")
    specs = [("int8_mobilenet", mobilenet_model, 64, 10, 12, True),
             ("int8_float_io", float_io_model, 32, 4, 12, False)]
    tables = {}
    for name, build, size, classes, epochs, int8_io in specs:
        keras.utils.set_random_seed(SEED)
        _, images = load_photos(args.shared, size)
        model = build(keras)
        train(keras, model, images, classes, epochs)
        # Converted with a fixed batch of 1, as deployed models are: with a free batch dimension the converter
        # turns Reshape into SHAPE + STRIDED_SLICE + PACK + RESHAPE to compute the batch at run time.
        fixed = build(keras, batch_size=1)
        fixed.set_weights(model.get_weights())
        float_out = fixed.predict(images, batch_size=1, verbose=0)
        with contextlib.redirect_stdout(io.StringIO()):  # the SavedModel export's listing of captures
            content = convert(tf, fixed, images, int8_io)
        path = os.path.join(args.out, name + ".tflite")
        with open(path, "wb") as f:
            f.write(content)
        ops = describe(content)
        table = op_table(ops)
        tables[name] = table
        reply = litert(args.litert_python, tmp, path, images)
        print(f"{os.path.relpath(path)}: {len(content)} bytes, {model.count_params()} Keras parameters, "
              f"{len(ops)} operators")
        for name_, version, count in table:
            print(f"  {name_:<20} v{version}  x{count}")
        for key in ("input", "output"):
            d = reply[key]
            print(f"  {key}: {d['name']} {d['dtype']} {d['shape']} (signature {d['shape_signature']}) "
                  f"scale {d['quantization'][0]:.9g} zero point {d['quantization'][1]}")
        weighted = check(name, ops, reply, float_out)
        print(f"  {name}: {weighted} conv/depthwise/fully-connected weights are per-channel int8 with int32 biases")
        assert len(content) < 300_000, (name, len(content))

    shutil.rmtree(tmp, ignore_errors=True)
    text = fill_docstring(tables)
    doc_ok = all(text[k] in __doc__ for k in text)
    if not doc_ok:
        print("\nThe docstring's operator lists differ from these models; they should read:")
        for key, value in text.items():
            print(f"  {key}:\n{value}")


if __name__ == "__main__":
    main()
