extension TaskOptionDescription {
    /// The classifier options the object detector and the image classifier share (MediaPipe's `ClassifierOptions`,
    /// flat in their options classes), spelled on the command line as the `object` and `classify` commands always
    /// spelled them. Only the command line checks `maxResults` beyond its type: the service leaves 0 to the task's
    /// own typed error, as it always has.
    package static func classifierOptions<Options: ClassificationTaskOptions>(_: Options.Type) -> [TaskOptionDescription] {
        [
            TaskOptionDescription.integer("maxResults", \Options.maxResults, in: Int.min...Int.max, help: "Most results per image (default: all).")
                .refusing { $0 == .integer(0) ? "must not be 0 (negative: all)" : nil }
                .rangeChecked(on: .commandLine),
            TaskOptionDescription.number("scoreThreshold", \Options.scoreThreshold,
                                         in: -Float.greatestFiniteMagnitude...Float.greatestFiniteMagnitude,
                                         help: "Drop results scoring below this."),
            TaskOptionDescription.names("categoryAllowlist", \Options.categoryAllowlist,
                                        help: "Only these category names (repeat the option).").spelled("allow"),
            TaskOptionDescription.names("categoryDenylist", \Options.categoryDenylist,
                                        help: "Never these category names (repeat the option).").spelled("deny"),
        ]
    }
}
