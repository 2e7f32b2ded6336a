/// ML Kit's options for its base detector (no custom classifier): with classification on, objects carry the
/// detector's own labels.
public final class ObjectDetectorOptions: CommonObjectDetectorOptions {
    public override init() {}
}
