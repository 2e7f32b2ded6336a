import Foundation
import HTTPTypes
import Hummingbird

/// A request the service refuses or cannot answer, with its status and a JSON body `{"error": MESSAGE}`.
enum RequestError: Error, HTTPResponseError, CustomStringConvertible {
    case badRequest(String)
    case unauthorized
    case notFound(String)
    case tooLarge(String)
    case unsupportedMediaType(String)
    /// Every slot busy and the wait queue full: try again later.
    case overloaded
    case deadlineExceeded
    /// The client closed the connection before its answer (counted, never sent).
    case clientClosed
    case internalError(String)

    var status: HTTPResponse.Status {
        switch self {
        case .badRequest: return .badRequest
        case .unauthorized: return .unauthorized
        case .notFound: return .notFound
        case .tooLarge: return .contentTooLarge
        case .unsupportedMediaType: return .unsupportedMediaType
        case .overloaded: return .serviceUnavailable
        case .deadlineExceeded: return .gatewayTimeout
        case .clientClosed: return HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")
        case .internalError: return .internalServerError
        }
    }

    var description: String {
        switch self {
        case let .badRequest(message), let .notFound(message), let .tooLarge(message), let .unsupportedMediaType(message),
             let .internalError(message):
            return message
        case .unauthorized: return "missing or wrong API key (send Authorization: Bearer KEY or X-API-Key: KEY)"
        case .overloaded: return "every inference slot is busy and the wait queue is full; retry later"
        case .deadlineExceeded: return "the request's deadline passed before it was answered"
        case .clientClosed: return "the client closed the connection"
        }
    }

    /// Seconds a client should wait before retrying an overloaded service.
    static let retryAfterSeconds = 1

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if case .overloaded = self { headers[.retryAfter] = "\(Self.retryAfterSeconds)" }
        if case .unauthorized = self { headers[.wwwAuthenticate] = "Bearer" }
        // A refused request's connection is not reused (its body may be unread; an image route's inbound-close
        // handler closes it anyway): said so, clients open a new one.
        headers[.connection] = "close"
        let body = (try? ReferenceJSONText.object(["error": description])) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Small JSON bodies of the service's own (errors, model lists), keys sorted as the results' are.
enum ReferenceJSONText {
    static func object(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}

/// Width and height from a PNG's or JPEG's header, read before decoding so that `--max-pixels` refuses a huge image
/// without allocating its pixels. Nil when the header cannot be read (the decoder then gives the precise error).
enum ImageHeader {
    static func size(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        if bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return (bigEndian(bytes, 16, 4), bigEndian(bytes, 20, 4))
        }
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        // Segments up to the first start-of-frame: each is FF, a marker, and a big-endian length that counts itself.
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xFF { index += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { index += 2; continue }
            let length = bigEndian(bytes, index + 2, 2)
            guard length >= 2 else { return nil }
            let isStartOfFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isStartOfFrame {
                guard index + 9 <= bytes.count else { return nil }
                return (bigEndian(bytes, index + 7, 2), bigEndian(bytes, index + 5, 2))
            }
            index += 2 + length
        }
        return nil
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }
}
