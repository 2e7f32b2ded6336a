import CVisionTasksBLAS
import VisionTasksModelFormat

/// A model prepared to run: constants loaded and folded, a kernel per remaining operator, the arena planned.
///
/// Immutable once built and `Sendable`: several ``Interpreter``s (one per thread) can share one plan and its
/// weights, each with its own arena.
public final class ExecutionPlan: Sendable {
    struct Step: Sendable {
        let operatorIndex: Int
        let name: String
        let kernel: any Kernel
        let inputs: [Int]
        let outputs: [Int]
    }

    let graph: GraphDescription
    let constants: ConstantStore
    let steps: [Step]
    /// Arena offset of every tensor that lives in the arena.
    let offsets: [Int: Int]
    let inputTensors: [Int]
    let outputTensors: [Int]
    /// Bytes of the planned arena, and what giving every activation its own buffer would take.
    public let arenaBytes: Int
    public let naiveBytes: Int
    let scratchBytes: Int
    /// Operators computed once at load because all their inputs are constant.
    public let foldedOperatorCount: Int
    /// Operators run at every invoke.
    public var runtimeOperatorCount: Int { steps.count }

    /// Largest tensor we plan: a guard against shapes that multiply into absurd sizes.
    static let maximumTensorBytes = ShapeArithmetic.maximumTensorBytes

    /// Default of the memory a plan may ask for (arena, scratch and the outputs of operators folded at load), 4 GiB:
    /// twice the per-tensor cap, so that one operator reading and writing tensors at that cap still plans, while a
    /// tiny file that declares gigabytes of inputs is refused before anything is allocated. The largest arena of the
    /// shipped models is 8.6 MB (pose landmarks, full), so real models are far below it; a caller with larger models
    /// (or less memory) passes its own budget.
    public static let defaultMemoryBudget = 4 << 30

    /// Prepares `model`; refuses with ``EngineError/resourceLimit(what:bytes:limit:)`` a plan whose arena, scratch and
    /// folded constants together would take more than `memoryBudget` bytes. `kernels` chooses the micro-kernels: the
    /// build's tier by default; another configuration runs (more slowly) where the CPU has the build's instructions,
    /// which lets tests check one tier's algorithms on a machine of another.
    ///
    /// The passes, in order (each in `Plan/`, each with its own tests): lowering to a `PlanGraph` of operators with
    /// every index, shape and constant checked; `PadFusion`; `ConstantFolding`; the operator-level fusions
    /// `EpilogueFusion`, `TokenMixingFusion` and `LayerNormalizationFusion`; `KernelBuilding`, one kernel per
    /// remaining operator; `Liveness`; `MemoryPlanner`.
    public init(model: TFLiteModel, memoryBudget: Int = ExecutionPlan.defaultMemoryBudget,
                kernels: KernelConfig = .compiled) throws(EngineError) {
        var budget = MemoryBudget(limit: memoryBudget)
        var plan = try PlanGraph(model: model)
        // The order matters: PAD fusion sees only the file's constants (a PAD of a folded tensor stays); folding
        // comes before the epilogue, whose PReLU slopes come out of DEQUANTIZE operators; token mixing takes only
        // convolutions that kept no epilogue.
        PadFusion.run(&plan)
        try ConstantFolding.run(&plan, budget: &budget)
        EpilogueFusion.run(&plan)
        TokenMixingFusion.run(&plan)
        LayerNormalizationFusion.run(&plan)
        let built = try KernelBuilding.run(&plan, kernels: kernels)
        let requests = try Liveness.requests(
            built.steps.map { Liveness.Access(operatorIndex: $0.operatorIndex, inputs: $0.inputs, outputs: $0.outputs) },
            graphInputs: plan.inputs, graphOutputs: plan.outputs, graph: plan.tensors, isConstant: plan.constants.contains)
        let (offsets, arenaBytes) = MemoryPlanner.plan(requests)
        // Checked before any interpreter allocates (and zero-fills) the arena: a 564-byte model may declare inputs
        // of many gigabytes.
        try budget.charge(built.scratchBytes, "the scratch area")
        try budget.charge(arenaBytes, "the arena of \(requests.count) activations")

        self.graph = plan.tensors
        self.constants = plan.constants
        self.steps = built.steps
        self.offsets = offsets
        self.inputTensors = plan.inputs
        self.outputTensors = plan.outputs
        self.arenaBytes = arenaBytes
        self.naiveBytes = requests.reduce(0) { $0 + MemoryPlanner.align($1.bytes) }
        self.scratchBytes = built.scratchBytes
        self.foldedOperatorCount = plan.foldedCount
        self.fusedOperators = built.fused
    }

    /// Operators that do not run on their own: zero PADs read through by the convolution after them, and the
    /// operators a fusion pass merged into the first of theirs.
    let fusedOperators: Set<Int>

    /// The static shape of tensor `index` of the main subgraph.
    public func shape(of index: Int) -> [Int] { index >= 0 && index < graph.shapes.count ? graph.shapes[index] : [] }

    /// Our kernels split work over threads themselves; OpenBLAS threading on top would oversubscribe the cores.
    static func keepBLASSingleThreaded() {
        _ = blasConfigured
    }

    private static let blasConfigured: Bool = {
        openblas_set_num_threads(1)
        return true
    }()
}
