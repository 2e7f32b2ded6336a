/// One option of a registered task: MediaPipe's name, its kind and range, its default and how it is set. The
/// command line, the worker and the service check a value against it with the same messages.
///
/// Most options are the same on every surface. Where the first six tasks' surfaces always differed — a command-line
/// spelling of their own (`--allow` for `categoryAllowlist`), a command-line default that is not MediaPipe's (two
/// poses, masks on), an option only the command line has (`--smoothing`) or only the service has
/// (`minTrackingConfidence`), a range only the command line checks (the service leaves it to the task's own typed
/// error) — the description says so through the modifiers below, which any task may use.
package struct TaskOptionDescription: Sendable {
    package enum Kind: Sendable, Equatable {
        case integer(ClosedRange<Int>)
        case number(ClosedRange<Float>)
        case flag
        /// A list of names: on the command line one name per occurrence (repeat the option), in a query
        /// comma-separated or repeated.
        case names
        /// One of these names.
        case choice([String])
        /// A file's path (ML Kit's custom classifier): offered on the command line only, as a service that opened the
        /// files a request names would read any file of its host.
        case path
    }

    /// The surfaces that offer an option: the command line (with the worker, which speaks its options) and the service.
    package struct Surfaces: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        package static let commandLine = Surfaces(rawValue: 1)
        package static let service = Surfaces(rawValue: 2)
        package static let all: Surfaces = [.commandLine, .service]
    }

    /// MediaPipe's name: `minDetectionConfidence`.
    package let name: String
    package let kind: Kind
    package let help: String
    /// MediaPipe's default, as written in help.
    package let defaultValue: TaskOptionValue
    /// Sets the value on the task's options object.
    package let apply: @Sendable (TaskOptionValue, TaskOptions) -> Void
    /// The command line's name without dashes when it is not `name` in kebab case (`allow`).
    package private(set) var commandLineName: String?
    /// The value the command line and the worker set when the option is not given, when that is not MediaPipe's.
    package private(set) var commandLineDefault: TaskOptionValue?
    package private(set) var surfaces: Surfaces = .all
    /// The surfaces that check the kind's range and ``refusal``; the others check the type alone and leave the
    /// range to the task's own ``VisionTaskError/invalidOption(name:reason:)``.
    package private(set) var rangeCheckedOn: Surfaces = .all
    /// A value the range lets through but the option refuses: why, after the option's label (`must not be 0`).
    package private(set) var refusal: (@Sendable (TaskOptionValue) -> String?)?

    init(name: String, kind: Kind, help: String, defaultValue: TaskOptionValue,
         apply: @escaping @Sendable (TaskOptionValue, TaskOptions) -> Void) {
        self.name = name; self.kind = kind; self.help = help; self.defaultValue = defaultValue; self.apply = apply
    }

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

    /// An option whose value the task's own opener reads from ``TaskSetup/values`` (a task whose options are not a
    /// ``TaskOptions`` class: ML Kit's detector, whose `open` builds ML Kit's options from the values).
    package static func read(_ name: String, _ kind: Kind, default defaultValue: TaskOptionValue, help: String) -> Self {
        TaskOptionDescription(name: name, kind: kind, help: help, defaultValue: defaultValue) { _, _ in }
    }

    /// An option that is one of an enumeration's cases, by their raw names.
    package static func choice<Options: TaskOptions, Value: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ path: ReferenceWritableKeyPath<Options, Value> & Sendable, help: String
    ) -> Self where Value.RawValue == String {
        let names = Value.allCases.map(\.rawValue)
        // The cases by name, looked up in the closure (which then needs no `Value` metatype, not Sendable before Swift 6.2).
        let cases = Dictionary(Value.allCases.map { ($0.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        return TaskOptionDescription(name: name, kind: .choice(names), help: help, defaultValue: .name(Options()[keyPath: path].rawValue)) { value, options in
            if case let .name(v) = value, let options = options as? Options, let chosen = cases[v] { options[keyPath: path] = chosen }
        }
    }

    // MARK: - Modifiers

    /// Spelled `--NAME` on the command line (and `NAME` in camel case in the worker's requests).
    package func spelled(_ commandLineName: String) -> Self {
        var copy = self
        copy.commandLineName = commandLineName
        return copy
    }

    /// The command line and the worker set `value` when the option is not given.
    package func defaulting(onCommandLine value: TaskOptionValue) -> Self {
        var copy = self
        copy.commandLineDefault = value
        return copy
    }

    /// Offered on these surfaces only.
    package func only(_ surfaces: Surfaces) -> Self {
        var copy = self
        copy.surfaces = surfaces
        return copy
    }

    /// The range (and ``refusal``) checked on these surfaces only.
    package func rangeChecked(on surfaces: Surfaces) -> Self {
        var copy = self
        copy.rangeCheckedOn = surfaces
        return copy
    }

    /// Refuses the values for which `rule` gives a reason.
    package func refusing(_ rule: @escaping @Sendable (TaskOptionValue) -> String?) -> Self {
        var copy = self
        copy.refusal = rule
        return copy
    }

    // MARK: - Text

    /// The command line's flag: `--min-detection-confidence`.
    package var flag: String {
        if let commandLineName { return "--" + commandLineName }
        return "--" + Self.kebab(name)
    }

    /// The name a worker request gives the option: the flag in camel case (MediaPipe's name unless ``spelled(_:)``).
    package var workerName: String {
        guard let commandLineName else { return name }
        var out = "", upper = false
        for character in commandLineName {
            if character == "-" { upper = true } else { out += upper ? character.uppercased() : String(character); upper = false }
        }
        return out
    }

    /// `minDetectionConfidence` → `min-detection-confidence`.
    package static func kebab(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase { out += "-" + character.lowercased() } else { out.append(character) }
        }
        return out
    }

    /// A value from text (a command-line argument or a query parameter), checked against the kind's range on
    /// `surface` when the range is checked there; the error names the option as `label` gives it (the flag or
    /// MediaPipe's name).
    package func value(parsing text: String, label: String, on surface: Surfaces = .commandLine) throws(TaskOptionError) -> TaskOptionValue {
        let checksRange = !rangeCheckedOn.isDisjoint(with: surface)
        let value: TaskOptionValue
        switch kind {
        case let .integer(range):
            guard let v = Int(text) else { throw TaskOptionError("\(label) must be an integer (got '\(text)')") }
            guard !checksRange || range.contains(v) else { throw TaskOptionError("\(label) must be between \(range.lowerBound) and \(range.upperBound) (got \(v))") }
            value = .integer(v)
        case let .number(range):
            guard let v = Float(text), v.isFinite else { throw TaskOptionError("\(label) must be a finite number (got '\(text)')") }
            guard !checksRange || range.contains(v) else { throw TaskOptionError("\(label) must be between \(range.lowerBound) and \(range.upperBound) (got \(v))") }
            value = .number(v)
        case .flag:
            switch text.lowercased() {
            case "true", "1": value = .flag(true)
            case "false", "0": value = .flag(false)
            default: throw TaskOptionError("\(label) must be true or false (got '\(text)')")
            }
        case .names:
            value = surface == .commandLine ? .names(text.isEmpty ? [] : [text]) : .names(text.split(separator: ",").map(String.init))
        case let .choice(names):
            guard names.contains(text) else { throw TaskOptionError("\(label) must be one of \(names.joined(separator: ", ")) (got '\(text)')") }
            value = .name(text)
        case .path:
            guard !text.isEmpty else { throw TaskOptionError("\(label) must be a file's path (got an empty one)") }
            value = .text(text)
        }
        if checksRange, let reason = refusal?(value) { throw TaskOptionError("\(label) \(reason)") }
        return value
    }

    /// How help shows the kind: `a number in [0.0, 1.0]`; a number or integer of any value is just that.
    package var kindDescription: String {
        switch kind {
        case let .integer(range) where range == Int.min...Int.max: return "an integer"
        case let .integer(range): return "an integer in [\(range.lowerBound), \(range.upperBound)]"
        case let .number(range) where range == -Float.greatestFiniteMagnitude...Float.greatestFiniteMagnitude: return "a number"
        case let .number(range): return "a number in [\(range.lowerBound), \(range.upperBound)]"
        case .flag: return "true or false"
        case .names: return "names"
        case let .choice(names): return names.joined(separator: ", ")
        case .path: return "a file"
        }
    }
}

/// A value of a ``TaskOptionDescription``.
package enum TaskOptionValue: Hashable, Sendable, CustomStringConvertible {
    case integer(Int), number(Float), flag(Bool), names([String])
    /// A ``TaskOptionDescription/Kind/choice(_:)``'s value.
    case name(String)
    /// A ``TaskOptionDescription/Kind/path``'s value; empty as the default of an option not given (no file).
    case text(String)

    package var description: String {
        switch self {
        case let .integer(v): return "\(v)"
        case let .number(v): return "\(v)"
        case let .flag(v): return "\(v)"
        case let .names(v): return v.joined(separator: ",")
        case let .name(v): return v
        case let .text(v): return v.isEmpty ? "none" : v
        }
    }
}

/// A value a ``TaskOptionDescription`` refuses, with the message every surface shows.
package struct TaskOptionError: Error, CustomStringConvertible, Sendable {
    package let description: String
    package init(_ description: String) { self.description = description }
}
