import Foundation
import VisionTasksModelFormat

/// The error codes of MediaPipe's tasks (`MPPTasksErrorCode`, `TasksErrorCode` in Swift), with their raw values: the
/// `code` of a task's error seen as an `NSError` (`(error as NSError).code`, domain ``VisionTaskError/errorDomain``).
public enum TasksErrorCode: UInt, Sendable, CaseIterable {
    case cancelledError = 1
    case unknownError = 2
    case invalidArgumentError = 3
    case deadlineExceededError = 4
    case notFoundError = 5
    case alreadyExistsError = 6
    case permissionDeniedError = 7
    case resourceExhaustedError = 8
    case failedPreconditionError = 9
    case abortedError = 10
    case outOfRangeError = 11
    case unimplementedError = 12
    case internalError = 13
    case unavailableError = 14
    case dataLossError = 15
    case unauthenticatedError = 16
    case audioRecordPermissionDeniedError = 17
    case audioRecordPermissionUndeterminedError = 18
    case audioRecordWaitingForNewMicInputError = 19
    case audioRecordNotTappingMicError = 20

    /// The first code (MediaPipe's `MPPTasksErrorCodeFirst`).
    public static let first = TasksErrorCode.cancelledError
    /// The last code (MediaPipe's `MPPTasksErrorCodeLast`).
    public static let last = TasksErrorCode.audioRecordNotTappingMicError
}

extension VisionTaskError: CustomNSError, LocalizedError {
    /// MediaPipe's error domain, `com.google.mediapipe.tasks`.
    public static let errorDomain = "com.google.mediapipe.tasks"

    /// The ``TasksErrorCode`` MediaPipe gives the same failure.
    public var tasksErrorCode: TasksErrorCode {
        switch self {
        case .invalidOption, .wrongRunningMode, .nonIncreasingTimestamp, .timestampOutOfRange, .missingLiveStreamDelegate,
             .wrongModel, .image:
            return .invalidArgumentError
        case .model(.fileUnreadable):
            return .notFoundError
        case .model:
            return .invalidArgumentError
        case .engine, .processingFailed:
            return .internalError
        case .taskClosed:
            return .failedPreconditionError
        }
    }

    /// ``tasksErrorCode``'s raw value, as MediaPipe's `NSError`s carry it.
    public var errorCode: Int { Int(tasksErrorCode.rawValue) }

    /// ``description``, as the error's `localizedDescription` (MediaPipe's errors carry their message there).
    public var errorDescription: String? { description }

    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: description] }
}
