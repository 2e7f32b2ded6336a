/// One option of a registered task: MediaPipe's name, its kind and range, its default and how it is set. The
/// command line, the worker and the service check a value against it with the same messages.
package struct TaskOptionDescription: Sendable {
    package enum Kind: Sendable, Equatable {
        case integer(ClosedRange<Int>)
        case number(ClosedRange<Float>)
        case flag
        /// A list of names (repeated option, or comma-separated in a query).
        case names
    }

    /// MediaPipe's name: `minDetectionConfidence`.
    package let name: String
    package let kind: Kind
    package let help: String
    /// MediaPipe's default, as written in help.
    package let defaultValue: TaskOptionValue
    /// Sets the value on the task's options object.
    package let apply: @Sendable (TaskOptionValue, TaskOptions) -> Void

    /// A float option of a task whose options class is `Options`, set through `path`.
    package static func number<Options: TaskOptions>(_ name: String, _ path: ReferenceWritableKeyPath<Options, Float> & Sendable,
                                                     in range: ClosedRange<Float>, help: String) -> Self {
        TaskOptionDescription(name: name, kind: .number(range), help: help, defaultValue: .number(Options()[keyPath: path])) { value, options in
            if case let .number(v) = value, let options = options as? Options { options[keyPath: path] = v }
        }
    }

    package static func integer<Options: TaskOptions>(_ name: String, _ path: ReferenceWritableKeyPath<Options, Int> & Sendable,
                                                      in range: ClosedRange<Int>, help: String) -> Self {
        TaskOptionDescription(name: name, kind: .integer(range), help: help, defaultValue: .integer(Options()[keyPath: path])) { value, options in
            if case let .integer(v) = value, let options = options as? Options { options[keyPath: path] = v }
        }
    }

    package static func flag<Options: TaskOptions>(_ name: String, _ path: ReferenceWritableKeyPath<Options, Bool> & Sendable,
                                                   help: String) -> Self {
        TaskOptionDescription(name: name, kind: .flag, help: help, defaultValue: .flag(Options()[keyPath: path])) { value, options in
            if case let .flag(v) = value, let options = options as? Options { options[keyPath: path] = v }
        }
    }

    package static func names<Options: TaskOptions>(_ name: String, _ path: ReferenceWritableKeyPath<Options, [String]> & Sendable,
                                                    help: String) -> Self {
        TaskOptionDescription(name: name, kind: .names, help: help, defaultValue: .names(Options()[keyPath: path])) { value, options in
            if case let .names(v) = value, let options = options as? Options { options[keyPath: path] = v }
        }
    }

    /// The command line's flag: `--min-detection-confidence`.
    package var flag: String {
        var out = "--"
        for character in name {
            if character.isUppercase { out += "-" + character.lowercased() } else { out.append(character) }
        }
        return out
    }

    /// A value from text (a command-line argument or a query parameter), checked against the kind's range; the
    /// error names the option as `label` gives it (the flag or MediaPipe's name).
    package func value(parsing text: String, label: String) throws(TaskOptionError) -> TaskOptionValue {
        switch kind {
        case let .integer(range):
            guard let v = Int(text) else { throw TaskOptionError("\(label) must be an integer (got '\(text)')") }
            guard range.contains(v) else { throw TaskOptionError("\(label) must be between \(range.lowerBound) and \(range.upperBound) (got \(v))") }
            return .integer(v)
        case let .number(range):
            guard let v = Float(text), v.isFinite else { throw TaskOptionError("\(label) must be a finite number (got '\(text)')") }
            guard range.contains(v) else { throw TaskOptionError("\(label) must be between \(range.lowerBound) and \(range.upperBound) (got \(v))") }
            return .number(v)
        case .flag:
            switch text.lowercased() {
            case "true", "1": return .flag(true)
            case "false", "0": return .flag(false)
            default: throw TaskOptionError("\(label) must be true or false (got '\(text)')")
            }
        case .names:
            return .names(text.split(separator: ",").map(String.init))
        }
    }

    /// How help shows the kind: `a number in [0.0, 1.0]`.
    package var kindDescription: String {
        switch kind {
        case let .integer(range): return "an integer in [\(range.lowerBound), \(range.upperBound)]"
        case let .number(range): return "a number in [\(range.lowerBound), \(range.upperBound)]"
        case .flag: return "true or false"
        case .names: return "names"
        }
    }
}

/// A value of a ``TaskOptionDescription``.
package enum TaskOptionValue: Hashable, Sendable, CustomStringConvertible {
    case integer(Int), number(Float), flag(Bool), names([String])

    package var description: String {
        switch self {
        case let .integer(v): return "\(v)"
        case let .number(v): return "\(v)"
        case let .flag(v): return "\(v)"
        case let .names(v): return v.joined(separator: ",")
        }
    }
}

/// A value a ``TaskOptionDescription`` refuses, with the message every surface shows.
package struct TaskOptionError: Error, CustomStringConvertible, Sendable {
    package let description: String
    package init(_ description: String) { self.description = description }
}
