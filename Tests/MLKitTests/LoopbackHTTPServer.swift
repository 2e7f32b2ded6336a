import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 (an ephemeral port) that answers each path with a canned response, one
/// thread per connection, every connection closed after its answer. Nothing leaves the machine. It stops (the accept
/// loop polls a flag) when the test calls `stop()`.
final class LoopbackHTTPServer: Sendable {
    enum Response: Sendable {
        /// 200 with a Content-Length, all at once.
        case body(Data)
        /// 200 with a Content-Length, the body in `chunks` pieces `delay` seconds apart.
        case drip(Data, chunks: Int, delay: TimeInterval)
        /// 200 announcing the whole body's length, then only its first `sent` bytes, then the connection closes.
        case truncated(Data, sent: Int)
        /// An error status with a short text body.
        case status(Int)
        /// 302 to `location`.
        case redirect(String)
        /// A redirect with status `status` (301, 307, 308…) to `location`.
        case redirectWith(status: Int, location: String)
        /// 200 without a Content-Length, `piece` sent `count` times as chunks (`Transfer-Encoding: chunked`).
        case chunked(piece: Data, count: Int)
        /// 200 announcing `length` bytes in its Content-Length, then nothing: the connection stays open (up to 30 s)
        /// until the client closes it.
        case announced(length: Int64)
    }

    let port: UInt16
    private let listener: Int32
    private let routes = Mutex<[String: Response]>([:])
    private let hits = Mutex<[String: Int]>([:])
    private let stopped = Atomic<Bool>(false)
    private let acceptLoopEnded = DispatchSemaphore(value: 0)

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The URL of `path` on this server.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    func route(_ path: String, _ response: Response) {
        routes.withLock { $0[path] = response }
    }

    /// How many requests `path` has had.
    func requests(_ path: String) -> Int { hits.withLock { $0[path] ?? 0 } }

    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        acceptLoopEnded.wait()
        close(listener)
    }

    private func acceptLoop() {
        defer { acceptLoopEnded.signal() }
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer {
            shutdown(connection, Int32(SHUT_RDWR))
            close(connection)
        }
        // The request line and headers (a GET has no body).
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.ends(with: [13, 10, 13, 10]), request.count < 65536 {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            request += buffer[..<count]
        }
        let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
        let path = line.count >= 2 ? String(line[1]) : "/"
        hits.withLock { $0[path, default: 0] += 1 }

        func send(_ bytes: some DataProtocol) -> Bool {
            var all = [UInt8](bytes)
            var offset = 0
            while offset < all.count {
                let sent = all.withUnsafeMutableBytes { Glibc.send(connection, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
        func head(_ status: String, length: Int, extra: String = "") -> Data {
            Data("HTTP/1.1 \(status)\r\nContent-Type: application/octet-stream\r\nContent-Length: \(length)\r\n\(extra)Connection: close\r\n\r\n".utf8)
        }

        switch routes.withLock({ $0[path] }) ?? .status(404) {
        case let .body(data):
            _ = send(head("200 OK", length: data.count) + data)
        case let .drip(data, chunks, delay):
            guard send(head("200 OK", length: data.count)) else { return }
            let size = (data.count + chunks - 1) / chunks
            for start in stride(from: 0, to: data.count, by: size) {
                Thread.sleep(forTimeInterval: delay)
                guard send(data[data.startIndex + start ..< data.startIndex + min(start + size, data.count)]) else { return }
            }
        case let .truncated(data, sent):
            _ = send(head("200 OK", length: data.count) + data.prefix(sent))
        case let .status(code):
            let body = Data("status \(code)\n".utf8)
            _ = send(head("\(code) Canned", length: body.count) + body)
        case let .redirect(location):
            _ = send(head("302 Found", length: 0, extra: "Location: \(location)\r\n"))
        case let .redirectWith(status, location):
            _ = send(head("\(status) Moved", length: 0, extra: "Location: \(location)\r\n"))
        case let .chunked(piece, count):
            let header = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            guard send(Data(header.utf8)) else { return }
            let frame = Data("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Data("\r\n".utf8)
            for _ in 0..<count where !piece.isEmpty {
                // A client that stopped reading closes the connection: the send fails and the answer ends.
                guard send(frame) else { return }
            }
            _ = send(Data("0\r\n\r\n".utf8))
        case let .announced(length):
            let header = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n"
            guard send(Data(header.utf8)) else { return }
            var poller = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            var byte: UInt8 = 0
            // Readable means the client closed (recv returns 0) or sent something; either way the answer ends.
            if poll(&poller, 1, 30_000) > 0 { _ = recv(connection, &byte, 1, 0) }
        }
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
