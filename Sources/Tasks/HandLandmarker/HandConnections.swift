// The hand landmarks' connection tables, as MediaPipe's iOS framework ships them:
// `mediapipe/tasks/ios/vision/hand_landmarker/sources/MPPHandLandmarksConnections.h` (google-ai-edge/mediapipe, commit
// 85c0cdc7d70653888903c88df45962b764296342, Apache License 2.0; the C++ hand_landmarks_connections.h has the same).

extension HandLandmarker {
    /// The palm.
    public static let handPalmConnections = [Connection](pairs: [0, 1, 0, 5, 9, 13, 13, 17, 5, 9, 0, 17])

    /// The thumb.
    public static let handThumbConnections = [Connection](pairs: [1, 2, 2, 3, 3, 4])

    /// The index finger.
    public static let handIndexFingerConnections = [Connection](pairs: [5, 6, 6, 7, 7, 8])

    /// The middle finger.
    public static let handMiddleFingerConnections = [Connection](pairs: [9, 10, 10, 11, 11, 12])

    /// The ring finger.
    public static let handRingFingerConnections = [Connection](pairs: [13, 14, 14, 15, 15, 16])

    /// The little finger.
    public static let handPinkyConnections = [Connection](pairs: [17, 18, 18, 19, 19, 20])

    /// The 21 connections MediaPipe draws between the 21 hand landmarks: the palm, then the thumb, index, middle, ring
    /// and little finger.
    public static let handConnections = handPalmConnections + handThumbConnections + handIndexFingerConnections
        + handMiddleFingerConnections + handRingFingerConnections + handPinkyConnections
}

/// The 21 hand landmarks (MediaPipe's `MPPHandLandmark`, `HandLandmark` in Swift), with its raw values: each case's
/// raw value is the landmark's index in ``HandLandmarkerResult/landmarks``.
public enum HandLandmark: UInt, Sendable, CaseIterable {
    case wrist = 0
    case thumbCMC, thumbMCP, thumbIP, thumbTIP
    case indexFingerMCP, indexFingerPIP, indexFingerDIP, indexFingerTIP
    case middleFingerMCP, middleFingerPIP, middleFingerDIP, middleFingerTIP
    case ringFingerMCP, ringFingerPIP, ringFingerDIP, ringFingerTIP
    case pinkyMCP, pinkyPIP, pinkyDIP, pinkyTIP
}
