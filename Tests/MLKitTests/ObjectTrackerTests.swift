import Foundation
import VisionTasksMLKit
import XCTest

/// The stream mode's tracker on synthetic boxes, without models. What ML Kit promises ("Object detection and
/// tracking"): an ID stays the same while its object stays in view, frame after frame, and identifies one object
/// only. What ours adds (``ObjectTracker``'s documentation): a track follows its box by overlap (IoU ≥ 0.3) with its
/// last place or the place its last move predicts, survives ``ObjectTracker/memory`` frames unseen, and IDs are
/// counted up from 0 and never reused.
final class ObjectTrackerTests: XCTestCase {
    private static func box(x: CGFloat, y: CGFloat = 100, size: CGFloat = 100) -> CGRect {
        CGRect(x: x, y: y, width: size, height: size)
    }

    func testNewObjectsGetNewIDsInTheOrderOfTheirBoxes() {
        var tracker = ObjectTracker()
        XCTAssertEqual(tracker.update([Self.box(x: 0), Self.box(x: 400)]), [0, 1])
        XCTAssertEqual(tracker.update([Self.box(x: 0), Self.box(x: 400), Self.box(x: 800)]), [0, 1, 2])
        XCTAssertEqual(tracker.update([]), [])
    }

    func testAnObjectThatMovesABitKeepsItsID() {
        var tracker = ObjectTracker()
        let first = tracker.update([Self.box(x: 0)])
        // A tenth of its width a frame, and a little growth: IoU ≈ 0.8 with the last place.
        for frame in 1...10 {
            XCTAssertEqual(tracker.update([Self.box(x: CGFloat(10 * frame), size: 100 + CGFloat(frame))]), first, "frame \(frame)")
        }
    }

    func testAnObjectElsewhereIsANewOneAndIDsAreNotReused() {
        var tracker = ObjectTracker()
        XCTAssertEqual(tracker.update([Self.box(x: 0)]), [0])
        // No overlap with the track's place (nor with its prediction: it has not moved).
        XCTAssertEqual(tracker.update([Self.box(x: 500)]), [1])
        // The first object's track is still remembered: back at its place, it gets its ID back, never a third one.
        XCTAssertEqual(tracker.update([Self.box(x: 0), Self.box(x: 500)]), [0, 1])
    }

    func testTheOverlapWithTheLastPlaceHasALowerBound() {
        // Two 100-pixel squares 50 pixels apart overlap by IoU 1/3, just over 0.3; 55 apart by 45/155 ≈ 0.29, under.
        XCTAssertEqual(ObjectTracker.intersectionOverUnion(Self.box(x: 0), Self.box(x: 50)), 1.0 / 3.0, accuracy: 1e-12)
        var kept = ObjectTracker()
        _ = kept.update([Self.box(x: 0)])
        XCTAssertEqual(kept.update([Self.box(x: 50)]), [0])
        var lost = ObjectTracker()
        _ = lost.update([Self.box(x: 0)])
        XCTAssertEqual(lost.update([Self.box(x: 55)]), [1])
    }

    func testAFastObjectIsFollowedWhereItsLastMovePredictsIt() {
        var tracker = ObjectTracker()
        XCTAssertEqual(tracker.update([Self.box(x: 0)]), [0])
        // 50 pixels: IoU 1/3 with the last place, matched; the track now moves 50 a frame.
        XCTAssertEqual(tracker.update([Self.box(x: 50)]), [0])
        // 60 pixels on: IoU 40/160 = 0.25 with the last place, not enough alone; 90/110 with the predicted one.
        XCTAssertLessThan(ObjectTracker.intersectionOverUnion(Self.box(x: 50), Self.box(x: 110)), ObjectTracker.minimumOverlap)
        XCTAssertEqual(tracker.update([Self.box(x: 110)]), [0])
    }

    func testAPredictionCarriesOnAcrossFramesUnseen() {
        var tracker = ObjectTracker()
        _ = tracker.update([Self.box(x: 0)])
        XCTAssertEqual(tracker.update([Self.box(x: 40)]), [0])
        XCTAssertEqual(tracker.update([]), [])
        // Two moves of 40 on from its last place: IoU 20/180 with that place, 1 with the prediction.
        XCTAssertEqual(tracker.update([Self.box(x: 120)]), [0])
        // A track that never moved predicts nothing: the same boxes make a new object.
        var still = ObjectTracker()
        XCTAssertEqual(still.update([Self.box(x: 40)]), [0])
        XCTAssertEqual(still.update([]), [])
        XCTAssertEqual(still.update([Self.box(x: 120)]), [1])
    }

    func testATrackOutlivesMemoryFramesUnseenAndNoMore() {
        var remembered = ObjectTracker()
        XCTAssertEqual(remembered.update([Self.box(x: 0)]), [0])
        for _ in 0..<ObjectTracker.memory { XCTAssertEqual(remembered.update([]), []) }
        XCTAssertEqual(remembered.update([Self.box(x: 0)]), [0], "back after \(ObjectTracker.memory) frames away")
        var retired = ObjectTracker()
        XCTAssertEqual(retired.update([Self.box(x: 0)]), [0])
        for _ in 0...ObjectTracker.memory { XCTAssertEqual(retired.update([]), []) }
        XCTAssertEqual(retired.update([Self.box(x: 0)]), [1], "retired after \(ObjectTracker.memory + 1) frames away; its ID is not reused")
    }

    func testATrackUnseenBesideOthersIsRememberedToo() {
        var tracker = ObjectTracker()
        XCTAssertEqual(tracker.update([Self.box(x: 0), Self.box(x: 400)]), [0, 1])
        XCTAssertEqual(tracker.update([Self.box(x: 10)]), [0])
        XCTAssertEqual(tracker.update([Self.box(x: 20), Self.box(x: 400)]), [0, 1])
    }

    func testEachTrackAndEachBoxIsPairedOnceBestOverlapFirst() {
        var tracker = ObjectTracker()
        // Two objects side by side (IoU 70/130 between them), then the boxes come in the other order.
        XCTAssertEqual(tracker.update([Self.box(x: 0), Self.box(x: 30)]), [0, 1])
        XCTAssertEqual(tracker.update([Self.box(x: 28), Self.box(x: 2)]), [1, 0])
        // Two boxes where one track is: the first keeps its ID, the other is a new object; IDs stay unique in a frame.
        var single = ObjectTracker()
        XCTAssertEqual(single.update([Self.box(x: 0)]), [0])
        XCTAssertEqual(single.update([Self.box(x: 0), Self.box(x: 0)]), [0, 1])
    }

    func testTheTrackersOverlapIsIntersectionOverUnion() {
        XCTAssertEqual(ObjectTracker.intersectionOverUnion(Self.box(x: 0), Self.box(x: 0)), 1)
        XCTAssertEqual(ObjectTracker.intersectionOverUnion(Self.box(x: 0), Self.box(x: 100)), 0, "touching")
        XCTAssertEqual(ObjectTracker.intersectionOverUnion(Self.box(x: 0), Self.box(x: 300)), 0)
        // A box inside another: the small one's area over the large one's.
        XCTAssertEqual(ObjectTracker.intersectionOverUnion(CGRect(x: 0, y: 0, width: 100, height: 100),
                                                           CGRect(x: 25, y: 25, width: 50, height: 50)), 0.25, accuracy: 1e-12)
    }
}
