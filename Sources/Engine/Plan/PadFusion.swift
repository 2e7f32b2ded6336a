import VisionTasksModelFormat

/// Zero PADs of height and width whose readers are all convolutions or depthwise convolutions: each reads the
/// unpadded tensor and treats the padding as zeros, as its own SAME padding already does. Saves a copy of the whole
/// activation per PAD (XNNPACK does the same). On uint8/int8 tensors "zero" is the zero point, which is what the
/// quantized convolutions' out-of-input taps stand for — so a quantized PAD fuses when it keeps its input's scale
/// and zero point (TFLite requires it to).
///
/// Runs first, on the file's operators, with only the file's constants known (a PAD of a folded constant stays).
enum PadFusion {
    static func run(_ plan: inout PlanGraph) {
        let readers = plan.readers()
        var consumers: [Int: (source: Int, padding: (top: Int, left: Int, bottom: Int, right: Int))] = [:]
        var pads: Set<Int> = []
        for (position, node) in plan.nodes.enumerated() {
            guard let op = node.single, op.name == "PAD", op.inputs.count == 2, let source = op.input(0),
                  let paddingTensor = op.input(1), let padded = op.output, !plan.constants.contains(source),
                  !plan.outputs.contains(padded), padsWithZero(source, padded, plan.tensors), plan.tensors.shapes[source].count == 4,
                  let paddings = plan.constants.integers(paddingTensor), paddings.count == 8,
                  paddings[0] == 0, paddings[1] == 0, paddings[6] == 0, paddings[7] == 0, paddings.allSatisfy({ $0 >= 0 }),
                  // The fused PAD never runs its own checks: its declared output must be exactly the padded input
                  // (which also bounds the paddings by the size cap the plan applied to that shape).
                  isPadded(plan.tensors.shapes[padded], from: plan.tensors.shapes[source], by: paddings),
                  let reader = readers[padded], !reader.isEmpty, reader.allSatisfy({ $0 > position }) else { continue }
            // Every reader must take it (BlazePose's detector pads once for two depthwise convolutions).
            guard reader.allSatisfy({ other in
                let consumer = plan.nodes[other].operators[0]
                return ["CONV_2D", "DEPTHWISE_CONV_2D"].contains(consumer.name) && consumers[other] == nil
                    && consumer.inputs.first == padded && !consumer.inputs.dropFirst().contains(padded)
            }) else { continue }
            pads.insert(position)
            for other in reader { consumers[other] = (source, (paddings[2], paddings[4], paddings[3], paddings[5])) }
        }
        for (position, fusion) in consumers {
            plan.nodes[position].operators[0].inputs[0] = fusion.source
            plan.nodes[position].operators[0].inputPadding = fusion.padding
            plan.nodes[position].inputs = plan.nodes[position].operators[0].present
        }
        plan.fused.formUnion(pads.map { plan.nodes[$0].operatorIndex })
        plan.nodes = plan.nodes.indices.filter { !pads.contains($0) }.map { plan.nodes[$0] }
    }

    static func isPadded(_ padded: [Int], from source: [Int], by paddings: [Int]) -> Bool {
        guard padded.count == source.count, paddings.count == 2 * source.count else { return false }
        return source.indices.allSatisfy { d in
            let (sum, overflow) = source[d].addingReportingOverflow(paddings[2 * d])
            let (total, overflow2) = sum.addingReportingOverflow(paddings[2 * d + 1])
            return !overflow && !overflow2 && total == padded[d]
        }
    }

    private static func padsWithZero(_ source: Int, _ padded: Int, _ graph: GraphDescription) -> Bool {
        switch graph.types[source] {
        case .float32: return graph.types[padded] == .float32
        case .uint8, .int8:
            guard graph.types[padded] == graph.types[source], let q = graph.quantization[source], let p = graph.quantization[padded] else { return false }
            return q.scale.count == 1 && q.zeroPoint.count == 1 && q.scale == p.scale && q.zeroPoint == p.zeroPoint
        default: return false
        }
    }
}
