import VisionTasksEngine
import VisionTasksModelFormat

/// A model file all the way to an invoke: parse, plan (folding, fusion, shapes, every kernel's prepare, the arena),
/// then — when the plan is small enough to run thousands of times a second — an invoke on zero inputs and a read of
/// every output, so a kernel that reads or writes past a tensor shows under ASan.
enum ModelPlanHarness {
    /// Arena above which we stop at the plan: a real model's invoke takes milliseconds, and the fuzzer's value is in
    /// the count of shapes tried, not in running MobileNet.
    static let invokeArenaLimit = 1 << 20

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let model = try? TFLiteModel(bytes: storage(bytes)),
              let plan = try? ExecutionPlan(model: model) else { return }
        guard plan.arenaBytes <= invokeArenaLimit, let interpreter = try? Interpreter(plan: plan, threads: 1) else { return }
        interpreter.invoke()
        for index in interpreter.outputs.indices { _ = try? interpreter.outputBytes(index) }
    }
}
