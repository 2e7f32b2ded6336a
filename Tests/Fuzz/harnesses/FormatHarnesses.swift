@testable import VisionTasks
import VisionTasksModelFormat
import VisionTasksTooling

/// Copies the input: libFuzzer's buffer is only valid during the call, and our readers keep storage alive.
func storage(_ bytes: UnsafeRawBufferPointer) -> ByteSlice {
    ByteStorage(copying: bytes).slice
}

enum BundleHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let bundle = try? TaskBundle(bytes: storage(bytes), name: "fuzz.task") else { return }
        // Touch every member as a task would: its bytes, and its model when it is one.
        for member in bundle.members {
            guard let contents = try? member.bytes else { continue }
            _ = contents.count
            if member.isTFLiteModel { _ = try? TFLiteModel(bytes: contents) }
        }
    }
}

enum MetadataHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let metadata = try? ModelMetadata(bytes: storage(bytes)) else { return }
        _ = metadata.allAssociatedFiles.map(\.name)
        _ = "\(metadata)"
        for subgraph in metadata.subgraphs { _ = try? subgraph.objectDetectorMetadata() }
    }
}

enum DetectorMetadataHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let metadata = try? ObjectDetectorMetadata(bytes: storage(bytes)) else { return }
        _ = metadata.anchors.count
        _ = "\(metadata.decoding as Any)"
    }
}

enum FlexBufferHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let value = try? FlexValue.decode(storage(bytes)) else { return }
        _ = "\(value)"
    }
}

enum FaceGeometryHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        _ = try? FaceGeometryMetadata(serializedBytes: bytes)
    }
}

enum NumPyHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let array = try? NumPyArray(npy: storage(bytes)) else { return }
        _ = array.elementCount
    }
}
