@testable import VisionTasks
import VisionTasksImaging
import XCTest

/// The identity rule (``IdentityTracker``'s documentation, the "Identities" article) on synthetic instances, without
/// models: a 2 × 2 grid of landmarks 100 pixels wide stands for a pose, frames 40 ms apart.
final class IdentityTrackerTests: XCTestCase {
    private static func instance(x: Float, y: Float = 100, size: Float = 100, colour: SIMD3<Float>? = nil) -> IdentityObservation {
        IdentityObservation(points: [SIMD2(x, y), SIMD2(x + size, y), SIMD2(x, y + size), SIMD2(x + size, y + size)],
                            appearance: colour)
    }

    private static let white = SIMD3<Float>(0.9, 0.9, 0.9), navy = SIMD3<Float>(0.1, 0.1, 0.3)

    func testNewInstancesGetNewIdentitiesInTheirOrder() {
        var tracker = IdentityTracker()
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0), Self.instance(x: 400)], timestampMilliseconds: 0), [0, 1])
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 400), Self.instance(x: 0), Self.instance(x: 800)], timestampMilliseconds: 40),
                       [1, 0, 2], "followed whatever the order the task gives them in")
        XCTAssertEqual(tracker.identities(of: [], timestampMilliseconds: 80), [])
    }

    func testAnInstanceMovingSteadilyKeepsItsIdentity() {
        var tracker = IdentityTracker()
        // 15 pixels a frame (a mean landmark distance — the mean of |Δx| and |Δy| — of 0.075 of its size before its
        // motion is predicted, 0 after).
        for frame in 0..<50 {
            XCTAssertEqual(tracker.identities(of: [Self.instance(x: Float(15 * frame))], timestampMilliseconds: 40 * frame), [0], "frame \(frame)")
        }
    }

    func testAJumpBeyondTheFollowingDistanceIsAnotherInstance() {
        var tracker = IdentityTracker()
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0)], timestampMilliseconds: 0), [0])
        // 50 pixels across in one frame from standing still (a mean landmark distance of 0.25 of its size, over the
        // 0.2 followed): not the same instance. The new one gets a new identity.
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 50)], timestampMilliseconds: 40), [1])
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 40)], timestampMilliseconds: 80), [1], "while 40 is followed")
    }

    func testAnInstanceReturnsAfterAGapAndNotAfterTheMemory() {
        var remembered = IdentityTracker()
        XCTAssertEqual(remembered.identities(of: [Self.instance(x: 0)], timestampMilliseconds: 0), [0])
        XCTAssertEqual(remembered.identities(of: [], timestampMilliseconds: 40), [])
        XCTAssertEqual(remembered.identities(of: [Self.instance(x: 20)], timestampMilliseconds: IdentityTracker.memoryMilliseconds),
                       [0], "back within the memory, near its place")
        var ended = IdentityTracker()
        XCTAssertEqual(ended.identities(of: [Self.instance(x: 0)], timestampMilliseconds: 0), [0])
        XCTAssertEqual(ended.identities(of: [], timestampMilliseconds: 40), [])
        XCTAssertEqual(ended.identities(of: [Self.instance(x: 0)], timestampMilliseconds: IdentityTracker.memoryMilliseconds + 1),
                       [1], "ended after the memory; its identity is not given again")
    }

    func testAReturnFarFromItsPlaceIsAnotherInstance() {
        var tracker = IdentityTracker()
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0)], timestampMilliseconds: 0), [0])
        XCTAssertEqual(tracker.identities(of: [], timestampMilliseconds: 40), [])
        // 80 ms after: the centre may be 0.5 + 1.2 × 0.08 ≈ 0.6 of the size away; 100 pixels is 1.
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 100)], timestampMilliseconds: 80), [1])
    }

    func testAReturnNeedsTheSameColourWhereColoursAreSampled() {
        var tracker = IdentityTracker()
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0, colour: Self.white)], timestampMilliseconds: 0), [0])
        XCTAssertEqual(tracker.identities(of: [], timestampMilliseconds: 40), [])
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0, colour: Self.navy)], timestampMilliseconds: 80), [1],
                       "someone else, dressed otherwise, where the first one was")
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0, colour: Self.navy), Self.instance(x: 30, colour: Self.white)],
                                          timestampMilliseconds: 120), [1, 0], "the first one is back")
        // A colour on one side only is not enough to return.
        var unsure = IdentityTracker()
        XCTAssertEqual(unsure.identities(of: [Self.instance(x: 0, colour: Self.white)], timestampMilliseconds: 0), [0])
        XCTAssertEqual(unsure.identities(of: [], timestampMilliseconds: 40), [])
        XCTAssertEqual(unsure.identities(of: [Self.instance(x: 0)], timestampMilliseconds: 80), [1])
    }

    func testANewIdentityIsTakenBackWhenItsInstanceIsRecognised() {
        var tracker = IdentityTracker()
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0, colour: Self.white)], timestampMilliseconds: 0), [0])
        XCTAssertEqual(tracker.identities(of: [], timestampMilliseconds: 40), [])
        // Back, its torso too hidden for a colour: not recognised, a new identity.
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 10)], timestampMilliseconds: 80), [1])
        // Its colour seen within takeBackMilliseconds: identity 0 back, 1 ended (never given again).
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 12, colour: Self.white)], timestampMilliseconds: 120), [0])
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 14, colour: Self.white), Self.instance(x: 600)], timestampMilliseconds: 160),
                       [0, 2])
        // Dressed otherwise: someone else, who keeps the new identity.
        var other = IdentityTracker()
        XCTAssertEqual(other.identities(of: [Self.instance(x: 0, colour: Self.white)], timestampMilliseconds: 0), [0])
        XCTAssertEqual(other.identities(of: [], timestampMilliseconds: 40), [])
        XCTAssertEqual(other.identities(of: [Self.instance(x: 10)], timestampMilliseconds: 80), [1])
        XCTAssertEqual(other.identities(of: [Self.instance(x: 12, colour: Self.navy)], timestampMilliseconds: 120), [1])
        // Recognised only after takeBackMilliseconds: the new identity stays.
        var late = IdentityTracker()
        XCTAssertEqual(late.identities(of: [Self.instance(x: 0, colour: Self.white)], timestampMilliseconds: 0), [0])
        XCTAssertEqual(late.identities(of: [], timestampMilliseconds: 40), [])
        var time = 80
        while time <= 80 + IdentityTracker.takeBackMilliseconds {
            XCTAssertEqual(late.identities(of: [Self.instance(x: 10)], timestampMilliseconds: time), [1], "at \(time) ms")
            time += 40
        }
        XCTAssertEqual(late.identities(of: [Self.instance(x: 10, colour: Self.white)], timestampMilliseconds: time), [1])
        // A second answer for an instance claimed in the frame (a duplicate) takes back no one, even where one is
        // remembered close by in the same colour.
        var duplicate = IdentityTracker()
        XCTAssertEqual(duplicate.identities(of: [Self.instance(x: 0, colour: Self.white), Self.instance(x: 50, colour: Self.white)],
                                            timestampMilliseconds: 0), [0, 1])
        XCTAssertEqual(duplicate.identities(of: [Self.instance(x: 0, colour: Self.white)], timestampMilliseconds: 40), [0])
        XCTAssertEqual(duplicate.identities(of: [Self.instance(x: 0, colour: Self.white), Self.instance(x: 2)], timestampMilliseconds: 80),
                       [0, 2])
        XCTAssertEqual(duplicate.identities(of: [Self.instance(x: 0, colour: Self.white), Self.instance(x: 3, colour: Self.white)],
                                            timestampMilliseconds: 120), [0, 2])
    }

    func testFollowingStopsWhenTheColourChangesAtOnce() {
        var tracker = IdentityTracker()
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0, colour: Self.white)], timestampMilliseconds: 0), [0])
        // Same place, colour changed by more than the following limit (‖white − navy‖ ≈ 1.3): a region slid onto someone.
        XCTAssertGreaterThan(IdentityTracker.colourChange(Self.white, Self.navy)!, IdentityTracker.followingColourChange)
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0, colour: Self.navy)], timestampMilliseconds: 40), [1])
    }

    func testADuplicateCannotTakeAnotherInstancesIdentity() {
        var tracker = IdentityTracker()
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0), Self.instance(x: 40)], timestampMilliseconds: 0), [0, 1])
        // Both answers now on the first instance (the second region slid onto it): the second is within its following
        // distance too, but a duplicate of one already claimed, so it gets a new identity; identity 1 waits.
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0), Self.instance(x: 2)], timestampMilliseconds: 40), [0, 2])
        // The duplicate keeps its new identity while it stays one.
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0), Self.instance(x: 3)], timestampMilliseconds: 80), [0, 2])
    }

    func testLookAlikesCrossingKeepTheirIdentitiesByTheirPaths() {
        // One stands at x 300; the other walks from x 0 at 10 pixels a frame, passes in front of it and on. While they
        // overlap the task sees one instance, following the one standing, then (the region sliding) the walker.
        var tracker = IdentityTracker()
        var walkerSeen: [Int] = []
        for frame in 0..<70 {
            let time = 40 * frame, walker = Float(10 * frame)
            let overlap = abs(walker - 300) < 80
            let instances = overlap ? [Self.instance(x: walker > 300 ? walker : 300)] : [Self.instance(x: 300), Self.instance(x: walker)]
            let identities = tracker.identities(of: instances, timestampMilliseconds: time)
            if frame == 0 { XCTAssertEqual(identities, [0, 1]) }
            if !overlap { XCTAssertEqual(identities[0], 0, "frame \(frame): the one standing"); walkerSeen.append(identities[1]) }
            if overlap, walker > 300 + 20 { XCTAssertEqual(identities, [1], "frame \(frame): the walker, through in front") }
        }
        XCTAssertEqual(Set(walkerSeen), [1], "the walker keeps its identity after the crossing")
    }

    /// Landmarks a model could give on a hostile frame (NaN, infinite, far outside) neither trap nor match anything.
    func testNonFiniteLandmarksGetTheirOwnIdentities() throws {
        var tracker = IdentityTracker()
        let broken = IdentityObservation(points: [SIMD2(.nan, 0), SIMD2(.infinity, 1), SIMD2(-.infinity, .nan), SIMD2(1e30, -1e30)])
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0), broken], timestampMilliseconds: 0), [0, 1])
        XCTAssertEqual(tracker.identities(of: [broken, Self.instance(x: 0)], timestampMilliseconds: 40), [2, 0])
        // The torso colour of such a pose is none, not a trap (Int(_:) of a NaN would be one).
        let image = try MPImage(pixels: [UInt8](repeating: 128, count: 8 * 8 * 3), width: 8, height: 8, format: .rgb8)
        let landmarks = (0..<33).map { _ in NormalizedLandmark(x: .nan, y: .infinity, z: 0, visibility: 1, presence: 1) }
        XCTAssertNil(PoseAppearance.colour(of: landmarks, in: image))
        let grey = (0..<33).map { _ in NormalizedLandmark(x: 0.5, y: 0.5, z: 0, visibility: 1, presence: 1) }
        XCTAssertEqual(PoseAppearance.colour(of: grey, in: image), SIMD3(repeating: 128.0 / 255))
    }

    func testTimestampsFarApartDoNotOverflow() {
        var tracker = IdentityTracker()
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0)], timestampMilliseconds: .min), [0])
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0)], timestampMilliseconds: .max), [1], "ended long ago")
        XCTAssertEqual(IdentityTracker.elapsed(from: .min, to: .max), .max)
        XCTAssertEqual(IdentityTracker.elapsed(from: 5, to: 45), 40)
    }

    /// A new stream (the worker's next clip on a kept task) is answered as a new task answers it: from identity 0,
    /// nothing remembered (the same instance right where the last stream left it is not taken for the old one).
    func testResetStartsANewStreamAsANewTrackerWould() {
        var tracker = IdentityTracker()
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 0), Self.instance(x: 400)], timestampMilliseconds: 0), [0, 1])
        tracker.reset()
        XCTAssertEqual(tracker.identities(of: [Self.instance(x: 400)], timestampMilliseconds: 0), [0])
    }
}
