import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client over a loopback socket: one request per connection (`Connection: close`), the answer
/// read to the end. The tests' own, so that they see the bytes on the wire (status, headers, body as sent) and can
/// do what a real client library hides: close a connection early, send a lying Content-Length.
struct HTTPAnswer {
    let status: Int
    let headers: [String: String]
    let body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers[name.lowercased()] }
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
}

enum LoopbackHTTP {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// A connected socket to 127.0.0.1:`port`.
    static func connect(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect to 127.0.0.1:\(port) failed (errno \(errno))")
        }
        // A bound on every read and write: a test fails instead of hanging.
        var timeout = timeval(tv_sec: 300, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    static func send(_ descriptor: Int32, _ data: Data) throws {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let sent = Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { throw Failure(description: "send failed (errno \(errno))") }
                offset += sent
            }
        }
    }

    static func head(method: String, path: String, headers: [String: String], contentLength: Int?) -> Data {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        if let contentLength { text += "Content-Length: \(contentLength)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// Everything the server sends until it closes the connection.
    static func readAll(_ descriptor: Int32) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { break }
            guard count > 0 else { throw Failure(description: "recv failed (errno \(errno)) after \(data.count) bytes") }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    /// One request, its answer parsed (a chunked body de-chunked).
    static func request(port: Int, method: String = "GET", path: String, headers: [String: String] = [:], body: Data? = nil) throws -> HTTPAnswer {
        let descriptor = try connect(port: port)
        defer { close(descriptor) }
        try send(descriptor, head(method: method, path: path, headers: headers, contentLength: body.map(\.count) ?? (method == "POST" ? 0 : nil)))
        if let body { try send(descriptor, body) }
        return try parse(readAll(descriptor))
    }

    static func parse(_ data: Data) throws -> HTTPAnswer {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { throw Failure(description: "no response head in \(data.count) bytes") }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line \(head[0])") }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[end.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = try dechunk(body) }
        return HTTPAnswer(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ data: Data) throws -> Data {
        var out = Data()
        var index = data.startIndex
        while true {
            guard let lineEnd = data[index...].range(of: Data("\r\n".utf8)) else { throw Failure(description: "truncated chunk") }
            let sizeText = String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";")[0]
            guard let size = Int(sizeText, radix: 16) else { throw Failure(description: "bad chunk size '\(sizeText)'") }
            index = lineEnd.upperBound
            if size == 0 { return out }
            guard data.distance(from: index, to: data.endIndex) >= size + 2 else { throw Failure(description: "truncated chunk") }
            out.append(data[index..<data.index(index, offsetBy: size)])
            index = data.index(index, offsetBy: size + 2)
        }
    }
}
