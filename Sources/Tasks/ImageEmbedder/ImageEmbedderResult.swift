/// The embeddings of an image, one ``Embedding`` per model output head (MediaPipe's `MPPImageEmbedderResult`).
public struct ImageEmbedderResult: TaskResult, Sendable, Equatable {
    public var embeddingResult: EmbeddingResult
    public var timestampInMilliseconds: Int

    public init(embeddingResult: EmbeddingResult, timestampInMilliseconds: Int) {
        self.embeddingResult = embeddingResult
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
