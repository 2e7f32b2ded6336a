"""Flatbuffer helpers shared by the tools that write one-operator LiteRT models (litert_kernel_sweeps.py,
litert_postprocess_goldens.py, litert_quantized_goldens.py)."""
import numpy as np
from ai_edge_litert import schema_py_generated as schema

class AlignedBufferT(schema.BufferT):
    """A constant buffer packed 16-byte aligned, as LiteRT's converter writes them."""

    def Pack(self, builder):
        data = None
        if self.data is not None and len(self.data):
            raw = np.asarray(self.data, dtype=np.uint8).tobytes()
            builder.StartVector(1, len(raw), 16)
            builder.head = builder.head - len(raw)
            builder.Bytes[builder.head:builder.head + len(raw)] = raw
            data = builder.EndVector()
        schema.BufferStart(builder)
        if data is not None:
            schema.BufferAddData(builder, data)
        return schema.BufferEnd(builder)
