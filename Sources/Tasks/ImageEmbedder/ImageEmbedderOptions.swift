/// Options of an ``ImageEmbedder``, with MediaPipe's names and its iOS defaults (``TaskOptions`` has the shared ones).
public final class ImageEmbedderOptions: TaskOptions, TaskOptionsValues {
    /// The embedder options in one value: a copy copies it whole.
    struct Values: Sendable {
        var l2Normalize = false
        var quantize = false
    }

    var values = Values()

    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public var imageEmbedderLiveStreamDelegate: (any ImageEmbedderLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any ImageEmbedderLiveStreamDelegate } set { liveStreamDelegateObject = newValue }
    }

    /// Whether each embedding is L2-normalized (divided by its Euclidean norm; one of all zeros is left as it is). For
    /// models without an L2_NORMALIZATION operator of their own. `false` by default.
    public var l2Normalize: Bool {
        get { values.l2Normalize } set { values.l2Normalize = newValue }
    }

    /// Whether embeddings are scalar-quantized to one signed byte per dimension (``Embedding/quantizedEmbedding``)
    /// instead of floats. The values are taken to lie in [−1, 1] (unit norm: set ``l2Normalize`` if the model does not
    /// normalize); beyond it they are clamped. `false` by default.
    public var quantize: Bool {
        get { values.quantize } set { values.quantize = newValue }
    }
}
