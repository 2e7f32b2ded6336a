import VisionTasksModelFormat
import Foundation
import VisionTasksTestSupport
import XCTest

/// Our reading of every shipped model against what LiteRT's interpreter lists for it
/// (`Tests/Fixtures/litert_model_listing.json.zip`, written by `tools/litert_model_listing.py`).
final class LiteRTListingTests: XCTestCase {
    private struct Listing: Decodable, Sendable {
        struct TensorDetail: Decodable, Sendable {
            let name: String
            let type: String
            let shape: [Int32]
            let shapeSignature: [Int32]
            let scale: [Float]
            let zeroPoint: [Int64]
            let quantizedDimension: Int32
        }
        struct CustomOptions: Decodable, Sendable {
            let `operator`: Int
            let code: String
            let hex: String
            /// As the flatbuffers package's FlexBuffers reader decodes them; null when not a FlexBuffer.
            let flex: JSONValue
        }
        struct LabelFile: Decodable, Sendable {
            let lines: Int
            let first: String
            let last: String
        }
        struct Member: Decodable, Sendable {
            let inputs: [TensorDetail]
            let outputs: [TensorDetail]
            /// Rows of [index, name, type, shape].
            let tensors: [[JSONValue]]
            /// Rows of [name, inputs, outputs].
            let operators: [[JSONValue]]
            let histogram: [String: Int]
            let customOptions: [CustomOptions]
            let associatedFiles: [String: LabelFile]
            /// Names of the model's metadata entries (TFLITE_METADATA, min_runtime_version, …).
            let metadata: [String]
        }
        let models: [String: [String: Member]]
    }

    private static let listing: Listing = {
        return try! JSONDecoder().decode(Listing.self, from: Repository.fixtureJSON("litert_model_listing.json"))
    }()

    func testFixtureCoversEveryModelInTheManifest() throws {
        XCTAssertEqual(Set(try Repository.modelFiles()), Set(Self.listing.models.keys))
    }

    func testEveryMemberMatchesLiteRT() throws {
        for file in try Repository.modelFiles() {
            let bundle = try TaskBundle(path: Repository.modelPath(file))
            let expectedMembers = try XCTUnwrap(Self.listing.models[file])
            XCTAssertEqual(
                Set(bundle.members.filter(\.isTFLiteModel).map(\.path)), Set(expectedMembers.keys), file)
            for (path, expected) in expectedMembers {
                try compare(try bundle.model(path), expected, "\(file)#\(path)")
            }
        }
    }

    private func compare(_ model: TFLiteModel, _ expected: Listing.Member, _ label: String) throws {
        let graph = try XCTUnwrap(model.subgraphs.first, label)
        func check(_ indices: [Int32], _ details: [Listing.TensorDetail], _ role: String) {
            XCTAssertEqual(indices.count, details.count, "\(label) \(role) count")
            for (index, detail) in zip(indices, details) {
                let tensor = graph.tensors[Int(index)]
                let where_ = "\(label) \(role) \(detail.name)"
                XCTAssertEqual(tensor.name, detail.name, where_)
                XCTAssertEqual(tensor.type.name, detail.type, where_)
                XCTAssertEqual(tensor.shape, detail.shape, where_)
                XCTAssertEqual(tensor.shapeSignature, detail.shapeSignature, where_)
                XCTAssertEqual(tensor.quantization?.scale ?? [], detail.scale, where_)
                XCTAssertEqual((tensor.quantization?.zeroPoint ?? []), detail.zeroPoint, where_)
                XCTAssertEqual(tensor.quantization?.quantizedDimension ?? 0, detail.quantizedDimension, where_)
            }
        }
        check(graph.inputs, expected.inputs, "input")
        check(graph.outputs, expected.outputs, "output")

        // LiteRT lists every tensor of the main subgraph; each must read the same here.
        XCTAssertEqual(expected.tensors.count, graph.tensors.count, "\(label) tensor count")
        for row in expected.tensors {
            let index = try XCTUnwrap(row[0].int)
            XCTAssertLessThan(index, graph.tensors.count, label)
            guard index < graph.tensors.count else { continue }
            let tensor = graph.tensors[index]
            XCTAssertEqual(tensor.name, row[1].string, "\(label) tensor \(index)")
            XCTAssertEqual(tensor.type.name, row[2].string, "\(label) tensor \(index)")
            XCTAssertEqual(tensor.shape.map(Int.init), row[3].array?.compactMap(\.int), "\(label) tensor \(index)")
        }

        XCTAssertEqual(graph.operators.count, expected.operators.count, "\(label) operator count")
        for (position, (op, row)) in zip(graph.operators, expected.operators).enumerated() {
            XCTAssertEqual(model.code(of: op).name, row[0].string, "\(label) operator \(position)")
            XCTAssertEqual(op.inputs.map(Int.init), row[1].array?.compactMap(\.int), "\(label) operator \(position) inputs")
            XCTAssertEqual(op.outputs.map(Int.init), row[2].array?.compactMap(\.int), "\(label) operator \(position) outputs")
        }
        XCTAssertEqual(model.operatorHistogram, expected.histogram, "\(label) histogram")

        for custom in expected.customOptions {
            let op = graph.operators[custom.operator]
            XCTAssertEqual(model.code(of: op).customCode, custom.code, label)
            XCTAssertEqual(op.customOptions.map { hex($0.bytes) } ?? "", custom.hex, "\(label) custom options")
            if case let .object(fields) = custom.flex {
                let decoded = try FlexValue.decode(try XCTUnwrap(op.customOptions))
                guard case let .map(ours) = decoded else { return XCTFail("\(label): \(decoded) is not a map") }
                XCTAssertEqual(Set(ours.keys), Set(fields.keys), label)
                for (key, value) in fields {
                    switch value {
                    case let .bool(flag): XCTAssertEqual(ours[key], .bool(flag), "\(label) \(key)")
                    case let .number(number): XCTAssertEqual(ours[key]?.doubleValue, number, "\(label) \(key)")
                    default: XCTFail("\(label) \(key): unexpected fixture value \(value)")
                    }
                }
            }
        }

        XCTAssertEqual(model.metadata.map(\.name), expected.metadata, "\(label) metadata entries")

        let archive = try model.associatedFiles()
        XCTAssertEqual(Set(archive?.entries.map(\.name) ?? []), Set(expected.associatedFiles.keys), "\(label) associated files")
        for (name, file) in expected.associatedFiles {
            let lines = try model.labels(named: name)
            XCTAssertEqual(lines.count, file.lines, "\(label) \(name)")
            XCTAssertEqual(lines.first, file.first, "\(label) \(name)")
            XCTAssertEqual(lines.last, file.last, "\(label) \(name)")
        }
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// Enough of JSON to read the fixture's compact rows.
enum JSONValue: Decodable, Equatable, Sendable {
    case number(Double), string(String), bool(Bool), array([JSONValue]), object([String: JSONValue]), null

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    var int: Int? { if case let .number(v) = self { return Int(exactly: v) } else { return nil } }
    var double: Double? { if case let .number(v) = self { return v } else { return nil } }
    var string: String? { if case let .string(v) = self { return v } else { return nil } }
    var array: [JSONValue]? { if case let .array(v) = self { return v } else { return nil } }
}
