/// The weight layout our GEMM micro-kernels stream, packed once at load: XNNPACK's "goi" packing. Output columns
/// are grouped in panels of 16 (two 8-lane vectors); inside a panel, for each step of the depth, the 16 columns'
/// weights lie side by side, so one tile step loads its weights with two contiguous vector loads.
///
/// `group` consecutive depth values of a column lie together: 1 for the float tiles (one weight per lane and FMA),
/// 2 for the integer tiles, whose `vpmaddwd` multiplies and adds pairs of int16 (depth k and k + 1 of one column in
/// neighbouring int16 lanes). The depth is padded to a multiple of `group` and the columns to whole panels with `zero`.
enum WeightPanels {
    static let width = 16

    static func paddedDepth(_ depth: Int, group: Int) -> Int { (depth + group - 1) / group * group }

    /// - Parameter weight: the weight of (column, depth) in the model's row-major [columns × depth] order.
    static func pack<T>(columns: Int, depth: Int, group: Int, zero: T, _ weight: (Int, Int) -> T) -> [T] {
        let panelCount = (columns + width - 1) / width
        let padded = paddedDepth(depth, group: group)
        var panels = [T](repeating: zero, count: panelCount * padded * width)
        for column in 0..<columns {
            let panel = column / width, lane = column % width
            for k in 0..<depth {
                panels[((panel * padded + k / group * group) * width) + lane * group + k % group] = weight(column, k)
            }
        }
        return panels
    }
}
