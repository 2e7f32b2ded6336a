import Foundation
import VisionTasksModelFormat

/// The custom operator `TFLite_Detection_PostProcess` (SSD detectors' last step), as LiteRT's kernel computes it:
/// box encodings decoded against the anchors (centre-size, with the options' y/x/h/w scales), then either the fast
/// path — each anchor's best class(es), one class-agnostic NMS — or regular NMS per class, merged by score. Four
/// float outputs: boxes [1, D, 4] (ymin, xmin, ymax, xmax), classes [1, D], scores [1, D], count [1], with
/// D = max_detections × max_classes_per_detection.
///
/// Exactness matters here because a tie decides which box is kept: decoding rounds where the kernel rounds (centres
/// and half sizes computed in double, rounded to float, then float additions), candidates are sorted stably by
/// decreasing score, the per-anchor class choice is the first maximum (or libstdc++'s heap-based partial sort when
/// several classes are kept per box), and IoU uses float with `std::max`/`std::min` semantics. Slots past the count
/// are zero (LiteRT leaves them unwritten).
struct DetectionPostProcessKernel: Kernel {
    struct Options: Sendable {
        var maxDetections: Int
        var maxClassesPerDetection: Int
        var detectionsPerClass: Int
        var useRegularNMS: Bool
        var scoreThreshold: Float
        var iouThreshold: Float
        var classCount: Int
        var yScale: Float, xScale: Float, hScale: Float, wScale: Float
    }

    /// How a uint8 input maps to floats (scale, zero point), or nil for a float input.
    typealias Dequantization = (scale: Float, zeroPoint: Int32)

    let boxInput: Int
    let classInput: Int
    let anchorInput: Int
    let outputs: [Int]
    let options: Options
    let anchorCount: Int
    /// Values per anchor in the box encodings (≥ 4; the first four are y, x, h, w).
    let encodingStride: Int
    /// Class scores per anchor, including a background column when there is one.
    let classStride: Int
    let labelOffset: Int
    /// Classes kept per detection on the fast path.
    let keptClasses: Int
    let boxQuantization: Dequantization?
    let classQuantization: Dequantization?
    let anchorQuantization: Dequantization?
    let detections: Int
    /// A uint8 class score as LiteRT dequantizes it inside whole vectors of 8 and in the tail (see `score`), by value.
    let blockScores: [Float]
    let tailScores: [Float]
    /// No NaN among them (absurd scales could make one), so the row scan may skip NaN handling.
    let blockScoresHaveNoNaN: Bool

    var outputShapes: [Int: [Int]] {
        [outputs[0]: [1, detections, 4], outputs[1]: [1, detections], outputs[2]: [1, detections], outputs[3]: [1]]
    }

    init(_ context: OperatorContext) throws(EngineError) {
        guard let bytes = context.op.customOptions else { throw context.fail("missing custom options") }
        let root: FlexValue
        do { root = try FlexValue.decode(bytes) } catch { throw .format(error) }
        guard case .map = root else { throw context.fail("custom options are not a FlexBuffer map") }
        // LiteRT reads absent and null keys as 0 (detections_per_class: 100), integers from doubles by truncation.
        func integer(_ key: String, default value: Int = 0) throws(EngineError) -> Int {
            guard let entry = root[key], entry != .null else { return value }
            if let v = entry.intValue, let result = Int32(exactly: v) { return Int(result) }
            if let v = entry.doubleValue, v.isFinite, let result = Int32(exactly: v.rounded(.towardZero)) { return Int(result) }
            throw context.fail("option \(key) is \(entry), not a 32-bit integer")
        }
        func real(_ key: String) throws(EngineError) -> Float {
            guard let entry = root[key], entry != .null else { return 0 }
            guard let v = entry.doubleValue else { throw context.fail("option \(key) is \(entry)") }
            return Float(v)
        }
        options = Options(
            maxDetections: try integer("max_detections"), maxClassesPerDetection: try integer("max_classes_per_detection"),
            detectionsPerClass: try integer("detections_per_class", default: 100),
            useRegularNMS: (try integer("use_regular_nms")) != 0,
            scoreThreshold: try real("nms_score_threshold"), iouThreshold: try real("nms_iou_threshold"),
            classCount: try integer("num_classes"),
            yScale: try real("y_scale"), xScale: try real("x_scale"), hScale: try real("h_scale"), wScale: try real("w_scale"))
        boxInput = try context.input(0)
        classInput = try context.input(1)
        anchorInput = try context.input(2)
        guard context.outputs.count == 4 else { throw context.fail("\(context.outputs.count) outputs, 4 expected") }
        outputs = context.outputs
        for output in outputs where context.type(output) != .float32 { throw context.fail("outputs must be float32") }

        let boxes = context.shape(boxInput), classes = context.shape(classInput), anchors = context.shape(anchorInput)
        guard boxes.count == 3, boxes[0] == 1, boxes[2] >= 4, classes.count == 3, classes[0] == 1, classes[1] == boxes[1],
              anchors.count == 2, anchors[0] == boxes[1], anchors[1] == 4 else {
            throw context.fail("box encodings \(boxes), class predictions \(classes) and anchors \(anchors) do not fit")
        }
        anchorCount = boxes[1]
        encodingStride = boxes[2]
        classStride = classes[2]
        labelOffset = classStride - options.classCount
        guard options.classCount > 0, labelOffset == 0 || labelOffset == 1 else {
            throw context.fail("num_classes \(options.classCount) for \(classStride) class scores per anchor")
        }
        guard options.maxDetections >= 0, options.iouThreshold > 0, options.iouThreshold <= 1 else {
            throw context.fail("max_detections \(options.maxDetections), nms_iou_threshold \(options.iouThreshold)")
        }
        if options.useRegularNMS {
            guard min(options.detectionsPerClass, options.maxDetections) > 0 else { throw context.fail("detections_per_class \(options.detectionsPerClass)") }
        } else {
            guard options.maxClassesPerDetection > 0 else { throw context.fail("max_classes_per_detection \(options.maxClassesPerDetection)") }
        }
        keptClasses = min(options.maxClassesPerDetection, options.classCount)
        // Both factors are the options' 32-bit integers: the product (an output dimension) is checked, and the plan
        // passes the output shapes through the per-tensor cap.
        detections = try context.arithmetic.multiply(options.maxDetections, max(options.maxClassesPerDetection, 1),
                                                     "max_detections × max_classes_per_detection")
        _ = try context.arithmetic.tensorBytes([1, detections, 4], elementBytes: 4, "detection boxes")

        func dequantization(_ tensor: Int) throws(EngineError) -> Dequantization? {
            switch context.type(tensor) {
            case .float32: return nil
            case .uint8:
                let q = try context.quantization(tensor)
                return (q.scale, q.zeroPoint)
            default: throw context.unsupported("\(context.type(tensor).name) input '\(context.graph.names[tensor])'")
            }
        }
        boxQuantization = try dequantization(boxInput)
        classQuantization = try dequantization(classInput)
        anchorQuantization = try dequantization(anchorInput)
        if let q = classQuantization {
            let offset = Float(Double(-q.zeroPoint) * Double(q.scale))
            blockScores = (0..<256).map { Float($0) * q.scale + offset }
            tailScores = (0..<256).map { Float(Double(q.scale) * Double(Int32($0) - q.zeroPoint)) }
        } else {
            (blockScores, tailScores) = ([], [])
        }
        blockScoresHaveNoNaN = blockScores.allSatisfy { !$0.isNaN }
        // LiteRT reads uint8 anchors only with uint8 box encodings, and float anchors only with float encodings.
        guard (boxQuantization == nil) == (anchorQuantization == nil) else {
            throw context.unsupported("anchors and box encodings of different types")
        }
        // A negative anchor height or width decodes into an inverted box, on which LiteRT fails the invoke: refuse
        // such anchors at load instead (the only way a box can invert: exp(·) is positive). Anchors given as an input
        // are not checked (`run` cannot fail): their inverted boxes come out as they decode, with IoU 0.
        if context.isConstant(anchorInput) {
            for a in 0..<anchorCount {
                let h = Self.anchorValue(context.constants, anchorInput, a * 4 + 2, anchorQuantization)
                let w = Self.anchorValue(context.constants, anchorInput, a * 4 + 3, anchorQuantization)
                guard !(h < 0), !(w < 0) else { throw context.fail("anchor \(a) has height \(h) and width \(w)") }
            }
        }
    }

    private static func anchorValue(_ constants: ConstantStore, _ tensor: Int, _ index: Int, _ q: Dequantization?) -> Float {
        let pointer = constants.entries[tensor]!.pointer
        guard let q else { return pointer.load(fromByteOffset: 4 * index, as: Float.self) }
        return (Float(pointer.load(fromByteOffset: index, as: UInt8.self)) - Float(q.zeroPoint)) * q.scale
    }

    // Scratch: decoded boxes, one score per anchor, candidate order and its merge buffer, suppression flags, the
    // per-anchor classes of the fast path, and the regular path's running list.
    private var boxesBytes: Int { anchorCount * 16 }
    private var scoresBytes: Int { anchorCount * 4 }
    private var orderBytes: Int { anchorCount * 4 }
    private var classesBytes: Int { anchorCount * max(keptClasses, 1) * 4 }
    private var heapBytes: Int { max(options.classCount, 1) * 4 }
    private var listBytes: Int { (options.maxDetections + max(options.detectionsPerClass, 0)) * 16 }
    var scratchBytes: Int {
        boxesBytes + scoresBytes + 2 * orderBytes + anchorCount * 8 + anchorCount + classesBytes + heapBytes + 2 * listBytes + 16 * 10
    }

    private struct Scratch {
        let boxes: UnsafeMutablePointer<Float>
        let scores: UnsafeMutablePointer<Float>
        let order: UnsafeMutablePointer<Int32>
        let mergeBuffer: UnsafeMutablePointer<Int32>
        /// The anchors NMS keeps, in selection order.
        let selected: UnsafeMutablePointer<Int>
        let active: UnsafeMutablePointer<Bool>
        let classes: UnsafeMutablePointer<Int32>
        let heap: UnsafeMutablePointer<Int32>
        /// (score, flat index) pairs: the running list and the merge target.
        let list: UnsafeMutablePointer<(Float, Int)>
        let merged: UnsafeMutablePointer<(Float, Int)>
    }

    private func scratch(_ memory: TensorMemory) -> Scratch {
        var cursor = memory.scratch
        return Scratch(boxes: Self.take(boxesBytes, Float.self, &cursor), scores: Self.take(scoresBytes, Float.self, &cursor),
                       order: Self.take(orderBytes, Int32.self, &cursor), mergeBuffer: Self.take(orderBytes, Int32.self, &cursor),
                       selected: Self.take(anchorCount * 8, Int.self, &cursor), active: Self.take(anchorCount, Bool.self, &cursor),
                       classes: Self.take(classesBytes, Int32.self, &cursor), heap: Self.take(heapBytes, Int32.self, &cursor),
                       list: Self.take(listBytes, (Float, Int).self, &cursor), merged: Self.take(listBytes, (Float, Int).self, &cursor))
    }

    /// The next 16-byte-aligned `bytes` of scratch at `cursor`, which moves past them. A static function with the
    /// cursor passed in, not a local function capturing it: Swift 6.0's optimizer kept that capture (of a mutable
    /// variable, by a generic local function) in a heap box, one allocation per invoke (6.3.1 promotes it to the stack).
    @inline(__always)
    private static func take<T>(_ bytes: Int, _ type: T.Type, _ cursor: inout UnsafeMutableRawPointer) -> UnsafeMutablePointer<T> {
        let aligned = (Int(bitPattern: cursor) + 15) & ~15
        let pointer = UnsafeMutableRawPointer(bitPattern: aligned)!
        cursor = pointer + bytes
        return pointer.bindMemory(to: T.self, capacity: max(bytes / MemoryLayout<T>.stride, 1))
    }

    func run(_ memory: TensorMemory) {
        let s = scratch(memory)
        decodeBoxes(memory, into: s.boxes)
        let boxesOut = memory.floats(outputs[0]), classesOut = memory.floats(outputs[1]), scoresOut = memory.floats(outputs[2])
        boxesOut.update(repeating: 0, count: detections * 4)
        classesOut.update(repeating: 0, count: detections)
        scoresOut.update(repeating: 0, count: detections)
        let count = options.useRegularNMS
            ? regular(memory, s, boxesOut, classesOut, scoresOut)
            : fast(memory, s, boxesOut, classesOut, scoresOut)
        memory.floats(outputs[3])[0] = Float(count)
    }

    /// Score of (anchor, column) as LiteRT's x86 build dequantizes the class predictions: the flattened tensor in
    /// vectors of 8 as float(q) × scale + float(−zero point × scale) (two roundings, no FMA), the last count % 8
    /// elements as float(double(scale) × (q − zero point)). The two agree when the zero point is 0.
    /// Both forms for each of the 256 stored values are tabulated at load (``blockScores``, ``tailScores``).
    @inline(__always) private func score(_ memory: TensorMemory, _ anchor: Int, _ column: Int) -> Float {
        let index = anchor * classStride + column
        guard classQuantization != nil else { return memory.floats(classInput)[index] }
        let stored = Int(memory.raw(classInput).load(fromByteOffset: index, as: UInt8.self))
        return index < vectorizedScores ? blockScores[stored] : tailScores[stored]
    }

    /// Class predictions dequantized in whole vectors of 8.
    private var vectorizedScores: Int { anchorCount * classStride / 8 * 8 }

    private func decodeBoxes(_ memory: TensorMemory, into boxes: UnsafeMutablePointer<Float>) {
        func value(_ tensor: Int, _ index: Int, _ q: Dequantization?) -> Float {
            guard let q else { return memory.floats(tensor)[index] }
            // (float(x) − float(zero point)) × scale, in float.
            return (Float(memory.raw(tensor).load(fromByteOffset: index, as: UInt8.self)) - Float(q.zeroPoint)) * q.scale
        }
        let ys = Double(options.yScale), xs = Double(options.xScale), hs = Double(options.hScale), ws = Double(options.wScale)
        for a in 0..<anchorCount {
            let ty = Double(value(boxInput, a * encodingStride, boxQuantization)), tx = Double(value(boxInput, a * encodingStride + 1, boxQuantization))
            let th = Double(value(boxInput, a * encodingStride + 2, boxQuantization)), tw = Double(value(boxInput, a * encodingStride + 3, boxQuantization))
            let ay = Double(value(anchorInput, a * 4, anchorQuantization)), ax = Double(value(anchorInput, a * 4 + 1, anchorQuantization))
            let ah = Double(value(anchorInput, a * 4 + 2, anchorQuantization)), aw = Double(value(anchorInput, a * 4 + 3, anchorQuantization))
            let yCenter = Float(ty / ys * ah + ay), xCenter = Float(tx / xs * aw + ax)
            let halfHeight = Float(0.5 * Foundation.exp(th / hs) * ah), halfWidth = Float(0.5 * Foundation.exp(tw / ws) * aw)
            let box = boxes + 4 * a
            box[0] = yCenter - halfHeight
            box[1] = xCenter - halfWidth
            box[2] = yCenter + halfHeight
            box[3] = xCenter + halfWidth
        }
    }

    private func fast(_ memory: TensorMemory, _ s: Scratch, _ boxesOut: UnsafeMutablePointer<Float>,
                      _ classesOut: UnsafeMutablePointer<Float>, _ scoresOut: UnsafeMutablePointer<Float>) -> Int {
        for a in 0..<anchorCount {
            let top = s.classes + a * keptClasses
            if keptClasses == 1 {
                top[0] = Int32(firstMaximum(memory, a))
            } else {
                partialSort(memory, a, into: top, s.heap)
            }
            s.scores[a] = score(memory, a, Int(top[0]) + labelOffset)
        }
        let selected = suppress(s, limit: options.maxDetections)
        for (slot, anchor) in selected.enumerated() {
            for k in 0..<keptClasses {
                let offset = options.maxClassesPerDetection * slot + k
                let column = Int(s.classes[anchor * keptClasses + k])
                for i in 0..<4 { boxesOut[offset * 4 + i] = s.boxes[anchor * 4 + i] }
                classesOut[offset] = Float(column)
                scoresOut[offset] = score(memory, anchor, column + labelOffset)
            }
        }
        return selected.count
    }

    private func regular(_ memory: TensorMemory, _ s: Scratch, _ boxesOut: UnsafeMutablePointer<Float>,
                         _ classesOut: UnsafeMutablePointer<Float>, _ scoresOut: UnsafeMutablePointer<Float>) -> Int {
        let perClass = min(options.detectionsPerClass, options.maxDetections)
        var listCount = 0
        var list = s.list, merged = s.merged
        for c in 0..<options.classCount {
            let column = c + labelOffset
            for a in 0..<anchorCount { s.scores[a] = score(memory, a, column) }
            let selected = suppress(s, limit: perClass)
            guard !selected.isEmpty else { continue }
            // Merge (stable: the running list wins ties) the class's selections, in selection order, into the list.
            var i = 0, j = 0, out = 0
            while (i < listCount || j < selected.count) && out < options.maxDetections {
                let candidate = j < selected.count ? (s.scores[selected[j]], selected[j] * classStride + column) : nil
                if i < listCount, candidate == nil || !(candidate!.0 > list[i].0) {
                    merged[out] = list[i]; i += 1
                } else {
                    merged[out] = candidate!; j += 1
                }
                out += 1
            }
            listCount = out
            swap(&list, &merged)
        }
        for k in 0..<listCount {
            let (value, index) = list[k]
            let anchor = index / classStride
            for i in 0..<4 { boxesOut[k * 4 + i] = s.boxes[anchor * 4 + i] }
            classesOut[k] = Float(index - anchor * classStride - labelOffset)
            scoresOut[k] = value
        }
        return listCount
    }

    /// The first index of the largest class score of `anchor` (NaNs skipped; all NaN → 0): TFLite's ArgMaxVector.
    private func firstMaximum(_ memory: TensorMemory, _ anchor: Int) -> Int {
        let start = anchor * classStride + labelOffset, count = max(options.classCount, 1)
        if classQuantization != nil, blockScoresHaveNoNaN, start + count <= vectorizedScores {
            // The common uint8 case, row by row: the row's bytes through the vector-block table, no per-score checks.
            // Stored values map to scores monotonically but not always one to one, so the floats are compared.
            return blockScores.withUnsafeBufferPointer { table in
                let row = memory.raw(classInput).assumingMemoryBound(to: UInt8.self) + start
                var best = 0, largest = table[Int(row[0])]
                for c in 1..<count where table[Int(row[c])] > largest { (largest, best) = (table[Int(row[c])], c) }
                return best
            }
        }
        var best = 0, largest = score(memory, anchor, labelOffset)
        for c in 1..<max(options.classCount, 1) {
            let v = score(memory, anchor, c + labelOffset)
            if !v.isNaN, largest.isNaN || v > largest { (largest, best) = (v, c) }
        }
        return largest.isNaN ? 0 : best
    }

    /// The `keptClasses` best classes of `anchor`, best first, in the order libstdc++'s `std::partial_sort` (heap
    /// select, then sort heap — not stable) leaves equal scores, as the kernel calls it.
    private func partialSort(_ memory: TensorMemory, _ anchor: Int, into top: UnsafeMutablePointer<Int32>, _ a: UnsafeMutablePointer<Int32>) {
        let n = options.classCount, k = keptClasses
        for i in 0..<n { a[i] = Int32(i) }
        func value(_ i: Int32) -> Float { score(memory, anchor, Int(i) + labelOffset) }
        // The heap's "less": greater scores sink, so the root holds the smallest of the k kept.
        func comp(_ i: Int32, _ j: Int32) -> Bool { value(i) > value(j) }
        func pushHeap(_ hole: Int, _ top: Int, _ v: Int32) {
            var hole = hole, parent = (hole - 1) / 2
            while hole > top && comp(a[parent], v) {
                a[hole] = a[parent]
                hole = parent
                parent = (hole - 1) / 2
            }
            a[hole] = v
        }
        func adjustHeap(_ start: Int, _ length: Int, _ v: Int32) {
            var hole = start, second = start
            while second < (length - 1) / 2 {
                second = 2 * (second + 1)
                if comp(a[second], a[second - 1]) { second -= 1 }
                a[hole] = a[second]
                hole = second
            }
            if length & 1 == 0 && second == (length - 2) / 2 {
                second = 2 * (second + 1)
                a[hole] = a[second - 1]
                hole = second - 1
            }
            pushHeap(hole, start, v)
        }
        func popHeap(_ last: Int, _ result: Int) {
            let v = a[result]
            a[result] = a[0]
            adjustHeap(0, last, v)
        }
        if k >= 2 {
            var parent = (k - 2) / 2
            while true {
                adjustHeap(parent, k, a[parent])
                if parent == 0 { break }
                parent -= 1
            }
        }
        for i in k..<n where comp(a[i], a[0]) { popHeap(k, i) }
        var last = k
        while last > 1 {
            last -= 1
            popHeap(last, last)
        }
        for i in 0..<k { top[i] = a[i] }
    }

    /// Greedy NMS over `s.scores`: anchors at or above the score threshold, stably sorted by decreasing score; each
    /// kept one removes the later ones whose IoU with it exceeds the IoU threshold. Returns up to `limit` anchors in
    /// selection order (in `s.selected`, which the caller reads before the next call).
    private func suppress(_ s: Scratch, limit: Int) -> UnsafeBufferPointer<Int> {
        var n = 0
        for a in 0..<anchorCount where s.scores[a] >= options.scoreThreshold {
            s.order[n] = Int32(a)
            n += 1
        }
        stableSortDecreasing(s.order, n, s.mergeBuffer, s.scores)
        let outputSize = min(n, limit)
        for i in 0..<n { s.active[i] = true }
        var activeCount = n, selectedCount = 0
        let selected = s.selected
        for i in 0..<n {
            if activeCount == 0 || selectedCount >= outputSize { break }
            guard s.active[i] else { continue }
            let anchor = Int(s.order[i])
            selected[selectedCount] = anchor
            selectedCount += 1
            s.active[i] = false
            activeCount -= 1
            for j in (i + 1)..<max(n, i + 1) where s.active[j] {
                if intersectionOverUnion(s.boxes + 4 * anchor, s.boxes + 4 * Int(s.order[j])) > options.iouThreshold {
                    s.active[j] = false
                    activeCount -= 1
                }
            }
        }
        return UnsafeBufferPointer(start: selected, count: selectedCount)
    }

    /// Bottom-up merge sort of `count` anchor indices by decreasing score; equal scores keep their order.
    private func stableSortDecreasing(_ order: UnsafeMutablePointer<Int32>, _ count: Int, _ buffer: UnsafeMutablePointer<Int32>,
                                      _ scores: UnsafeMutablePointer<Float>) {
        var source = order, target = buffer
        var width = 1
        while width < count {
            var start = 0
            while start < count {
                let middle = min(start + width, count), end = min(start + 2 * width, count)
                var i = start, j = middle, out = start
                while i < middle && j < end {
                    if scores[Int(source[j])] > scores[Int(source[i])] { target[out] = source[j]; j += 1 } else { target[out] = source[i]; i += 1 }
                    out += 1
                }
                while i < middle { target[out] = source[i]; i += 1; out += 1 }
                while j < end { target[out] = source[j]; j += 1; out += 1 }
                start = end
            }
            swap(&source, &target)
            width *= 2
        }
        if source != order { order.update(from: source, count: count) }
    }

    /// TFLite's ComputeIntersectionOverUnion in float; 0 when either box has no area.
    @inline(__always) private func intersectionOverUnion(_ i: UnsafePointer<Float>, _ j: UnsafePointer<Float>) -> Float {
        let areaI = (i[2] - i[0]) * (i[3] - i[1]), areaJ = (j[2] - j[0]) * (j[3] - j[1])
        guard areaI > 0, areaJ > 0 else { return 0 }
        // std::max(a, b) is (a < b) ? b : a; std::min(a, b) is (b < a) ? b : a.
        let yMin = i[0] < j[0] ? j[0] : i[0], xMin = i[1] < j[1] ? j[1] : i[1]
        let yMax = j[2] < i[2] ? j[2] : i[2], xMax = j[3] < i[3] ? j[3] : i[3]
        let height = (yMax - yMin) < 0 ? 0 : yMax - yMin, width = (xMax - xMin) < 0 ? 0 : xMax - xMin
        let intersection = height * width
        return intersection / (areaI + areaJ - intersection)
    }
}
