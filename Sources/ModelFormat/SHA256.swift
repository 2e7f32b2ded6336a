import CVisionTasksCrypto
import Foundation

/// SHA-256, through the system's libcrypto (OpenSSL's EVP interface, Debian's libssl-dev): what a downloaded or
/// cached model is checked against (ML Kit's remote models), and the digests the service and the tests take of files
/// and pixels.
///
/// Not hand-written: the system's library is the well-kept one. It replaced swift-crypto, whose bundled BoringSSL
/// compiled some 450 C files into every build of this package and of every package depending on it (about 200 s of
/// one core, debug or release) for this one function.
///
/// A value: a copy goes on from the bytes hashed so far, independently of the original.
public struct SHA256: Sendable {
    /// The digest's length in bytes.
    public static let byteCount = 32

    // Copied before it is written when shared (copy on write), so it is never mutated from two places.
    private final class Context: @unchecked Sendable {
        let pointer: OpaquePointer

        init() {
            // Only an allocation failure fails these: not something the input can cause.
            guard let pointer = EVP_MD_CTX_new() else { fatalError("SHA256: libcrypto could not allocate a digest context") }
            self.pointer = pointer
            guard EVP_DigestInit_ex(pointer, EVP_sha256(), nil) == 1 else { fatalError("SHA256: libcrypto has no SHA-256") }
        }

        init(copying other: Context) {
            guard let pointer = EVP_MD_CTX_new() else { fatalError("SHA256: libcrypto could not allocate a digest context") }
            self.pointer = pointer
            guard EVP_MD_CTX_copy_ex(pointer, other.pointer) == 1 else { fatalError("SHA256: libcrypto could not copy a digest context") }
        }

        deinit { EVP_MD_CTX_free(pointer) }
    }

    private var context = Context()

    /// A hash of no bytes yet.
    public init() {}

    /// Adds `bytes` to what is hashed.
    public mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if !isKnownUniquelyReferenced(&context) { context = Context(copying: context) }
        EVP_DigestUpdate(context.pointer, base, bytes.count)
    }

    /// Adds `data` (an array, `Data`, a slice: any contiguous bytes) to what is hashed.
    public mutating func update<Bytes: ContiguousBytes>(data: Bytes) {
        data.withUnsafeBytes { update(bufferPointer: $0) }
    }

    /// The digest of the bytes added so far; this hash can go on afterwards.
    public func finalize() -> [UInt8] {
        let finished = Context(copying: context)
        var digest = [UInt8](repeating: 0, count: Self.byteCount)
        var length: UInt32 = 0
        digest.withUnsafeMutableBufferPointer { _ = EVP_DigestFinal_ex(finished.pointer, $0.baseAddress, &length) }
        return digest
    }

    /// The digest of `data`.
    public static func hash<Bytes: ContiguousBytes>(data: Bytes) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: data)
        return hasher.finalize()
    }

    /// `digest` in lowercase hexadecimal, as sources and checksum files give it.
    public static func hexadecimal(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
