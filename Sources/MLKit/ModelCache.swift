import Foundation
import VisionTasksModelFormat

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
///
/// Whoever can write in the folder decides what model this library runs, so the folder must be this user's alone:
/// it is created with mode 0700, and one that is owned by another user or writable by its group or by others is
/// refused (``ModelDownloadError/unsafeCache(path:reason:)``) rather than repaired — someone else may already have
/// put a file there. Model files are opened without following symbolic links (and without blocking on a FIFO); a
/// model file that is a symbolic link or not a regular file is refused with the same error, not replaced, so that
/// the user sees what was there. Partial files (mode 0600) left by a crashed or killed process are removed when
/// they are an hour old.
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

    /// The stored model file of `name`, if there is one: a regular file, not empty, not a symbolic link (no hash
    /// is computed: this answers `isModelDownloaded`, which ML Kit's apps call often).
    package func storedModel(_ name: String) -> String? {
        guard let file = try? path(for: name) else { return nil }
        var info = stat()
        guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return nil }
        return file
    }

    /// Whether there is any entry (a file, a link, anything) where model `name` is stored.
    func hasEntry(for name: String) -> Bool {
        guard let file = try? path(for: name) else { return false }
        var info = stat()
        return lstat(file, &info) == 0
    }

    /// What the cache holds for a model, checked against the SHA-256 it must have.
    enum Lookup: Equatable {
        /// Nothing is stored under the name.
        case missing
        /// A file is stored whose bytes hash otherwise (damaged, tampered with, or a version the source no longer
        /// names); `removed` says whether it was removed.
        case different(actual: String, removed: Bool)
        /// The model, `size` bytes with the expected SHA-256.
        case verified(path: String, size: Int64)
    }

    /// Model `name`'s file, hashed again now — a file on disk can change after it was verified — and, if
    /// `removingDifferent`, removed when its SHA-256 is not `sha256`. Throws
    /// ``ModelDownloadError/unsafeCache(path:reason:)`` for a model file that is a symbolic link or not a regular file.
    func lookUp(_ name: String, sha256: String, removingDifferent: Bool) throws(ModelDownloadError) -> Lookup {
        let file = try path(for: name)
        // O_NOFOLLOW: a link planted in place of the model is refused, not read; O_NONBLOCK: a FIFO there does not
        // block the open (fstat then refuses it).
        let descriptor = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT: return .missing
            case ELOOP: throw .unsafeCache(path: file, reason: "is a symbolic link, not a model file")
            default: throw .fileSystem("cannot open \(file): \(String(cString: strerror(code)))")
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw .fileSystem("cannot stat \(file): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .unsafeCache(path: file, reason: "is not a regular file (mode \(String(info.st_mode, radix: 8)))")
        }
        let digest = try Self.sha256(of: descriptor, path: file)
        if digest == sha256 { return .verified(path: file, size: Int64(info.st_size)) }
        guard removingDifferent else { return .different(actual: digest, removed: false) }
        // Removed only if the name still holds the file that was hashed: a download that has just installed the good
        // model in its place must not lose it.
        var now = stat()
        if lstat(file, &now) == 0, now.st_dev == info.st_dev, now.st_ino == info.st_ino, unlink(file) != 0, errno != ENOENT {
            throw .fileSystem("cannot remove the damaged model \(file): \(String(cString: strerror(errno)))")
        }
        return .different(actual: digest, removed: true)
    }

    /// Creates the folder if it is missing (mode 0700, and its missing parents too), checks that it is safe, and
    /// removes stale partial files.
    func prepare(now: Date = Date()) throws(ModelDownloadError) {
        var prefix = directory.path.hasPrefix("/") ? "" : FileManager.default.currentDirectoryPath
        var createdLast = false
        for component in directory.path.split(separator: "/") {
            prefix += "/" + component
            createdLast = mkdir(prefix, 0o700) == 0
            if !createdLast, errno != EEXIST {
                throw .fileSystem("cannot create \(prefix): \(String(cString: strerror(errno)))")
            }
        }
        // The umask may have taken bits of 0700 away (never added any); the folder gets exactly 0700.
        if createdLast, chmod(directory.path, 0o700) != 0 {
            throw .fileSystem("cannot set the mode of \(directory.path): \(String(cString: strerror(errno)))")
        }
        try checkDirectory()
        sweepStalePartialFiles(now: now)
    }

    /// Refuses a folder that another user owns or that others may write in (see the type's documentation). A
    /// missing folder is fine (nothing is read from it).
    func checkDirectory() throws(ModelDownloadError) {
        let folder = directory.path
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return }
            if code == ENOTDIR { throw .unsafeCache(path: folder, reason: "is not a directory") }
            throw .fileSystem("cannot open \(folder): \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw .fileSystem("cannot stat \(folder): \(String(cString: strerror(errno)))")
        }
        guard info.st_uid == geteuid() else {
            throw .unsafeCache(path: folder, reason: "is owned by uid \(info.st_uid), not by this process's uid \(geteuid())")
        }
        // S_IWGRP | S_IWOTH.
        guard info.st_mode & 0o022 == 0 else {
            throw .unsafeCache(
                path: folder, reason: "is writable by its group or by others (mode \(String(info.st_mode & 0o7777, radix: 8)))")
        }
    }

    /// A partial file untouched this long belongs to no running download: a running one writes at least every 60
    /// seconds (URLSession's time-out between bytes fails it otherwise), and its file's modification time moves with
    /// every write. An hour leaves a wide margin, so two processes downloading the same model (each under its own
    /// unique partial name) never remove each other's file.
    static let stalePartialAge: TimeInterval = 60 * 60

    /// Removes the partial files (`.*.partial`) last modified more than ``stalePartialAge`` before `now`.
    func sweepStalePartialFiles(now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(".") && name.hasSuffix(".partial") {
            let file = directory.appendingPathComponent(name, isDirectory: false).path
            var info = stat()
            guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG || info.st_mode & S_IFMT == S_IFLNK else { continue }
            let modified = TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9
            if now.timeIntervalSince1970 - modified > Self.stalePartialAge { unlink(file) }
        }
    }

    /// A new, empty file for a download of `name`, opened for writing, beside the model's final place (so that
    /// ``install(_:as:)`` is a rename within one file system). Its name is unique (a UUID), so concurrent downloads
    /// of one model never share a file.
    func createPartialFile(for name: String) throws(ModelDownloadError) -> (path: String, descriptor: Int32) {
        let path = directory.appendingPathComponent(".\(try Self.fileName(for: name)).\(UUID().uuidString).partial").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
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

    /// The SHA-256 of the open file `descriptor` (at `path`, for messages), read from its current offset, in
    /// lowercase hexadecimal.
    static func sha256(of descriptor: Int32, path: String) throws(ModelDownloadError) -> String {
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileSystem("cannot read \(path): \(String(cString: strerror(errno)))")
            }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        return SHA256.hexadecimal(hasher.finalize())
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
