import CVisionTasksOnoneKernels
/// Element-wise operators that the plan folded into the convolution producing their input: a residual ADD, a
/// clamp (the ADD's fused activation or a RELU operator after it), then a per-channel PReLU; applied to each block
/// of output rows right after the convolution wrote it, while the block is still in L1.
///
/// The face models follow almost every convolution with a PReLU and every block with ADD + PReLU; as separate
/// operators each one read and wrote the whole activation again (face landmarks: 69 PReLUs and 34 ADDs, 1.4 ms of
/// 6 ms at one thread). XNNPACK fuses the same patterns.
struct Epilogue: Sendable {
    /// A tensor of the output's shape added element-wise (the residual input of the ADD), if any.
    var addend: Int?
    /// When the ADD's residual is a PAD that only appends zero channels (BlazeFace widens its blocks 24 → 28 → 32 …
    /// that way), the addend is the PAD's input, with this many channels per pixel, and the PAD never runs; nil when
    /// the addend has the output's shape. Only ``Conv2DKernel`` takes such an epilogue.
    var addendChannels: Int?
    /// Applied after the ADD (or to the convolution's output when there is none): the ADD's fused activation or a
    /// RELU operator's; never tanh.
    var clamp: Activation = .none
    /// PReLU's slope for negative values, one per output channel (zero-padded to whole GEMM panels), if any.
    var alpha: [Float]?
    /// A function of each value after all of the above (``EpilogueFunction``), or nil.
    /// Only ``Conv2DKernel`` takes it (``EpilogueFusion``).
    var function: EpilogueFunction?

    /// Applies the epilogue to `rows` rows of `output`, `rowStride` floats apart, over channels `channels`;
    /// `addend` points at the addend's element matching `output`'s first (nil when there is no ADD), its rows
    /// `addendChannels` apart when that is set, else `rowStride`.
    /// `ononeLoop`: through the same steps in C (CVisionTasksOnoneKernels), for kernels of a build without
    /// optimization (``KernelConfig/compiledWithoutOptimization``), where this loop's generic SIMD crawls; there
    /// `bias` and `biasActivation`, when given, are added and applied first, in the same pass (OpenBLAS's products).
    func apply(output: UnsafeMutablePointer<Float>, addend: UnsafePointer<Float>?, rows: Int, rowStride: Int, channels: Range<Int>,
               ononeLoop: Bool = false, bias: UnsafePointer<Float>? = nil, biasActivation: Activation = .none) {
        let clamp = ActivationClamp(self.clamp), clamps = self.clamp != .none
        let zero = SIMD8<Float>()
        let addendStride = addendChannels ?? rowStride, addendEnd = addendChannels ?? channels.upperBound
        (alpha ?? []).withUnsafeBufferPointer { alpha in
            let slopes = alpha.isEmpty ? nil : alpha.baseAddress
            if ononeLoop {
                let biasClamp = ActivationClamp(biasActivation)
                vt_onone_epilogue(output, Int32(rows), rowStride, Int32(channels.lowerBound), Int32(channels.upperBound),
                                  bias, biasClamp.lower[0], biasClamp.upper[0], addend, addendStride, Int32(addendEnd),
                                  clamps ? 1 : 0, clamp.lower[0], clamp.upper[0], slopes)
                function?.apply(output, rows: rows, rowStride: rowStride, channels: channels)
                return
            }
            for r in 0..<rows {
                let start = r &* rowStride, addendStart = r &* addendStride
                let out = output + start
                var c = channels.lowerBound
                while c &+ 8 <= channels.upperBound {
                    var v = UnsafeRawPointer(out + c).loadUnaligned(as: SIMD8<Float>.self)
                    if let addend, c &+ 8 <= addendEnd {
                        v += UnsafeRawPointer(addend + (addendStart &+ c)).loadUnaligned(as: SIMD8<Float>.self)
                    } else if let addend {
                        for lane in 0..<8 where c &+ lane < addendEnd { v[lane] += addend[addendStart &+ c &+ lane] }
                    }
                    if clamps { v = clamp(v) }
                    if let slopes {
                        let slope = UnsafeRawPointer(slopes + c).loadUnaligned(as: SIMD8<Float>.self)
                        v = v.replacing(with: v * slope, where: v .< zero)
                    }
                    UnsafeMutableRawPointer(out + c).storeBytes(of: v, as: SIMD8<Float>.self)
                    c &+= 8
                }
                while c < channels.upperBound {
                    var v = out[c]
                    if let addend, c < addendEnd { v += addend[addendStart &+ c] }
                    v = self.clamp(v)
                    if let slopes, v < 0 { v *= slopes[c] }
                    out[c] = v
                    c &+= 1
                }
            }
            function?.apply(output, rows: rows, rowStride: rowStride, channels: channels)
        }
    }
}

/// The last step of an ``Epilogue``: the operators after a convolution that compute a function of each value alone,
/// as their own kernels compute it (the same bits), in a pass over each block of rows while it is in cache.
enum EpilogueFunction: Sendable, Equatable {
    /// A TANH operator, by ``HyperbolicTangent``: ESPCN follows its convolutions with TANH, whose own pass read and
    /// wrote 224² × 64 floats from memory again.
    case tanh
    /// A LOGISTIC of the value and a MUL of the value by it (SiLU: YOLOv5 and v8 follow every convolution with the
    /// pair), by ``Logistic/swish(_:)``: YOLOv8n-like's 57 pairs took 4.2 of its 33 ms at one thread, each operator a
    /// pass over memory.
    case swish

    /// In place over `channels` of `rows` rows `rowStride` floats apart.
    func apply(_ values: UnsafeMutablePointer<Float>, rows: Int, rowStride: Int, channels: Range<Int>) {
        for r in 0..<rows {
            let row = values + r &* rowStride
            // One loop per function, nothing else in its body, so that each vectorizes.
            switch self {
            case .tanh: for c in channels { row[c] = HyperbolicTangent.value(row[c]) }
            case .swish: for c in channels { row[c] = Logistic.swish(row[c]) }
            }
        }
    }
}

/// A kernel whose output can take an ``Epilogue``.
protocol EpilogueFusable: Kernel {
    /// False where the kernel's own activation comes after the point where it would apply an epilogue.
    var acceptsEpilogue: Bool { get }

    /// The same kernel writing `output` through `epilogue` (the plan fuses once per kernel).
    func fusing(_ epilogue: Epilogue, output: Int) -> any Kernel
}

extension Epilogue {
    /// The addend's element `offset` for a run over `memory`, or nil without an ADD.
    func addend(in memory: TensorMemory, offset: Int) -> UnsafePointer<Float>? {
        addend.map { UnsafePointer(memory.floats($0) + offset) }
    }
}
