import VisionTasksModelFormat
import Foundation
import Synchronization
import VisionTasksMLKit
import VisionTasksTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The model manager against a hostile server and a tampered cache (issue #30): a body past the size limit, announced
/// or not; a trickle past the time limit; redirects to this machine or down to plain HTTP; a cache folder others may
/// write in; a link or a FIFO in place of a model; a model whose bytes changed on disk; partial files left by a dead
/// process. Every case ends in a typed error (or a fresh download) and leaves no file behind. The server is on
/// 127.0.0.1 only; the redirect rules for other addresses are checked on URLs, without a request.
final class HostileDownloadTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var cacheDirectory: URL!
    private var scratch: URL!
    /// The fixture model (5,426 bytes) and its SHA-256.
    private let model = try! Data(contentsOf: Repository.fixtures.appendingPathComponent("custom_gesture_classifier.tflite"))
    private var modelSHA: String { SHA256.hash(data: model).map { String(format: "%02x", $0) }.joined() }

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("mlkit-hostile-\(getpid())-\(UUID().uuidString)")
        scratch = base.appendingPathComponent("scratch", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        cacheDirectory = base.appendingPathComponent("cache", isDirectory: true)
        setenv(ModelCache.environmentVariable, cacheDirectory.path, 1)
        unsetenv("VISION_TASKS_MODEL_SOURCES")
    }

    override func tearDownWithError() throws {
        server.stop()
        unsetenv(ModelCache.environmentVariable)
        try? FileManager.default.removeItem(at: cacheDirectory.deletingLastPathComponent())
    }

    // MARK: Helpers

    private func uniqueName(_ base: String) -> String { "\(base)-\(UUID().uuidString.prefix(8))" }

    private func remoteModel(_ name: String, path: String) -> CustomRemoteModel {
        CustomRemoteModel(remoteModelSource: RemoteModelSource(name: name, url: server.url(path), sha256: modelSHA))
    }

    /// Runs `trigger` and waits for the first download notification about `name`: nil on success, else its error.
    private func outcome(of name: String, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line,
                         _ trigger: () -> Void) -> Result<Void, ModelDownloadError>? {
        let result = Mutex<Result<Void, ModelDownloadError>?>(nil)
        let done = expectation(description: "download of \(name)")
        var observers: [any NSObjectProtocol] = []
        for (notification, failed) in [(Notification.Name.mlkitModelDownloadDidSucceed, false), (.mlkitModelDownloadDidFail, true)] {
            observers.append(NotificationCenter.default.addObserver(forName: notification, object: nil, queue: nil) { note in
                guard (note.userInfo?[ModelDownloadUserInfoKey.remoteModel.rawValue] as? RemoteModel)?.name == name else { return }
                let error = note.userInfo?[ModelDownloadUserInfoKey.error.rawValue]
                let first = result.withLock { result -> Bool in
                    guard result == nil else { return false }
                    result = failed ? .failure(error as? ModelDownloadError ?? .network("untyped \(String(describing: error))")) : .success(())
                    return true
                }
                if first { done.fulfill() }
            })
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        trigger()
        wait(for: [done], timeout: timeout)
        let answer = result.withLock { $0 }
        if answer == nil { XCTFail("no notification for \(name)", file: file, line: line) }
        return answer
    }

    private func download(_ remote: RemoteModel, conditions: ModelDownloadConditions = ModelDownloadConditions(),
                          timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line) -> ModelDownloadError? {
        let result = outcome(of: remote.name, timeout: timeout, file: file, line: line) {
            _ = ModelManager.modelManager().download(remote, conditions: conditions)
        }
        if case let .failure(error)? = result { return error }
        return nil
    }

    private func storedFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path)) ?? []).sorted()
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0, path)
        return info.st_mode & 0o7777
    }

    private func makeCacheDirectory(mode: mode_t = 0o700) throws {
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(cacheDirectory.path, mode), 0)
    }

    // MARK: Size

    func testABodyWithoutALengthIsStoppedAtTheMaximumSizeAndLeavesNoFile() {
        // 64 MiB in chunks, no Content-Length, against a 64 KiB limit: the download must stop on its own count.
        server.route("/endless", .chunked(piece: Data(repeating: 0x5A, count: 16 << 10), count: 4096))
        let remote = remoteModel(uniqueName("endless"), path: "/endless")
        let error = download(remote, conditions: ModelDownloadConditions(maximumModelSize: 64 << 10))
        XCTAssertEqual(error, .modelTooLarge(limit: 64 << 10, announced: nil))
        XCTAssertEqual(error?.description.contains("maximumModelSize of 65536 bytes"), true, error?.description ?? "")
        XCTAssertFalse(ModelManager.modelManager().isModelDownloaded(remote))
        XCTAssertEqual(storedFiles(), [], "no model file, no partial file")

        // The same framing within the limit is an ordinary download.
        server.route("/chunked", .chunked(piece: model, count: 1))
        XCTAssertNil(download(remoteModel(uniqueName("chunked"), path: "/chunked")))
    }

    func testAnAnnouncedLengthPastTheMaximumSizeIsRefusedBeforeTheBody() {
        // The server announces a terabyte and then sends nothing: only a refusal at the response ends this quickly
        // (waiting for the body would last until the 60 s time-out between bytes).
        server.route("/huge", .announced(length: 1 << 40))
        let remote = remoteModel(uniqueName("huge"), path: "/huge")
        XCTAssertEqual(download(remote), .modelTooLarge(limit: ModelDownloadConditions.defaultMaximumModelSize, announced: 1 << 40))
        XCTAssertEqual(storedFiles(), [])

        // One byte over a limit the caller chose.
        server.route("/model.tflite", .body(model))
        let limit = Int64(model.count - 1)
        XCTAssertEqual(download(remoteModel(uniqueName("over"), path: "/model.tflite"), conditions: ModelDownloadConditions(maximumModelSize: limit)),
                       .modelTooLarge(limit: limit, announced: Int64(model.count)))
        XCTAssertNil(download(remoteModel(uniqueName("exact"), path: "/model.tflite"),
                              conditions: ModelDownloadConditions(maximumModelSize: Int64(model.count))))
        XCTAssertEqual(ModelDownloadConditions().maximumModelSize, 512 << 20)
    }

    func testConditionsThatCannotBeMetAreRefused() {
        server.route("/model.tflite", .body(model))
        for conditions in [ModelDownloadConditions(maximumModelSize: 0), ModelDownloadConditions(maximumModelSize: -1),
                           ModelDownloadConditions(timeLimit: 0), ModelDownloadConditions(timeLimit: .nan),
                           ModelDownloadConditions(timeLimit: .infinity)] {
            guard case .invalidConditions? = download(remoteModel(uniqueName("conditions"), path: "/model.tflite"), conditions: conditions) else {
                return XCTFail("\(conditions) is refused")
            }
        }
        XCTAssertEqual(server.requests("/model.tflite"), 0)
    }

    // MARK: Time

    func testATrickleIsStoppedAtTheTimeLimit() {
        // One byte every 50 ms (never silent long enough for the time-out between bytes): 270 s for the model.
        server.route("/trickle", .drip(model, chunks: model.count, delay: 0.05))
        let remote = remoteModel(uniqueName("trickle"), path: "/trickle")
        XCTAssertEqual(download(remote, conditions: ModelDownloadConditions(timeLimit: 1)), .timedOut(limit: 1))
        XCTAssertFalse(ModelManager.modelManager().isModelDownloaded(remote))
        XCTAssertEqual(storedFiles(), [])
        XCTAssertEqual(ModelDownloadConditions().timeLimit, 30 * 60)
    }

    // MARK: Redirects

    func testLoopbackRedirectsFromALoopbackSourceAreFollowed() {
        server.route("/model.tflite", .body(model))
        server.route("/second", .redirectWith(status: 307, location: "http://localhost:\(server.port)/model.tflite"))
        server.route("/first", .redirectWith(status: 301, location: server.url("/second").absoluteString))
        let remote = remoteModel(uniqueName("hops"), path: "/first")
        XCTAssertNil(download(remote))
        XCTAssertTrue(ModelManager.modelManager().isModelDownloaded(remote))
        XCTAssertEqual(server.requests("/model.tflite"), 1)
    }

    func testTheRedirectPolicy() throws {
        func url(_ string: String) throws -> URL { try XCTUnwrap(URL(string: string), string) }
        let publicSource = try url("https://models.example.com/m.tflite")
        let refusedFromPublic = [
            "http://127.0.0.1/admin", "http://localhost:8080/", "http://[::1]/",  // HTTPS to HTTP, and to this machine
            "http://models.example.com/m.tflite",  // HTTPS to HTTP on the same host
            "https://127.0.0.1/", "https://127.9.8.7/", "https://localhost/", "https://LOCALHOST./", "https://api.localhost/",
            "https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://[::ffff:7f00:1]/",
            // IPv4 in the forms curl also accepts: 127.1, decimal, hexadecimal, octal.
            "https://127.1/", "https://2130706433/", "https://0x7f000001/", "https://0177.0.0.1/",
            "https://10.0.0.1/", "https://172.16.5.4/", "https://192.168.1.1/", "https://169.254.169.254/latest/meta-data",
            "https://100.64.0.1/", "https://0.0.0.0/", "https://[::]/", "https://[fe80::1]/", "https://[fd00::1]/",
            "https://[::ffff:10.1.2.3]/",
        ]
        for target in refusedFromPublic {
            XCTAssertNotNil(RedirectPolicy.refusal(from: publicSource, to: try url(target)), target)
        }
        for target in ["https://cdn.example.net/m.tflite", "https://8.8.8.8/", "https://172.32.0.1/", "https://[2001:db8::1]/",
                       "https://127.0.0.1.example.com/", "https://localhost.example.com/"] {
            XCTAssertTrue(RedirectPolicy.allows(from: publicSource, to: try url(target)), target)
        }
        XCTAssertEqual(RedirectPolicy.refusal(from: publicSource, to: try url("http://127.0.0.1/")), "a redirect from HTTPS to http is refused")
        XCTAssertEqual(RedirectPolicy.refusal(from: publicSource, to: try url("https://127.0.0.1/")),
                       "a redirect to this machine is allowed only from a source there")

        // A source on this machine may go anywhere (it is the user's own); one on a private network stays off loopback.
        let loopbackSource = try url("http://127.0.0.1:8000/m.tflite")
        for target in ["http://localhost:9000/m", "http://[::1]:9000/m", "https://10.0.0.1/m", "https://cdn.example.net/m"] {
            XCTAssertTrue(RedirectPolicy.allows(from: loopbackSource, to: try url(target)), target)
        }
        let privateSource = try url("https://10.0.0.5/m.tflite")
        XCTAssertTrue(RedirectPolicy.allows(from: privateSource, to: try url("https://192.168.0.7/m")))
        XCTAssertFalse(RedirectPolicy.allows(from: privateSource, to: try url("https://127.0.0.1/m")))
        XCTAssertFalse(RedirectPolicy.allows(from: try url("https://localhost/m"), to: try url("http://localhost/m")),
                       "HTTPS to HTTP is refused even on this machine")
        XCTAssertEqual(RedirectPolicy.reach(of: "[::1]"), .loopback)
        XCTAssertEqual(RedirectPolicy.reach(of: "fe80::1%eth0"), .privateNetwork)
        XCTAssertEqual(RedirectPolicy.reach(of: "example.com"), .publicNetwork)
    }

    // MARK: The cache folder

    func testTheCacheFolderAndItsMissingParentsAreCreatedPrivate() {
        let nested = cacheDirectory.appendingPathComponent("a/b", isDirectory: true)
        setenv(ModelCache.environmentVariable, nested.path, 1)
        server.route("/model.tflite", .body(model))
        XCTAssertNil(download(remoteModel(uniqueName("private"), path: "/model.tflite")))
        for folder in [cacheDirectory!, cacheDirectory.appendingPathComponent("a"), nested] {
            XCTAssertEqual(mode(folder.path), 0o700, folder.path)
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: nested.path)) ?? []
        XCTAssertEqual(files.count, 1)
        if let file = files.first { XCTAssertEqual(mode(nested.appendingPathComponent(file).path), 0o600, "the model file") }
    }

    func testACacheFolderOthersMayWriteInIsRefused() throws {
        try makeCacheDirectory(mode: 0o777)
        server.route("/model.tflite", .body(model))
        let remote = remoteModel(uniqueName("shared"), path: "/model.tflite")
        guard case let .unsafeCache(path, reason)? = download(remote) else { return XCTFail("a world-writable folder is refused") }
        XCTAssertEqual(path, cacheDirectory.path)
        XCTAssertTrue(reason.contains("writable") && reason.contains("777"), reason)

        XCTAssertEqual(chmod(cacheDirectory.path, 0o770), 0)
        guard case .unsafeCache? = download(remote) else { return XCTFail("a group-writable folder is refused") }
        XCTAssertEqual(server.requests("/model.tflite"), 0)
        XCTAssertEqual(mode(cacheDirectory.path), 0o770, "refused, not repaired")
    }

    func testACacheFolderOfAnotherUserIsRefused() throws {
        try makeCacheDirectory()
        // Giving a folder away takes root; as another user, a folder owned by root (/) stands in for it.
        if geteuid() == 0 {
            XCTAssertEqual(chown(cacheDirectory.path, 65534, 65534), 0)
        } else {
            setenv(ModelCache.environmentVariable, "/", 1)
        }
        server.route("/model.tflite", .body(model))
        let remote = remoteModel(uniqueName("theirs"), path: "/model.tflite")
        guard case let .unsafeCache(_, reason)? = download(remote) else { return XCTFail("another user's folder is refused") }
        XCTAssertTrue(reason.contains("owned by uid"), reason)
        XCTAssertNil(ModelManager.modelManager().downloadedModelPath(remote))
        XCTAssertEqual(server.requests("/model.tflite"), 0)
    }

    // MARK: Model files

    func testALinkInPlaceOfAModelIsRefusedNotFollowed() throws {
        try makeCacheDirectory()
        let name = uniqueName("linked")
        let elsewhere = scratch.appendingPathComponent("planted.tflite")
        try model.write(to: elsewhere)
        let link = cacheDirectory.appendingPathComponent("\(name).tflite").path
        XCTAssertEqual(symlink(elsewhere.path, link), 0)
        server.route("/model.tflite", .body(model))
        let remote = remoteModel(name, path: "/model.tflite")

        XCTAssertFalse(ModelManager.modelManager().isModelDownloaded(remote))
        XCTAssertNil(ModelManager.modelManager().downloadedModelPath(remote))
        XCTAssertThrowsError(try ModelManager.modelManager().verifiedModelPath(remote)) { error in
            XCTAssertEqual(error as? ModelDownloadError, .unsafeCache(path: link, reason: "is a symbolic link, not a model file"))
        }
        XCTAssertEqual(download(remote), .unsafeCache(path: link, reason: "is a symbolic link, not a model file"))
        XCTAssertEqual(server.requests("/model.tflite"), 0)

        // Deleting the model removes the link, not what it points to; then the download goes through.
        let deleted = Mutex<[String]>([])
        ModelManager.modelManager().deleteDownloadedModel(remote) { error in deleted.withLock { $0.append(error.map { "\($0)" } ?? "nil") } }
        XCTAssertEqual(deleted.withLock { $0 }, ["nil"])
        XCTAssertEqual(try Data(contentsOf: elsewhere), model)
        XCTAssertNil(download(remote))
        XCTAssertEqual(ModelManager.modelManager().downloadedModelPath(remote), link, "a verified regular file there now")
    }

    func testAFIFOInPlaceOfAModelIsRefusedWithoutBlocking() throws {
        try makeCacheDirectory()
        let name = uniqueName("fifo")
        let fifo = cacheDirectory.appendingPathComponent("\(name).tflite").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let remote = remoteModel(name, path: "/model.tflite")
        guard case let .unsafeCache(path, reason)? = download(remote) else { return XCTFail("a FIFO is refused") }
        XCTAssertEqual(path, fifo)
        XCTAssertTrue(reason.contains("not a regular file"), reason)
        XCTAssertNil(ModelManager.modelManager().downloadedModelPath(remote))
    }

    func testAModelWhoseBytesChangedIsRemovedAndDownloadedAgain() throws {
        server.route("/model.tflite", .body(model))
        let remote = remoteModel(uniqueName("changed"), path: "/model.tflite")
        XCTAssertNil(download(remote))
        let path = try XCTUnwrap(ModelManager.modelManager().downloadedModelPath(remote))
        XCTAssertEqual(server.requests("/model.tflite"), 1, "a verified model is loaded without a request")

        func damage() throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seek(toOffset: 100)
            try handle.write(contentsOf: Data([~model[100]]))
            try handle.close()
        }

        // Loading it: the damaged file is not handed out; it is removed, and a fresh download is announced.
        try damage()
        XCTAssertTrue(ModelManager.modelManager().isModelDownloaded(remote), "a cheap check, without hashing")
        let reloaded = outcome(of: remote.name) {
            XCTAssertNil(ModelManager.modelManager().downloadedModelPath(remote), "a damaged model is not loaded")
        }
        guard case .success? = reloaded else { return XCTFail("the damaged model is downloaded again: \(String(describing: reloaded))") }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), model)
        XCTAssertEqual(server.requests("/model.tflite"), 2)

        // Asking for a download of a damaged model fetches it again, rather than announcing the damaged file.
        try damage()
        XCTAssertNil(download(remote))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), model)
        XCTAssertEqual(server.requests("/model.tflite"), 3)
    }

    func testStalePartialFilesAreSweptAndFreshOnesKept() throws {
        try makeCacheDirectory()
        let stale = cacheDirectory.appendingPathComponent(".gone.tflite.\(UUID().uuidString).partial").path
        let fresh = cacheDirectory.appendingPathComponent(".running.tflite.\(UUID().uuidString).partial").path
        let unrelated = cacheDirectory.appendingPathComponent(".notes").path
        for file in [stale, fresh, unrelated] { XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data([1, 2, 3]))) }
        // Two hours old: no running download leaves its file untouched that long.
        let twoHoursAgo = time(nil) - 2 * 3600
        var times = [timespec(tv_sec: twoHoursAgo, tv_nsec: 0), timespec(tv_sec: twoHoursAgo, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, stale, &times, 0), 0)
        XCTAssertEqual(utimensat(AT_FDCWD, unrelated, &times, 0), 0)

        server.route("/model.tflite", .body(model))
        let name = uniqueName("sweep")
        XCTAssertNil(download(remoteModel(name, path: "/model.tflite")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale), "a stale partial file is removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fresh), "another download's partial file is kept")
        XCTAssertTrue(FileManager.default.fileExists(atPath: unrelated), "only partial files are swept")
        XCTAssertEqual(Set(storedFiles()), [".notes", (fresh as NSString).lastPathComponent, "\(name).tflite"])
    }
}
