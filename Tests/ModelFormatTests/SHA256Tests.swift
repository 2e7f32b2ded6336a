import Foundation
import VisionTasksModelFormat
import VisionTasksTestSupport
import XCTest

/// SHA256 (libcrypto underneath) against digests from outside: FIPS 180-2's examples, and the `sha256sum` list that
/// comes with ../shared/models.
final class SHA256Tests: XCTestCase {
    func testFIPSExamples() {
        XCTAssertEqual(SHA256.hexadecimal(SHA256.hash(data: [UInt8]())),
                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hexadecimal(SHA256.hash(data: Array("abc".utf8))),
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hexadecimal(SHA256.hash(data: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // A million "a", in pieces of every size up to 999 bytes: updates add up to one message.
        var hasher = SHA256()
        let a = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        var left = 1_000_000, size = 1
        while left > 0 {
            let count = min(size, left)
            hasher.update(data: a[0..<count])
            left -= count
            size = size % 999 + 1
        }
        XCTAssertEqual(SHA256.hexadecimal(hasher.finalize()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// A copy goes on from the bytes hashed so far, apart from the original; finalizing does not end a hash.
    func testCopiesAreIndependentAndFinalizeDoesNotEndAHash() {
        var first = SHA256()
        first.update(data: Array("ab".utf8))
        var second = first
        first.update(data: Array("c".utf8))
        XCTAssertEqual(SHA256.hexadecimal(first.finalize()), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hexadecimal(first.finalize()), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(second.finalize(), SHA256.hash(data: Array("ab".utf8)))
        second.update(data: Data("c".utf8))
        XCTAssertEqual(second.finalize(), first.finalize())
    }

    /// Every model ../shared ships, as its SHA256SUMS lists it.
    func testTheSharedModelsHashAsTheirChecksumFileSays() throws {
        let folder = Repository.shared.appendingPathComponent("models")
        let sums = try String(contentsOf: folder.appendingPathComponent("SHA256SUMS"), encoding: .utf8)
        var checked = 0
        for line in sums.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 1)
            guard fields.count == 2 else { continue }
            let name = fields[1].trimmingCharacters(in: CharacterSet(charactersIn: " *"))
            let bytes = try Data(contentsOf: folder.appendingPathComponent(name), options: .alwaysMapped)
            XCTAssertEqual(SHA256.hexadecimal(SHA256.hash(data: bytes)), String(fields[0]), name)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
    }
}
