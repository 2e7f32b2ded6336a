import VisionTasksModelFormat
import Foundation

/// The task bundles and models found in the models folder under their shipped names, with their SHA-256
/// (`GET /v1/models`), in each task's order of preference.
struct ModelCatalog: Sendable {
    struct Model: Sendable, Encodable {
        let name: String
        let task: TaskKind
        let sha256: String
        let bytes: Int
        /// Not in the JSON: the file's path on the service's machine.
        let location: String

        enum CodingKeys: String, CodingKey { case name, task, sha256, bytes }

        init(name: String, task: TaskKind, sha256: String, bytes: Int, location: String) {
            self.name = name
            self.task = task
            self.sha256 = sha256
            self.bytes = bytes
            self.location = location
        }
    }

    let models: [Model]

    /// Reads every known file in `directory` (a regular file, or a link to one). Hashing streams the file.
    init(directory: String) throws(ServerError) {
        var found: [Model] = []
        for task in TaskKind.allCases {
            for name in task.modelNames {
                let path = (directory as NSString).appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
                do {
                    let (digest, bytes) = try Self.sha256(of: path)
                    found.append(Model(name: name, task: task, sha256: digest, bytes: bytes, location: path))
                } catch {
                    throw .modelFailed(name: name, message: "cannot read: \(error)")
                }
            }
        }
        guard !found.isEmpty else { throw .noModels(directory: directory) }
        models = found
    }

    /// The model `name` of `task`, or the task's default (its first present) when `name` is nil.
    func model(for task: TaskKind, named name: String?) -> (name: String, path: String)? {
        let candidates = models.filter { $0.task == task }
        let model = name.map { name in candidates.first { $0.name == name } } ?? candidates.first
        return model.map { ($0.name, $0.location) }
    }

    private static func sha256(of path: String) throws -> (String, Int) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CocoaError(.fileReadNoPermission) }
        defer { try? handle.close() }
        var hasher = SHA256()
        var bytes = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            bytes += chunk.count
        }
        return (SHA256.hexadecimal(hasher.finalize()), bytes)
    }
}
