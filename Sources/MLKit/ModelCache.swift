import Crypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder of downloaded models: one file per model name, `<name>.tflite`, and nothing else but the hidden
/// `.<name>.tflite.<uuid>.partial` files of downloads under way. A model file is only ever put there by renaming a
/// complete, verified download over it, so a file that is there is a whole model.
///
/// The folder is `$VISION_TASKS_MODEL_CACHE` when that is set, else `$XDG_CACHE_HOME/vision-tasks/models`, else
/// `~/.cache/vision-tasks/models`; it is read at each use and created on the first download.
package struct ModelCache: Sendable {
    package static let environmentVariable = "VISION_TASKS_MODEL_CACHE"

    package let directory: URL

    package init(directory: URL) {
        self.directory = directory
    }

    /// The cache the environment names (see the type's documentation).
    package static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> ModelCache {
        if let path = environment[environmentVariable], !path.isEmpty {
            return ModelCache(directory: URL(fileURLWithPath: path, isDirectory: true))
        }
        let cacheHome: URL
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            cacheHome = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], !home.isEmpty {
            cacheHome = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        } else {
            cacheHome = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        }
        return ModelCache(directory: cacheHome.appendingPathComponent("vision-tasks/models", isDirectory: true))
    }

    /// The file name of model `name`. Names are refused when empty, longer than 200 bytes, or holding `/`, `\`, `..`
    /// or a NUL; other bytes outside `A–Z a–z 0–9 . _ -`, and a leading `.`, are written `%XX`, so that two names
    /// never share a file and no name makes a hidden file.
    package static func fileName(for name: String) throws(ModelDownloadError) -> String {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 200, !name.contains(".."),
              !bytes.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 == 0 })
        else { throw .invalidModelName(name) }
        var encoded = ""
        for (index, byte) in bytes.enumerated() {
            let plain = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || (byte == UInt8(ascii: ".") && index > 0)
            encoded += plain ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
        }
        return encoded + ".tflite"
    }

    /// Where model `name` is (or would be) stored.
    package func path(for name: String) throws(ModelDownloadError) -> String {
        directory.appendingPathComponent(try Self.fileName(for: name), isDirectory: false).path
    }

    /// The stored model file of `name`, if there is one (a regular file, not empty).
    package func storedModel(_ name: String) -> String? {
        guard let file = try? path(for: name) else { return nil }
        var info = stat()
        guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return nil }
        return file
    }

    /// Creates the folder if it is missing.
    func create() throws(ModelDownloadError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem("cannot create \(directory.path): \(error.localizedDescription)")
        }
    }

    /// A new, empty file for a download of `name`, opened for writing, beside the model's final place (so that
    /// ``install(_:as:)`` is a rename within one file system).
    func createPartialFile(for name: String) throws(ModelDownloadError) -> (path: String, descriptor: Int32) {
        let path = directory.appendingPathComponent(".\(try Self.fileName(for: name)).\(UUID().uuidString).partial").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .fileSystem("cannot create \(path): \(String(cString: strerror(errno)))") }
        return (path, descriptor)
    }

    /// Puts the complete, verified download at `partialPath` in place of model `name`: one rename, which replaces an
    /// older file atomically (a reader sees the old model or the new one, never a mix), then the folder is synced so
    /// that the rename survives a crash.
    func install(_ partialPath: String, as name: String) throws(ModelDownloadError) {
        let destination = try path(for: name)
        guard rename(partialPath, destination) == 0 else {
            throw .fileSystem("cannot rename \(partialPath) to \(destination): \(String(cString: strerror(errno)))")
        }
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    /// The SHA-256 of the file at `path` in lowercase hexadecimal, or nil if it cannot be read.
    static func sha256(ofFileAt path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        do {
            // nil (or empty) at the end of the file; a read error throws.
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        } catch {
            return nil
        }
        return hasher.finalize().hexadecimal
    }
}

extension SHA256Digest {
    /// The digest in lowercase hexadecimal, as sources give it.
    var hexadecimal: String {
        map { String($0, radix: 16).leftPadded(2) }.joined()
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
