import Foundation
@testable import VisionTasks
import VisionTasksImaging
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// Pose identities (``PoseLandmarkerResult/identities``) on clips of two people made from the shared clips by
/// tools/make_identity_clips.py, where who is who is known by construction: MediaPipe's own landmarks of each source
/// clip, carried into the clip's pixels. (Faces and hands: two of each side by side, each in its own half.) A pose found in a frame is a person's when its landmarks lie within 0.15 of
/// that person's height of MediaPipe's — both its face (landmarks 0–10) and its body (11–32), so that a pose with one
/// person's face on the other's body (the landmark model does draw those where people overlap) is no one's.
///
/// For each person: the frames where a pose of theirs is found; the fraction of those where one carries the identity
/// they had when first found; switches (frames where their identity differs from the frame before they were seen);
/// and over the clip, poses carrying an identity first seen on the other person. The bounds are what we measure
/// (issue #46 asks ≥ 99 % kept): met where both people are found apart or crossing with a tracked region each; not
/// where the pipeline itself loses someone — MediaPipe's association (the default smoothing) lets the tracked regions
/// of two people collapse onto one at a crossing, and the pose detector misses the woman of `window.mp4` for over
/// 5 s, longer than an identity is remembered.
///
/// Where a tracking loop goes depends on the last bits of the models' arithmetic (PoseReferenceTests' smoothed clip),
/// so each clip was measured as nine trajectories — the clip, and the clip with one pixel of every frame changed by
/// one level at each of eight places, as tools/mediapipe_tracking_spread.py nudges MediaPipe's input — and the bounds
/// lie at or below the worst of them (the documentation comments give their range), and the portable build's clip
/// runs within them too. One trajectory of these clips decided the bounds before, and the tracker kept the window
/// clip's man in only five of nine (a motion measured over one frame sent him off the frame while hidden;
/// IdentityTracker.motionMilliseconds), and in the portable build's run the look-alikes kept theirs in 0.44 and 0.41
/// of their frames (the man behind came out from behind a hair past the colour a return needs and kept a new
/// identity: IdentityTracker's "taken back").
final class IdentityClipTests: XCTestCase {
    struct Truth: Decodable {
        struct Person: Decodable {
            let name: String
            /// Per frame, 33 (x, y) in pixels, or nil where MediaPipe found no one (the pose clips).
            let landmarks: [[[Float]]?]?
            /// x, y, width, height in pixels: where this instance is in every frame (the face and hand clips).
            let region: [Int]?
        }
        let clip: String
        let width: Int
        let height: Int
        let frames: Int
        let people: [Person]
    }

    struct PersonScore {
        var found = 0, kept = 0, switches = 0
        var first: Int?, current: Int?
        var keptFraction: Double { Double(kept) / Double(max(found, 1)) }
    }

    struct Score: CustomStringConvertible {
        let clip: String
        let smoothing: LandmarkSmoothing
        var people: [(name: String, score: PersonScore)]
        var frames = 0, poses = 0, noOnes = 0, stolen = 0, identities = Set<Int>()
        var description: String {
            "\(clip), smoothing \(smoothing.rawValue), \(frames) frames, \(poses) instances (\(noOnes) no one's), \(identities.count) identities, "
                + "\(stolen) instances with an identity first seen on the other one\n"
                + people.map { String(format: "   %@: found in %d frames, kept its first identity in %d (%.3f), %d switches",
                                      $0.name, $0.score.found, $0.score.kept, $0.score.keptFraction, $0.score.switches) }
                .joined(separator: "\n")
        }
    }

    static let folder = Repository.root.appendingPathComponent(".cache/identity-clips")

    /// The clips, made when missing (about a minute, under the MediaPipe venv of tools/setup).
    static func truth(_ name: String) throws -> Truth {
        let json = folder.appendingPathComponent("\(name).json")
        if !FileManager.default.fileExists(atPath: json.path) || !FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(name).mp4").path) {
            let python = Repository.root.appendingPathComponent(".cache/mediapipe/bin/python")
            // Missing truth fails the test (it is not skipped): the clips cannot be judged without it.
            guard FileManager.default.isExecutableFile(atPath: python.path) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey:
                    "\(name).json missing, and the MediaPipe venv that makes it (.cache/mediapipe, tools/setup) too"])
            }
            let outcome = try ChildProcess.run(python, [Repository.root.appendingPathComponent("tools/make_identity_clips.py").path,
                                                        "--out", folder.path])
            guard outcome.status == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "tools/make_identity_clips.py failed: \(outcome.stderr)"])
            }
        }
        return try JSONDecoder().decode(Truth.self, from: Data(contentsOf: json))
    }

    /// The person a pose is (index into `truth.people`), or nil.
    static func person(of pose: [NormalizedLandmark], frame: Int, truth: Truth) -> Int? {
        var best: (person: Int, distance: Float)?
        for (k, person) in truth.people.enumerated() {
            guard let reference = person.landmarks?[frame], reference.count == pose.count, pose.count == 33 else { continue }
            let ys: [Float] = reference.map { $0[1] }
            let height: Float = max((ys.max() ?? 0) - (ys.min() ?? 0), 1)
            let width = Float(truth.width), frameHeight = Float(truth.height)
            // Typed in steps: Swift 6.0 gives up type-checking the one-expression form.
            let distances: [Float] = zip(pose, reference).map { (p: NormalizedLandmark, q: [Float]) -> Float in
                let dx: Float = p.x * width - q[0], dy: Float = p.y * frameHeight - q[1]
                return (dx * dx + dy * dy).squareRoot() / height
            }
            let face: Float = distances[..<11].reduce(0, +) / 11, body: Float = distances[11...].reduce(0, +) / 22
            let distance = max(face, body)
            if distance < 0.15, distance < (best?.distance ?? .infinity) { best = (k, distance) }
        }
        return best?.person
    }

    /// The instance (index into `truth.people`) whose region holds the landmarks' centre, or nil.
    static func instance(of landmarks: [NormalizedLandmark], truth: Truth) -> Int? {
        guard !landmarks.isEmpty else { return nil }
        let x = landmarks.map(\.x).reduce(0, +) / Float(landmarks.count) * Float(truth.width)
        let y = landmarks.map(\.y).reduce(0, +) / Float(landmarks.count) * Float(truth.height)
        return truth.people.firstIndex { person in
            guard let r = person.region, r.count == 4 else { return false }
            return x >= Float(r[0]) && x < Float(r[0] + r[2]) && y >= Float(r[1]) && y < Float(r[1] + r[3])
        }
    }

    func score(_ name: String, smoothing: LandmarkSmoothing) throws -> Score {
        let truth = try Self.truth(name)
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("pose_landmarker_lite.task")
        options.runningMode = .video
        options.numPoses = 2
        options.landmarkSmoothing = smoothing
        let landmarker = try PoseLandmarker(options: options)
        return try score(truth, smoothing: smoothing) { image, time, frame in
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: time)
            return (result.landmarks, result.identities, result.landmarks.map { Self.person(of: $0, frame: frame, truth: truth) })
        }
    }

    /// Scores any landmark task on a clip: `run` answers a frame (image, timestamp, index) with its instances, their
    /// identities and whose each instance is.
    func score(_ truth: Truth, smoothing: LandmarkSmoothing,
               run: (MPImage, Int, Int) throws -> (instances: [[NormalizedLandmark]], identities: [Int], people: [Int?])) throws -> Score {
        let name = truth.clip
        let video = try VideoDecoder(path: Self.folder.appendingPathComponent(truth.clip).path)
        var score = Score(clip: truth.clip, smoothing: smoothing, people: truth.people.map { ($0.name, PersonScore()) })
        var owner: [Int: Int] = [:]
        while let frame = try video.nextFrame() {
            let i = score.frames
            guard i < truth.frames else { break }
            let result = try run(frame.image, frame.timestampMs, i)
            XCTAssertEqual(result.identities.count, result.instances.count, "\(name)#\(i): one identity per instance")
            XCTAssertEqual(Set(result.identities).count, result.identities.count, "\(name)#\(i): identities unique in a frame")
            let people = result.people
            score.poses += people.count
            score.noOnes += people.filter { $0 == nil }.count
            for (p, person) in people.enumerated() {
                guard let person, p < result.identities.count else { continue }
                let identity = result.identities[p]
                if let first = owner[identity], first != person { score.stolen += 1 }
                if owner[identity] == nil { owner[identity] = person }
            }
            for k in truth.people.indices {
                let theirs = people.indices.filter { people[$0] == k && $0 < result.identities.count }.map { result.identities[$0] }
                guard let any = theirs.first else { continue }
                score.people[k].score.found += 1
                if score.people[k].score.first == nil { score.people[k].score.first = any }
                if theirs.contains(score.people[k].score.first!) { score.people[k].score.kept += 1 }
                let now = theirs.contains(score.people[k].score.current ?? -1) ? score.people[k].score.current! : any
                if let current = score.people[k].score.current, current != now { score.people[k].score.switches += 1 }
                score.people[k].score.current = now
            }
            score.identities.formUnion(result.identities)
            score.frames += 1
        }
        XCTAssertEqual(score.frames, truth.frames, name)
        print("identities: \(score)")
        return score
    }

    private func check(_ score: Score, kept: [Double], switches: [Int], stolen: Int, found: [Int],
                       file: StaticString = #filePath, line: UInt = #line) {
        for (k, person) in score.people.enumerated() {
            XCTAssertGreaterThanOrEqual(person.score.found, found[k], "\(score.clip) \(person.name): frames found", file: file, line: line)
            XCTAssertGreaterThanOrEqual(person.score.keptFraction, kept[k], "\(score.clip) \(person.name): identity kept", file: file, line: line)
            XCTAssertLessThanOrEqual(person.score.switches, switches[k], "\(score.clip) \(person.name): switches", file: file, line: line)
        }
        XCTAssertLessThanOrEqual(score.stolen, stolen, "\(score.clip): poses with the other person's identity", file: file, line: line)
    }

    /// Two men side by side (half size, one mirrored), near the seam at times: both found in (nearly) every frame and
    /// each keeps its identity in every one. Measured over nine trajectories: 166 and 175 of 175 frames, all kept, no
    /// switch.
    func testSideBySideKeepTheirIdentities() throws {
        let score = try score("mirrored", smoothing: .mediapipe)
        check(score, kept: [0.99, 0.99], switches: [0, 0], stolen: 0, found: [160, 170])
    }

    /// Two look-alike men (one clip and its mirror image, same clothes) crossing three times, the front one hiding
    /// the other: no colour tells them apart, their paths do (the rule's "crossing behind another"). With
    /// `.always` each is tracked on its own region. Measured over nine trajectories in each of two builds (tuned for
    /// AVX-512, and portable): kept 0.927–0.975 and 0.879–0.903, 2 switches each — 4 for the man behind in three of
    /// the portable build's, where he came out from behind with a new identity and took his own back a few frames
    /// later (the rule's "taken back") — and 21–28 poses with the other's identity, all while they overlap, where
    /// the one pose the task gives flips between them.
    func testLookAlikesCrossingKeepTheirIdentitiesByTheirPaths() throws {
        let score = try score("cutout", smoothing: .always)
        check(score, kept: [0.92, 0.87], switches: [4, 2], stolen: 30, found: [115, 160])
    }

    /// The same crossing with MediaPipe's association (the default): after a crossing both tracked regions stay on
    /// the front man (MediaPipe's graph does the same: a detection replaces the regions it overlaps, and with two
    /// regions tracked the detector does not run), so the man behind is found in 51–55 frames only (in one
    /// trajectory of nine, 124) and the second region's identity often ends up on the front man. Measured over nine
    /// trajectories: the man behind keeps his identity in 0.347–0.981 of his frames (0.347 in the trajectory that
    /// finds him in 124), the front man in 0.381–0.968 of his, 2–8 switches, 121–247 poses with the other's
    /// identity. Identities cannot be better than the regions they follow.
    func testLookAlikesCrossingWithMediaPipesAssociation() throws {
        let score = try score("cutout", smoothing: .mediapipe)
        check(score, kept: [0.3, 0.35], switches: [8, 7], stolen: 250, found: [45, 180])
    }

    /// A woman in an opaque window sliding across a man and back: she hides most of him twice. With `.always`, the
    /// man keeps his identity in every frame he is found (210–215 of 247 over nine trajectories), through both
    /// occlusions (his colour and his place bring him back). The pose detector misses the woman for 6.5 s after the
    /// first crossing — longer than ``IdentityTracker/memoryMilliseconds`` — so she comes back with a new identity:
    /// kept 0.514–0.543 (36 of 68 frames unnudged), 2 switches; 10–11 poses with the other's identity, where the
    /// landmark model draws his face on her body.
    func testAPersonPassingInFrontKeepsTheIdentities() throws {
        let score = try score("window", smoothing: .always)
        check(score, kept: [0.99, 0.5], switches: [0, 2], stolen: 12, found: [205, 60])
    }

    /// The window clip with MediaPipe's association: the man's region goes onto the woman at the first crossing and
    /// both regions end on him; his colour and his path give him his identity back. Measured over nine trajectories:
    /// kept 0.884–0.916 of his frames (2–6 switches) and 0.880–0.902 of hers (1–2), 33–38 poses with the other's
    /// identity. Identities cannot be better than the regions they follow.
    func testAPersonPassingInFrontWithMediaPipesAssociation() throws {
        let score = try score("window", smoothing: .mediapipe)
        check(score, kept: [0.85, 0.85], switches: [6, 2], stolen: 45, found: [200, 45])
    }

    /// Two faces turning, each in its own half of the frame (face_head_turning.mp4 beside its mirror image 1 s later),
    /// numFaces 2: faces are followed by position alone. Measured: both found in all 295 frames, each keeps its
    /// identity in every one, no switch.
    func testTwoFacesKeepTheirIdentities() throws {
        let truth = try Self.truth("faces")
        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("face_landmarker.task")
        options.runningMode = .video
        options.numFaces = 2
        let landmarker = try FaceLandmarker(options: options)
        let score = try score(truth, smoothing: .mediapipe) { image, time, _ in
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: time)
            return (result.faceLandmarks, result.identities, result.faceLandmarks.map { Self.instance(of: $0, truth: truth) })
        }
        check(score, kept: [0.99, 0.99], switches: [0, 0], stolen: 0, found: [290, 290])
    }

    /// Two hands closing and opening, each in its own half (hand_gesture_fist_thumbsup.mp4 beside its mirror image
    /// 1 s later), numHands 2: hands are followed by position alone. Measured: found in 137 and 153 of 170 frames
    /// (the clip opens without a hand), each keeps its identity in every one, no switch.
    func testTwoHandsKeepTheirIdentities() throws {
        let truth = try Self.truth("hands")
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("hand_landmarker.task")
        options.runningMode = .video
        options.numHands = 2
        let landmarker = try HandLandmarker(options: options)
        let score = try score(truth, smoothing: .mediapipe) { image, time, _ in
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: time)
            return (result.landmarks, result.identities, result.landmarks.map { Self.instance(of: $0, truth: truth) })
        }
        check(score, kept: [0.99, 0.99], switches: [0, 0], stolen: 0, found: [130, 145])
    }

    /// numPoses 1 on the clip of the shared references (`pose_video_single.json`, 90 frames): landmarks, world
    /// landmarks and masks are bit-identical with identities followed and without (the only change on this path is
    /// the identity stage), and both are MediaPipe's within the reference test's clip-mean bound; the one person keeps
    /// identity 0 in every frame.
    /// Every number of a result but its identities, as bit patterns.
    static func bits(_ result: PoseLandmarkerResult) -> [UInt32] {
        var out: [UInt32] = []
        for pose in result.landmarks {
            for p in pose {
                let values: [Float] = [p.x, p.y, p.z, p.visibilityValue ?? .nan, p.presenceValue ?? .nan]
                out += values.map(\.bitPattern)
            }
        }
        for pose in result.worldLandmarks {
            for p in pose {
                let values: [Float] = [p.x, p.y, p.z, p.visibilityValue ?? .nan, p.presenceValue ?? .nan]
                out += values.map(\.bitPattern)
            }
        }
        for mask in result.segmentationMasks { out += mask.float32Values.map(\.bitPattern) }
        return out
    }

    func testIdentitiesChangeNoResultWithOnePose() throws {
        struct Reference: Decodable {
            struct Point: Decodable { let x: Float; let y: Float }
            struct Result: Decodable { let landmarks: [[Point]] }
            struct Entry: Decodable { let result: Result }
            let model: String
            let results: [Entry]
        }
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: PlatformLibm.videoReference("pose_video_single.json")))
        func run(identities: Bool) throws -> [PoseLandmarkerResult] {
            let options = PoseLandmarkerOptions()
            options.baseOptions.modelAssetPath = Repository.modelPath(reference.model)
            options.runningMode = .video
            options.numPoses = 1
            options.outputSegmentationMasks = true
            options.values.followsIdentities = identities
            let landmarker = try PoseLandmarker(options: options)
            let video = try VideoDecoder(path: Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4").path)
            var results: [PoseLandmarkerResult] = []
            while results.count < reference.results.count, let frame = try video.nextFrame() {
                results.append(try landmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs))
            }
            return results
        }
        let followed = try run(identities: true), plain = try run(identities: false)
        XCTAssertEqual(followed.count, 90)
        XCTAssertEqual(plain.count, 90)
        var meanX: Float = 0, meanY: Float = 0
        for (i, (a, b)) in zip(followed, plain).enumerated() {
            XCTAssertEqual(a.identities, [0], "frame \(i)")
            XCTAssertEqual(b.identities, [], "frame \(i)")
            // Bit patterns, so that even a NaN or a -0 would have to be the same.
            XCTAssertEqual(Self.bits(a), Self.bits(b), "frame \(i)")
            guard let ours = a.landmarks.first, let theirs = reference.results[i].result.landmarks.first else { continue }
            meanX += zip(ours, theirs).map { abs($0.x - $1.x) }.reduce(0, +) / Float(theirs.count) / 90
            meanY += zip(ours, theirs).map { abs($0.y - $1.y) }.reduce(0, +) / Float(theirs.count) / 90
        }
        // PoseReferenceTests' bound on the clip mean for numPoses 1.
        XCTAssertLessThanOrEqual(meanX, 0.003)
        XCTAssertLessThanOrEqual(meanY, 0.003)
        print(String(format: "numPoses 1, identities followed and not: bit-identical on 90 frames; against MediaPipe mean|Δx| %.5f mean|Δy| %.5f", meanX, meanY))
    }
}
