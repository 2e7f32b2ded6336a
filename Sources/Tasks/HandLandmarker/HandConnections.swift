extension HandLandmarker {
    /// The 21 connections MediaPipe draws between the 21 hand landmarks (hand_landmarks_connections.h: the palm,
    /// then thumb, index, middle, ring and little finger), as pairs of landmark indices.
    public static let handConnections: [(Int, Int)] = [
        (0, 1), (0, 5), (9, 13), (13, 17), (5, 9), (0, 17), (1, 2), (2, 3), (3, 4), (5, 6), (6, 7), (7, 8),
        (9, 10), (10, 11), (11, 12), (13, 14), (14, 15), (15, 16), (17, 18), (18, 19), (19, 20),
    ]
}
