import VisionTasksModelFormat
import Foundation
import Synchronization
import VisionTasksMLKit
import VisionTasksTestSupport
import XCTest

/// ML Kit's model manager against a canned HTTP server on 127.0.0.1, with the cache in a temporary folder: a good
/// download lands whole and is announced; a 404, a truncated body, wrong bytes, a non-model and a cancelled download
/// are announced as failures with their reason and never leave a file, nor replace a good one.
final class RemoteModelTests: XCTestCase {
    private var server: LoopbackHTTPServer!
    private var cacheDirectory: URL!
    /// The fixture model (5,426 bytes) and its SHA-256.
    private let model = try! Data(contentsOf: Repository.fixtures.appendingPathComponent("custom_gesture_classifier.tflite"))
    private var modelSHA: String { sha256(model) }

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer()
        cacheDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mlkit-model-cache-\(getpid())-\(UUID().uuidString)", isDirectory: true)
        setenv(ModelCache.environmentVariable, cacheDirectory.path, 1)
        unsetenv("VISION_TASKS_MODEL_SOURCES")
    }

    override func tearDownWithError() throws {
        server.stop()
        unsetenv(ModelCache.environmentVariable)
        unsetenv("VISION_TASKS_MODEL_SOURCES")
        try? FileManager.default.removeItem(at: cacheDirectory)
    }

    // MARK: Helpers

    private func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    /// A model name no other test uses (the shared manager and the notifications are process-wide).
    private func uniqueName(_ base: String) -> String { "\(base)-\(UUID().uuidString.prefix(8))" }

    private func remoteModel(_ name: String, path: String, sha256: String? = nil) -> CustomRemoteModel {
        CustomRemoteModel(remoteModelSource: RemoteModelSource(name: name, url: server.url(path), sha256: sha256 ?? modelSHA))
    }

    private struct Outcome {
        var model: RemoteModel
        var error: ModelDownloadError?
        var succeeded: Bool { error == nil }
    }

    /// Downloads `model` with the shared manager and waits for its notification (the first one for its name).
    @discardableResult
    private func download(_ model: RemoteModel, timeout: TimeInterval = 5, whileRunning: ((Progress) -> Void)? = nil,
                          file: StaticString = #filePath, line: UInt = #line) -> (Outcome?, Progress) {
        let outcome = Mutex<Outcome?>(nil)
        let done = expectation(description: "download of \(model.name)")
        let name = model.name
        var observers: [any NSObjectProtocol] = []
        for (notification, failed) in [(Notification.Name.mlkitModelDownloadDidSucceed, false), (.mlkitModelDownloadDidFail, true)] {
            observers.append(NotificationCenter.default.addObserver(forName: notification, object: nil, queue: nil) { note in
                guard let posted = note.userInfo?[ModelDownloadUserInfoKey.remoteModel.rawValue] as? RemoteModel,
                      posted.name == name else { return }
                let error = note.userInfo?[ModelDownloadUserInfoKey.error.rawValue]
                let first = outcome.withLock { outcome -> Bool in
                    guard outcome == nil else { return false }
                    outcome = Outcome(model: posted, error: failed ? (error as? ModelDownloadError ?? .network("untyped error \(String(describing: error))")) : nil)
                    return true
                }
                if first { done.fulfill() }
            })
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        let progress = ModelManager.modelManager().download(model, conditions: ModelDownloadConditions())
        whileRunning?(progress)
        wait(for: [done], timeout: timeout)
        let result = outcome.withLock { $0 }
        if result == nil { XCTFail("no notification for \(model.name)", file: file, line: line) }
        return (result, progress)
    }

    private func storedFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path)) ?? []).sorted()
    }

    private func waitUntil(_ timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }

    // MARK: Success

    func testDownloadStoresTheModelAndAnnouncesIt() throws {
        server.route("/model.tflite", .body(model))
        let remote = remoteModel(uniqueName("ok"), path: "/model.tflite")
        let manager = ModelManager.modelManager()
        XCTAssertFalse(manager.isModelDownloaded(remote))

        let (outcome, progress) = download(remote)
        XCTAssertEqual(outcome?.succeeded, true, "\(String(describing: outcome?.error))")
        XCTAssertTrue(outcome?.model === remote, "the notification carries the model that was downloaded")
        XCTAssertTrue(manager.isModelDownloaded(remote))
        XCTAssertTrue(progress.isFinished)
        XCTAssertFalse(progress.isCancelled)
        XCTAssertEqual(progress.totalUnitCount, Int64(model.count))
        XCTAssertEqual(progress.completedUnitCount, Int64(model.count))

        let path = try XCTUnwrap(manager.downloadedModelPath(remote))
        XCTAssertEqual(path, cacheDirectory.appendingPathComponent("\(remote.name).tflite").path)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), model)
        XCTAssertEqual(storedFiles(), ["\(remote.name).tflite"], "no partial file is left behind")
        XCTAssertEqual(server.requests("/model.tflite"), 1)

        // Asked again, the stored file already has the source's hash: nothing is fetched.
        let (again, againProgress) = download(remote)
        XCTAssertEqual(again?.succeeded, true)
        XCTAssertTrue(againProgress.isFinished)
        XCTAssertEqual(server.requests("/model.tflite"), 1)
    }

    func testALoopbackRedirectIsFollowed() {
        server.route("/model.tflite", .body(model))
        server.route("/moved", .redirect(server.url("/model.tflite").absoluteString))
        let remote = remoteModel(uniqueName("redirected"), path: "/moved")
        XCTAssertEqual(download(remote).0?.succeeded, true)
        XCTAssertTrue(ModelManager.modelManager().isModelDownloaded(remote))
    }

    func testProgressGrowsAndASecondRequestSharesTheRunningDownload() {
        server.route("/slow.tflite", .drip(model, chunks: 6, delay: 0.05))
        let name = uniqueName("drip")
        let remote = remoteModel(name, path: "/slow.tflite")
        var sawPartial = false
        let (outcome, progress) = download(remote) { progress in
            let second = ModelManager.modelManager().download(self.remoteModel(name, path: "/slow.tflite"), conditions: ModelDownloadConditions())
            XCTAssertTrue(second === progress, "a second request for a running download returns its progress")
            sawPartial = self.waitUntil { progress.completedUnitCount > 0 && progress.completedUnitCount < Int64(self.model.count) }
            XCTAssertEqual(progress.totalUnitCount, Int64(self.model.count), "the total is the announced length")
            XCTAssertFalse(progress.isFinished)
        }
        XCTAssertTrue(sawPartial, "completedUnitCount grows while the bytes come")
        XCTAssertEqual(outcome?.succeeded, true, "\(String(describing: outcome?.error))")
        XCTAssertTrue(progress.isFinished)
        XCTAssertEqual(server.requests("/slow.tflite"), 1, "one download, however often it was asked for")
    }

    // MARK: Sources by name

    func testFirebaseSourcesAreLookedUpInRegistrationsAndTheEnvironment() {
        server.route("/model.tflite", .body(model))
        let registered = uniqueName("registered")
        ModelManager.register(RemoteModelSource(name: registered, url: server.url("/model.tflite"), sha256: modelSHA.uppercased()))
        let byRegistration = CustomRemoteModel(remoteModelSource: FirebaseModelSource(name: registered))
        XCTAssertEqual(download(byRegistration).0?.succeeded, true)
        XCTAssertTrue(ModelManager.modelManager().isModelDownloaded(byRegistration))

        let fromEnvironment = uniqueName("environment"), malformed = uniqueName("malformed")
        setenv("VISION_TASKS_MODEL_SOURCES", """
            # name url sha256
            \(fromEnvironment)  \(server.url("/model.tflite").absoluteString)\t\(modelSHA)

            \(malformed) \(server.url("/model.tflite").absoluteString)
            """, 1)
        let byEnvironment = CustomRemoteModel(remoteModelSource: FirebaseModelSource(name: fromEnvironment))
        XCTAssertEqual(download(byEnvironment).0?.succeeded, true)
        XCTAssertTrue(ModelManager.modelManager().isModelDownloaded(byEnvironment))

        let (bad, _) = download(CustomRemoteModel(remoteModelSource: FirebaseModelSource(name: malformed)))
        guard case .invalidSource(malformed, _)? = bad?.error else {
            return XCTFail("a line without its SHA-256 is an invalid source, not \(String(describing: bad?.error))")
        }
    }

    func testAnUnknownFirebaseNameFailsSoTheGuideFallsBackToTheLocalModel() {
        let name = uniqueName("your_remote_model")
        let remote = CustomRemoteModel(remoteModelSource: FirebaseModelSource(name: name))
        let (outcome, progress) = download(remote)
        XCTAssertEqual(outcome?.error, .noSource(name: name))
        XCTAssertTrue(outcome?.model === remote)
        XCTAssertTrue(progress.isCancelled, "a failed download's progress is cancelled")
        XCTAssertFalse(progress.isFinished)
        XCTAssertFalse(ModelManager.modelManager().isModelDownloaded(remote))
        XCTAssertNil(ModelManager.modelManager().downloadedModelPath(remote))
    }

    // MARK: Failures

    func testFailuresAreAnnouncedWithTheirReasonAndLeaveNoFile() {
        let notAModel = Data("this is not a flatbuffer, just text of a plausible length".utf8)
        server.route("/missing", .status(404))
        server.route("/truncated", .truncated(model, sent: 1000))
        server.route("/wrong", .body(model.prefix(4000) + Data(repeating: 7, count: model.count - 4000)))
        server.route("/text", .body(notAModel))
        server.route("/empty", .body(Data()))
        server.route("/to-elsewhere", .redirect("http://127.0.0.2:9/model.tflite"))
        let wrongSHA = sha256(model.prefix(4000) + Data(repeating: 7, count: model.count - 4000))
        let cases: [(path: String, sha: String?, expected: (ModelDownloadError) -> Bool)] = [
            ("/missing", nil, { $0 == .httpStatus(404) }),
            ("/truncated", nil, { $0 == .interrupted(received: 1000, expected: Int64(self.model.count)) }),
            ("/wrong", nil, { $0 == .checksumMismatch(expected: self.modelSHA, actual: wrongSHA) }),
            ("/text", sha256(notAModel), { if case .notAModel = $0 { true } else { false } }),
            ("/empty", sha256(Data()), { if case .notAModel = $0 { true } else { false } }),
            ("/to-elsewhere", nil, { $0 == .insecureURL("http://127.0.0.2:9/model.tflite") }),
        ]
        for (path, sha, expected) in cases {
            let remote = remoteModel(uniqueName("failing"), path: path, sha256: sha)
            let (outcome, progress) = download(remote)
            let error = outcome?.error
            XCTAssertTrue(error.map(expected) ?? false, "\(path): \(String(describing: error))")
            XCTAssertTrue(progress.isCancelled, path)
            XCTAssertFalse(ModelManager.modelManager().isModelDownloaded(remote), path)
            XCTAssertEqual(storedFiles(), [], "\(path): no model file, no partial file")
        }
        XCTAssertEqual(server.requests("/to-elsewhere"), 1)
    }

    func testInsecureURLsAndBadNamesAreRefusedBeforeAnyRequest() {
        for url in ["http://example.com/model.tflite", "ftp://127.0.0.1/model.tflite", "file:///etc/passwd", "http://127.0.0.1.example.com/m"] {
            let remote = CustomRemoteModel(remoteModelSource: RemoteModelSource(name: uniqueName("insecure"), url: URL(string: url)!, sha256: modelSHA))
            XCTAssertEqual(download(remote).0?.error, .insecureURL(url))
        }
        let badSHA = CustomRemoteModel(remoteModelSource: RemoteModelSource(name: uniqueName("bad-sha"), url: server.url("/m"), sha256: "abc"))
        guard case .invalidSource? = download(badSHA).0?.error else { return XCTFail("a short SHA-256 is refused") }
        for name in ["../escape", "a/b", "a\\b", "..", ""] {
            let remote = remoteModel(name, path: "/model.tflite")
            XCTAssertEqual(download(remote).0?.error, .invalidModelName(name))
            XCTAssertFalse(ModelManager.modelManager().isModelDownloaded(remote))
        }
        XCTAssertEqual(server.requests("/model.tflite") + server.requests("/m"), 0)
        XCTAssertEqual(try ModelCache.fileName(for: "my model ü"), "my%20model%20%C3%BC.tflite")
        XCTAssertEqual(try ModelCache.fileName(for: ".hidden"), "%2Ehidden.tflite")
        XCTAssertEqual(try ModelCache.fileName(for: "birds_v2.1-q"), "birds_v2.1-q.tflite")
    }

    func testAFailedDownloadNeverReplacesAGoodModel() throws {
        server.route("/model.tflite", .body(model))
        let name = uniqueName("kept")
        XCTAssertEqual(download(remoteModel(name, path: "/model.tflite")).0?.succeeded, true)
        let path = try XCTUnwrap(ModelManager.modelManager().downloadedModelPath(remoteModel(name, path: "/model.tflite")))

        // A "new version" of the model (another hash) whose downloads all go wrong.
        let other = model.prefix(3000) + Data(repeating: 1, count: 100)
        server.route("/v2-missing", .status(404))
        server.route("/v2-truncated", .truncated(other, sent: 50))
        server.route("/v2-wrong", .body(other))
        for path in ["/v2-missing", "/v2-truncated", "/v2-wrong"] {
            let (outcome, _) = download(remoteModel(name, path: path, sha256: String(repeating: "ab", count: 32)))
            XCTAssertNotNil(outcome?.error, path)
            XCTAssertTrue(ModelManager.modelManager().isModelDownloaded(remoteModel(name, path: path)), path)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), model, "the good model is still there, whole")
        XCTAssertEqual(storedFiles(), ["\(name).tflite"])
    }

    func testCancellingTheProgressStopsTheDownload() {
        server.route("/slow.tflite", .drip(model, chunks: 50, delay: 0.04))
        let remote = remoteModel(uniqueName("cancelled"), path: "/slow.tflite")
        let (outcome, progress) = download(remote) { progress in
            XCTAssertTrue(self.waitUntil { progress.completedUnitCount > 0 })
            progress.cancel()
        }
        XCTAssertEqual(outcome?.error, .cancelled)
        XCTAssertTrue(progress.isCancelled)
        XCTAssertFalse(ModelManager.modelManager().isModelDownloaded(remote))
        XCTAssertEqual(storedFiles(), [])
    }

    // MARK: Deleting

    func testDeleteDownloadedModelRemovesTheFile() throws {
        server.route("/model.tflite", .body(model))
        let remote = remoteModel(uniqueName("deleted"), path: "/model.tflite")
        XCTAssertEqual(download(remote).0?.succeeded, true)
        let path = try XCTUnwrap(ModelManager.modelManager().downloadedModelPath(remote))

        var deleted: [String] = []
        ModelManager.modelManager().deleteDownloadedModel(remote) { error in deleted.append(error.map { "\($0)" } ?? "nil") }
        XCTAssertEqual(deleted, ["nil"])
        XCTAssertFalse(ModelManager.modelManager().isModelDownloaded(remote))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))

        ModelManager.modelManager().deleteDownloadedModel(remote) { error in
            XCTAssertEqual(error as? ModelDownloadError, .notDownloaded(name: remote.name))
        }
    }

    // MARK: The guide

    /// The model-manager snippets of ML Kit's "custom object detection" guide for iOS (../shared/seeds/002), as
    /// written there but for the line breaks: a Firebase name, a download, observers of both notifications with a
    /// weak self. Here the name is unknown, so the failure observer runs and the guide's fallback (the local model)
    /// applies.
    func testTheGuideSnippetsCompileAndReportFailureForAnUnknownName() {
        let observed = GuideObserver()
        let observers = observed.start()
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        XCTAssertTrue(waitUntil { observed.failures.withLock { $0 } == ["your_remote_model"] })
        XCTAssertEqual(observed.successes.withLock { $0 }, 0)
        XCTAssertFalse(ModelManager.modelManager().isModelDownloaded(observed.remoteModel))
    }

    // MARK: The cache's place

    func testTheCacheFolderComesFromTheEnvironment() {
        XCTAssertEqual(ModelCache.current(environment: ["VISION_TASKS_MODEL_CACHE": "/srv/models", "HOME": "/home/u"]).directory.path, "/srv/models")
        XCTAssertEqual(ModelCache.current(environment: ["XDG_CACHE_HOME": "/var/cache/u", "HOME": "/home/u"]).directory.path, "/var/cache/u/vision-tasks/models")
        XCTAssertEqual(ModelCache.current(environment: ["HOME": "/home/u"]).directory.path, "/home/u/.cache/vision-tasks/models")
        XCTAssertEqual(ModelCache.current().directory.path, cacheDirectory.path, "setenv is seen at the next call")
    }
}

/// The app object of the guide's snippets (`self` in its observers).
private final class GuideObserver: Sendable {
    let failures = Mutex<[String]>([])
    let successes = Mutex(0)
    let remoteModel: CustomRemoteModel

    init() {
        let firebaseModelSource = FirebaseModelSource(
            name: "your_remote_model") // The name you assigned in
                                       // the Firebase console.
        let remoteModel = CustomRemoteModel(remoteModelSource: firebaseModelSource)
        self.remoteModel = remoteModel
    }

    /// Adds the guide's observers (returned, for the test to remove) and starts the guide's download.
    func start() -> [any NSObjectProtocol] {
        let remoteModel = self.remoteModel
        let first = NotificationCenter.default.addObserver(
            forName: .mlkitModelDownloadDidSucceed,
            object: nil,
            queue: nil
        ) { [weak self] notification in
            guard let strongSelf = self,
                let userInfo = notification.userInfo,
                let model = userInfo[ModelDownloadUserInfoKey.remoteModel.rawValue]
                    as? RemoteModel,
                model.name == "your_remote_model"
                else { return }
            // The model was downloaded and is available on the device
            strongSelf.successes.withLock { $0 += 1 }
        }

        let second = NotificationCenter.default.addObserver(
            forName: .mlkitModelDownloadDidFail,
            object: nil,
            queue: nil
        ) { [weak self] notification in
            guard let strongSelf = self,
                let userInfo = notification.userInfo,
                let model = userInfo[ModelDownloadUserInfoKey.remoteModel.rawValue]
                    as? RemoteModel
                else { return }
            let error = userInfo[ModelDownloadUserInfoKey.error.rawValue]
            // ...
            if model.name == "your_remote_model", error is ModelDownloadError {
                strongSelf.failures.withLock { $0.append(model.name) }
            }
        }

        let downloadConditions = ModelDownloadConditions(
            allowsCellularAccess: true,
            allowsBackgroundDownloading: true
        )

        let downloadProgress = ModelManager.modelManager().download(
            remoteModel,
            conditions: downloadConditions
        )
        _ = downloadProgress
        return [first, second]
    }
}
