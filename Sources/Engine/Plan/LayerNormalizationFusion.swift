import VisionTasksModelFormat

/// The converter's ten-operator layer normalization (see ``LayerNormalizationKernel``) becomes one node in the
/// first MEAN's place: every intermediate tensor must be read only inside the pattern and be no graph output,
/// ε a constant scalar, γ a constant per channel, the means over the last axis alone, and no operator may have a
/// fused activation.
enum LayerNormalizationFusion {
    static func run(_ plan: inout PlanGraph) {
        let nodes = plan.nodes, graph = plan.tensors, constants = plan.constants
        let readers = plan.readers(distinct: true)
        /// The nodes reading `tensor`, when it is an intermediate one (not a graph output).
        func consumers(_ tensor: Int) -> [Int] { plan.outputs.contains(tensor) ? [] : readers[tensor] ?? [] }
        /// The unfused float operator `builtin` at `position`, with one output and no fused activation.
        func op(_ position: Int, _ builtin: BuiltinOperator) -> PlanOperator? {
            guard let op = nodes[position].single, op.runsFloat(builtin, in: graph), op.output != nil,
                  ElementwiseBinaryKernel.fusedActivation(op.options) == .none else { return nil }
            return op
        }
        /// The other operand of a binary operator that reads `tensor`.
        func other(_ op: PlanOperator, _ tensor: Int) -> Int? {
            guard let a = op.input(0), let b = op.input(1) else { return nil }
            return a == tensor ? b : b == tensor ? a : nil
        }
        /// A MEAN over exactly the last axis's `channels` contiguous values of each row: (input, output, channels).
        func lastAxisMean(_ position: Int) -> (input: Int, output: Int, channels: Int)? {
            guard let mean = op(position, .mean), let x = mean.input(0), let axesTensor = mean.input(1),
                  let axes = constants.integers(axesTensor), let channels = graph.shapes[x].last, channels > 0,
                  contiguousReduced(graph.shapes[x], axes: axes) == channels else { return nil }
            return (x, mean.outputs[0], channels)
        }
        /// ε, γ, x, y and the positions of the nine operators after the first MEAN.
        func match(_ position: Int) -> (epsilon: Float, scale: [Float], input: Int, output: Int, positions: [Int])? {
            guard let (x, m, channels) = lastAxisMean(position), !constants.contains(x) else { return nil }
            // m → NEG (n) and SQUARED_DIFFERENCE(x, m) (d)
            let mReaders = consumers(m)
            guard mReaders.count == 2,
                  let negPosition = mReaders.first(where: { op($0, .neg) != nil }), let n = op(negPosition, .neg)?.outputs[0],
                  let differencePosition = mReaders.first(where: { $0 != negPosition }),
                  let difference = op(differencePosition, .squaredDifference), other(difference, m) == x,
                  // d → MEAN (v) → ADD ε (ve) → RSQRT (r) → MUL γ (g)
                  case let dReaders = consumers(difference.outputs[0]), dReaders.count == 1,
                  let (varianceInput, v, varianceChannels) = lastAxisMean(dReaders[0]),
                  graph.shapes[varianceInput] == graph.shapes[x], varianceChannels == channels,
                  case let vReaders = consumers(v), vReaders.count == 1, let add = op(vReaders[0], .add),
                  let epsilonTensor = other(add, v), let epsilon = constants.floats(epsilonTensor), epsilon.count == 1,
                  case let eReaders = consumers(add.outputs[0]), eReaders.count == 1, let rsqrt = op(eReaders[0], .rsqrt),
                  case let r = rsqrt.outputs[0], case let rReaders = consumers(r), rReaders.count == 1,
                  let scaling = op(rReaders[0], .mul),
                  let gammaTensor = other(scaling, r), let gamma = constants.floats(gammaTensor), gamma.count == channels,
                  // g → MUL(x, g) (a) and MUL(n, g) (b) → ADD(a, b) (y)
                  case let g = scaling.outputs[0], case let gReaders = consumers(g), gReaders.count == 2,
                  let scaledPosition = gReaders.first(where: { op($0, .mul).flatMap { other($0, g) } == x }),
                  let shiftPosition = gReaders.first(where: { $0 != scaledPosition }),
                  let scaled = op(scaledPosition, .mul), let shift = op(shiftPosition, .mul),
                  other(shift, g) == n, consumers(n) == [shiftPosition],
                  case let aReaders = consumers(scaled.outputs[0]), aReaders.count == 1, consumers(shift.outputs[0]) == aReaders,
                  let sum = op(aReaders[0], .add), let a = sum.input(0), let b = sum.input(1),
                  Set([a, b]) == Set([scaled.outputs[0], shift.outputs[0]]),
                  graph.shapes[sum.outputs[0]] == graph.shapes[x] else { return nil }
            return (epsilon[0], gamma, x, sum.outputs[0], [negPosition, differencePosition, dReaders[0], vReaders[0], eReaders[0], rReaders[0],
                                                     scaledPosition, shiftPosition, aReaders[0]])
        }
        var result: [PlanNode] = [], removed: Set<Int> = []
        for (position, node) in nodes.enumerated() where !removed.contains(position) {
            guard let (epsilon, scale, input, output, positions) = match(position),
                  positions.allSatisfy({ $0 > position && !removed.contains($0) }) else {
                result.append(node)
                continue
            }
            result.append(PlanNode(fusing: ([position] + positions).map { nodes[$0].operators[0] },
                                   as: .layerNormalization(epsilon: epsilon, scale: scale), inputs: [input], outputs: [output]))
            removed.formUnion(positions)
        }
        plan.nodes = result
    }

    /// With `axes` reduced (as ``ReduceKernel`` reads them), the length of the run of trailing values each output
    /// reduces, when every reduced dimension larger than 1 comes after every kept one; nil otherwise or for an axis
    /// out of range (the kernel refuses that).
    private static func contiguousReduced(_ shape: [Int], axes: [Int]) -> Int? {
        var reduced = Set<Int>()
        for axis in axes {
            let normalized = axis < 0 ? axis + shape.count : axis
            guard normalized >= 0, normalized < max(shape.count, 1) else { return nil }
            reduced.insert(normalized)
        }
        var run = 1, keptSeen = false
        for d in shape.indices.reversed() where shape[d] != 1 {
            if !reduced.contains(d) {
                keptSeen = true
            } else if keptSeen {
                return nil
            } else {
                run *= shape[d]
            }
        }
        return run
    }
}
