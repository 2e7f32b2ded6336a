import VisionTasksModelFormat

/// Runs every reader of the Format layer over one file, the way a task would at load: bundle members, each
/// model's graph, its metadata and label files, custom options as FlexBuffers, and the `model info` summary.
///
/// Used by the mutation tests and the fuzzer: for any bytes at all this must return, never trap.
public enum ModelExercise {
    public enum Outcome: Equatable {
        case parsed(members: Int)
        case rejected(FormatError)
    }

    public static func run(_ bytes: ByteSlice, name: String) -> Outcome {
        do throws(FormatError) {
            let bundle = try TaskBundle(bytes: bytes, name: name)
            for member in bundle.members where member.isTFLiteModel {
                let model = try TFLiteModel(bytes: member.bytes)
                _ = try MemberSummary(path: member.path, model: model)
                if let metadata = try model.modelMetadata() {
                    for file in metadata.allAssociatedFiles where !file.name.isEmpty {
                        _ = try? model.labels(named: file.name)
                    }
                }
                for subgraph in model.subgraphs {
                    for op in subgraph.operators {
                        if let options = op.customOptions, model.code(of: op).builtin == .custom {
                            _ = try? FlexValue.decode(options)
                        }
                    }
                }
            }
            return .parsed(members: bundle.members.count)
        } catch {
            return .rejected(error)
        }
    }
}
