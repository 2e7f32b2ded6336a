import Foundation

/// A built task as the surfaces drive it, whatever its type: images and frames in, ``TaskAnswer``s out.
package protocol TaskSession: AnyObject, Sendable {
    /// Image mode (`timestamp` nil) or one video frame.
    func answer(_ image: MPImage, timestamp: Int?) throws(VisionTaskError) -> TaskAnswer
    /// Live-stream mode: queues the frame; its answer reaches the setup's handler as a ``TaskAnswer``.
    func answerAsync(_ image: MPImage, timestamp: Int) throws(VisionTaskError)
    func waitUntilIdle()
    /// Video mode: the next frame starts a new clip (the worker keeps a task for many clips).
    func startNewVideo() throws(VisionTaskError)
    var stageTimings: [NamedStageTimings] { get }
}

/// A result as the surfaces show it: MediaPipe's reference JSON (the CLI's `--json`, the worker's lines, the
/// service's bodies), a one-line summary and what a drawing marks.
package struct TaskAnswer: @unchecked Sendable {
    // @unchecked: `json` holds JSONSerialization's value types only (numbers, strings, arrays, dictionaries, NSNull),
    // built once and never changed.
    package let json: [String: Any]
    package let summary: String
    package let marks: [TaskMark]

    package init(json: [String: Any], summary: String, marks: [TaskMark]) {
        self.json = json; self.summary = summary; self.marks = marks
    }
}

/// What a drawing of a result shows: boxes in pixels of the image, points normalized to it (as MediaPipe gives each),
/// a confidence mask laid over it (the mask itself, not a copy: only a drawing reads its values).
package enum TaskMark: Sendable {
    case box(CGRect, label: String)
    case normalizedPoint(x: Double, y: Double)
    case confidence(Mask)
    /// A confidence mask laid over the image in `color` at `opacity`.
    case overlay(Mask, MarkColor, opacity: Double)
    /// A line between two normalized points, `width` pixels wide for the image.
    case segment(from: NormalizedMarkPoint, to: NormalizedMarkPoint, width: MarkSize, MarkColor)
    /// A dot at a normalized point.
    case dot(NormalizedMarkPoint, radius: MarkSize, MarkColor)
    /// White text whose top left is the normalized point `at` in pixels (skipped when that is not finite), moved by
    /// `offset` pixels and down `line` lines of 10 × the text's scale (``MarkSize/textScale(longerSide:)``).
    case text(String, at: NormalizedMarkPoint, offset: (x: Int, y: Int), line: Int, scale: MarkSize)
}

/// A normalized point of a mark (x and y in [0, 1] of the image's width and height, as MediaPipe's landmarks).
package struct NormalizedMarkPoint: Sendable {
    package let x: Double, y: Double
    package init(x: Double, y: Double) { self.x = x; self.y = y }
    package init(_ landmark: NormalizedLandmark) { x = Double(landmark.x); y = Double(landmark.y) }
}

/// The colours drawings use.
package enum MarkColor: Sendable { case red, green, blue, white }

/// A size that grows with the image: its longer side over `longerSideOver`, times `times`, at least `atLeast`.
package struct MarkSize: Sendable {
    package let longerSideOver: Double, times: Double, atLeast: Double

    package init(longerSideOver: Double, times: Double = 1, atLeast: Double) {
        self.longerSideOver = longerSideOver; self.times = times; self.atLeast = atLeast
    }

    package func pixels(longerSide: Int) -> Double { max(atLeast, Double(longerSide) / longerSideOver * times) }
    /// A text's integer scale: the ratio rounded, at least 1.
    package func textScale(longerSide: Int) -> Int { max(1, Int((Double(longerSide) / longerSideOver).rounded())) }
}

/// A ``TaskSession`` over a task of ours: `answer` turns its result into a ``TaskAnswer``.
final class RegisteredSession<Task: VisionTask>: TaskSession {
    let task: Task
    let answer: @Sendable (Task.Result) -> TaskAnswer

    init(_ task: Task, answer: @escaping @Sendable (Task.Result) -> TaskAnswer) {
        self.task = task
        self.answer = answer
    }

    func answer(_ image: MPImage, timestamp: Int?) throws(VisionTaskError) -> TaskAnswer {
        guard let timestamp else { return answer(try task.process(image: image)) }
        return answer(try task.process(videoFrame: image, timestampInMilliseconds: timestamp))
    }

    func answerAsync(_ image: MPImage, timestamp: Int) throws(VisionTaskError) {
        try task.processAsync(image: image, timestampInMilliseconds: timestamp)
    }

    func waitUntilIdle() { task.waitUntilIdle() }
    func startNewVideo() throws(VisionTaskError) { try task.startNewVideo() }
    var stageTimings: [NamedStageTimings] { task.stageTimings }
}

extension TaskDescription {
    /// The ``TaskDescription/open`` of a task of ours: its options class made from the setup, the task built, its
    /// live-stream results turned into answers for the setup's handler.
    package static func opener<Task: VisionTask>(
        _: Task.Type, answer: @escaping @Sendable (Task.Result) -> TaskAnswer
    ) -> @Sendable (TaskSetup, [TaskOptionDescription]) throws -> any TaskSession {
        { setup, descriptions in
            let options = Task.Options()
            options.baseOptions.modelAssetPath = setup.modelPath
            options.baseOptions.numThreads = setup.threads
            options.runningMode = setup.runningMode
            for (name, value) in setup.values {
                guard let description = descriptions.first(where: { $0.name == name }) else {
                    throw VisionTaskError.invalidOption(name: name, reason: "not an option of this task")
                }
                description.apply(value, options)
            }
            if let handler = setup.liveStreamHandler {
                options.liveStreamHandler = { timestamp, outcome in
                    switch outcome {
                    case let .result(result): handler(timestamp, (result as? Task.Result).map { .result(answer($0)) } ?? .result(result))
                    case let .failure(error): handler(timestamp, .failure(error))
                    case .dropped: handler(timestamp, .dropped)
                    }
                }
            }
            return RegisteredSession(try Task(options: options), answer: answer)
        }
    }
}
