/// libstdc++'s `std::sort` (introsort) and `std::partial_sort` (heap select + heap sort), step for step.
///
/// MediaPipe's classification post-processing sorts categories with these, and neither is stable: uint8 models'
/// scores tie constantly (many 0 and 1/256 values), and which of two tied categories comes first — and so which
/// survives a top-k cut — is whatever these algorithms leave. A stable sort gives another order in 47 of 60 MediaPipe
/// outputs checked; these reproduce all 60. `comes(a, b)` is the comparator MediaPipe passes: `a.score > b.score`.
enum StandardLibrarySort {
    /// `std::sort(first, last, comp)` over the whole array.
    static func sort<T>(_ a: inout [T], by comes: (T, T) -> Bool) {
        let n = a.count
        guard n > 1 else { return }
        introsortLoop(&a, 0, n, depthLimit: 2 * (Int.bitWidth - 1 - n.leadingZeroBitCount), comes)
        finalInsertionSort(&a, 0, n, comes)
    }

    /// `std::partial_sort(first, first + middle, last, comp)`: the first `middle` elements end up the smallest under
    /// `comes`, in order; the rest in heap-select's leftover order.
    static func partialSort<T>(_ a: inout [T], middle: Int, by comes: (T, T) -> Bool) {
        partialSort(&a, 0, min(max(middle, 0), a.count), a.count, comes)
    }

    private static let threshold = 16

    private static func partialSort<T>(_ a: inout [T], _ first: Int, _ middle: Int, _ last: Int, _ comes: (T, T) -> Bool) {
        heapSelect(&a, first, middle, last, comes)
        sortHeap(&a, first, middle, comes)
    }

    private static func heapSelect<T>(_ a: inout [T], _ first: Int, _ middle: Int, _ last: Int, _ comes: (T, T) -> Bool) {
        makeHeap(&a, first, middle, comes)
        var i = middle
        while i < last {
            if comes(a[i], a[first]) { popHeap(&a, first, middle, i, comes) }
            i += 1
        }
    }

    private static func makeHeap<T>(_ a: inout [T], _ first: Int, _ last: Int, _ comes: (T, T) -> Bool) {
        let length = last - first
        guard length >= 2 else { return }
        var parent = (length - 2) / 2
        while true {
            adjustHeap(&a, first, parent, length, a[first + parent], comes)
            if parent == 0 { return }
            parent -= 1
        }
    }

    private static func popHeap<T>(_ a: inout [T], _ first: Int, _ last: Int, _ result: Int, _ comes: (T, T) -> Bool) {
        let value = a[result]
        a[result] = a[first]
        adjustHeap(&a, first, 0, last - first, value, comes)
    }

    private static func sortHeap<T>(_ a: inout [T], _ first: Int, _ last: Int, _ comes: (T, T) -> Bool) {
        var last = last
        while last - first > 1 {
            last -= 1
            popHeap(&a, first, last, last, comes)
        }
    }

    private static func adjustHeap<T>(_ a: inout [T], _ first: Int, _ start: Int, _ length: Int, _ value: T, _ comes: (T, T) -> Bool) {
        var hole = start, child = start
        while child < (length - 1) / 2 {
            child = 2 * (child + 1)
            if comes(a[first + child], a[first + child - 1]) { child -= 1 }
            a[first + hole] = a[first + child]
            hole = child
        }
        if length % 2 == 0, child == (length - 2) / 2 {
            child = 2 * (child + 1)
            a[first + hole] = a[first + child - 1]
            hole = child - 1
        }
        // push_heap
        var parent = (hole - 1) / 2
        while hole > start, comes(a[first + parent], value) {
            a[first + hole] = a[first + parent]
            hole = parent
            parent = (hole - 1) / 2
        }
        a[first + hole] = value
    }

    private static func introsortLoop<T>(_ a: inout [T], _ first: Int, _ last: Int, depthLimit: Int, _ comes: (T, T) -> Bool) {
        var last = last, depth = depthLimit
        while last - first > threshold {
            if depth == 0 {
                partialSort(&a, first, last, last, comes)
                return
            }
            depth -= 1
            moveMedianToFirst(&a, first, first + 1, first + (last - first) / 2, last - 1, comes)
            let cut = unguardedPartition(&a, first + 1, last, first, comes)
            introsortLoop(&a, cut, last, depthLimit: depth, comes)
            last = cut
        }
    }

    private static func moveMedianToFirst<T>(_ a: inout [T], _ result: Int, _ x: Int, _ y: Int, _ z: Int, _ comes: (T, T) -> Bool) {
        if comes(a[x], a[y]) {
            if comes(a[y], a[z]) { a.swapAt(result, y) } else if comes(a[x], a[z]) { a.swapAt(result, z) } else { a.swapAt(result, x) }
        } else if comes(a[x], a[z]) {
            a.swapAt(result, x)
        } else if comes(a[y], a[z]) {
            a.swapAt(result, z)
        } else {
            a.swapAt(result, y)
        }
    }

    private static func unguardedPartition<T>(_ a: inout [T], _ first: Int, _ last: Int, _ pivot: Int, _ comes: (T, T) -> Bool) -> Int {
        var first = first, last = last
        while true {
            while comes(a[first], a[pivot]) { first += 1 }
            last -= 1
            while comes(a[pivot], a[last]) { last -= 1 }
            if !(first < last) { return first }
            a.swapAt(first, last)
            first += 1
        }
    }

    private static func finalInsertionSort<T>(_ a: inout [T], _ first: Int, _ last: Int, _ comes: (T, T) -> Bool) {
        if last - first > threshold {
            insertionSort(&a, first, first + threshold, comes)
            for i in (first + threshold)..<last { unguardedLinearInsert(&a, i, comes) }
        } else {
            insertionSort(&a, first, last, comes)
        }
    }

    private static func insertionSort<T>(_ a: inout [T], _ first: Int, _ last: Int, _ comes: (T, T) -> Bool) {
        guard first != last else { return }
        var i = first + 1
        while i < last {
            if comes(a[i], a[first]) {
                let value = a[i]
                var j = i
                while j > first { a[j] = a[j - 1]; j -= 1 }
                a[first] = value
            } else {
                unguardedLinearInsert(&a, i, comes)
            }
            i += 1
        }
    }

    private static func unguardedLinearInsert<T>(_ a: inout [T], _ position: Int, _ comes: (T, T) -> Bool) {
        let value = a[position]
        var last = position, next = position - 1
        while comes(value, a[next]) {
            a[last] = a[next]
            last = next
            next -= 1
        }
        a[last] = value
    }
}
