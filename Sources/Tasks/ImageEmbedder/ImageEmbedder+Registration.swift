import Foundation

extension ImageEmbedder {
    /// The Image Embedder as every surface takes it (`TaskRegistry`). Its JSON is MediaPipe's result, field for field:
    /// per head its index, name (null when the metadata names none) and the embedding as numbers — `floatEmbedding`, or
    /// `quantizedEmbedding` (signed bytes) with `quantize` — under the names of tools/mediapipe_embedder_goldens.py.
    package static let registration = TaskDescription(
        name: "image-embedder", title: "Image Embedder",
        summary: "Turn an image into a feature vector (one per model head, float or scalar-quantized) to compare with cosine similarity, as MediaPipe's Image Embedder does.",
        modelNames: ["efficientnet_lite0_embedder.tflite"],
        options: [
            .flag("l2Normalize", \ImageEmbedderOptions.l2Normalize,
                  help: "Divide each embedding by its L2 norm (for models without an L2_NORMALIZATION operator)."),
            .flag("quantize", \ImageEmbedderOptions.quantize,
                  help: "Scalar-quantize each embedding to one signed byte per dimension (value × 128, clamped)."),
        ],
        mediapipeClass: "ImageEmbedder", mediapipeMethod: "embed", benchImage: "coral_cat.png",
        benchVideo: "face_head_turning.mp4", task: ImageEmbedder.self
    ) { result in
        let embeddings = result.embeddingResult.embeddings
        return TaskAnswer(json: ["embeddings": embeddings.map(json)],
                          summary: "\(embeddings.count) embedding(s)" + (embeddings.first.map { ", \(summary($0))" } ?? ""),
                          marks: [])
    }

    private static func json(_ embedding: Embedding) -> [String: Any] {
        var out: [String: Any] = ["headIndex": embedding.headIndex, "headName": embedding.headName ?? NSNull()]
        if let values = embedding.floatValues { out["floatEmbedding"] = values.map(Double.init) }
        if let values = embedding.quantizedValues { out["quantizedEmbedding"] = values.map(Int.init) }
        return out
    }

    private static func summary(_ embedding: Embedding) -> String {
        let kind = embedding.quantizedValues.map { "\($0.count) bytes" } ?? "\(embedding.floatValues?.count ?? 0) floats"
        return embedding.headName.map { "\(kind) (head \($0))" } ?? kind
    }
}
