/// libc++'s `std::sort` (libcxx/include/__algorithm/sort.h: the pdqsort-style `__introsort`), step for step, for a
/// comparator that is not a plain `<`/`>` on an arithmetic type (so no bitset partition).
///
/// MediaPipe 1.2.3's library is built with clang and links libc++ (0.10.14 linked libstdc++: ``StandardLibrarySort``),
/// and its non-maximum suppression orders detections with `std::sort` by descending score. Neither sort is stable, and
/// quantized models' scores are multiples of 1/256, so thousands tie: which of two tied, overlapping boxes survives,
/// and the order of equal scores in the result, is whatever this algorithm leaves. A stable sort broke the street
/// photo's top 5 against MediaPipe 1.2.3; this reproduces its 82 EfficientDet answers checked (the port was first
/// written and proven in Python: tools/mediapipe_efficientdet_goldens.py).
enum LibcxxSort {
    /// `std::sort(first, last, comp)` over the whole array; `comes(a, b)`: a goes before b. `comes` must be a strict
    /// weak order (no NaN scores), as for `std::sort`: its partitions walk unguarded, relying on it.
    static func sort<T>(_ a: inout [T], by comes: (T, T) -> Bool) {
        guard a.count > 1 else { return }
        withoutActuallyEscaping(comes) { comes in
            var sorter = Sorter(a: a, comes: comes)
            a = []
            sorter.introsort(0, sorter.a.count, depth: 2 * (Int.bitWidth - 1 - sorter.a.count.leadingZeroBitCount), leftmost: true)
            a = sorter.a
        }
    }

    private struct Sorter<T> {
        var a: [T]
        let comes: (T, T) -> Bool

        /// Below this many elements, insertion sort (libc++'s `__insertion_sort_limit`).
        static var insertionLimit: Int { 24 }
        /// Above this many, Tukey's ninther picks the pivot (`__ninther_threshold`).
        static var ninther: Int { 128 }
        /// `__insertion_sort_incomplete` gives up after this many moves.
        static var incompleteLimit: Int { 8 }

        mutating func sort3(_ x: Int, _ y: Int, _ z: Int) {
            if !comes(a[y], a[x]) {
                if !comes(a[z], a[y]) { return }
                a.swapAt(y, z)
                if comes(a[y], a[x]) { a.swapAt(x, y) }
                return
            }
            if comes(a[z], a[y]) {
                a.swapAt(x, z)
                return
            }
            a.swapAt(x, y)
            if comes(a[z], a[y]) { a.swapAt(y, z) }
        }

        mutating func sort4(_ x1: Int, _ x2: Int, _ x3: Int, _ x4: Int) {
            sort3(x1, x2, x3)
            if comes(a[x4], a[x3]) {
                a.swapAt(x3, x4)
                if comes(a[x3], a[x2]) {
                    a.swapAt(x2, x3)
                    if comes(a[x2], a[x1]) { a.swapAt(x1, x2) }
                }
            }
        }

        mutating func sort5(_ x1: Int, _ x2: Int, _ x3: Int, _ x4: Int, _ x5: Int) {
            sort4(x1, x2, x3, x4)
            if comes(a[x5], a[x4]) {
                a.swapAt(x4, x5)
                if comes(a[x4], a[x3]) {
                    a.swapAt(x3, x4)
                    if comes(a[x3], a[x2]) {
                        a.swapAt(x2, x3)
                        if comes(a[x2], a[x1]) { a.swapAt(x1, x2) }
                    }
                }
            }
        }

        /// Sorts ranges of up to five elements with the networks above; whether the range was that small.
        mutating func small(_ first: Int, _ last: Int) -> Bool {
            switch last - first {
            case 2: if comes(a[last - 1], a[first]) { a.swapAt(first, last - 1) }
            case 3: sort3(first, first + 1, last - 1)
            case 4: sort4(first, first + 1, first + 2, last - 1)
            case 5: sort5(first, first + 1, first + 2, first + 3, last - 1)
            default: return last - first <= 1
            }
            return true
        }

        /// Moves a[i] down to its place, from position `j`; unguarded walks rely on a smaller element before `first`.
        mutating func insert(_ i: Int, from j: Int, first: Int, guarded: Bool) {
            let t = a[i]
            var k = j, hole = i
            while true {
                a[hole] = a[k]
                hole = k
                if guarded && hole == first { break }
                k -= 1
                if !comes(t, a[k]) { break }
            }
            a[hole] = t
        }

        mutating func insertionSort(_ first: Int, _ last: Int, guarded: Bool) {
            guard first < last else { return }
            for i in (first + 1)..<last where comes(a[i], a[i - 1]) {
                insert(i, from: i - 1, first: first, guarded: guarded)
            }
        }

        /// Whether the range ended sorted: gives up after ``incompleteLimit`` moves.
        mutating func insertionSortIncomplete(_ first: Int, _ last: Int) -> Bool {
            if small(first, last) { return true }
            var j = first + 2
            sort3(first, first + 1, j)
            var count = 0
            for i in (j + 1)..<max(j + 1, last) {
                if comes(a[i], a[j]) {
                    insert(i, from: j, first: first, guarded: true)
                    count += 1
                    if count == Self.incompleteLimit { return i + 1 == last }
                }
                j = i
            }
            return true
        }

        /// The pivot at `first`; elements equal to it go right. Returns its final position and whether the range was
        /// already partitioned.
        mutating func partitionWithEqualsOnRight(_ first: Int, _ last: Int) -> (Int, Bool) {
            let begin = first, pivot = a[first]
            var first = first + 1, last = last
            while comes(a[first], pivot) { first += 1 }
            if begin == first - 1 {
                while first < last {
                    last -= 1
                    if comes(a[last], pivot) { break }
                }
            } else {
                last -= 1
                while !comes(a[last], pivot) { last -= 1 }
            }
            let already = first >= last
            while first < last {
                a.swapAt(first, last)
                first += 1
                while comes(a[first], pivot) { first += 1 }
                last -= 1
                while !comes(a[last], pivot) { last -= 1 }
            }
            let position = first - 1
            if begin != position { a[begin] = a[position] }
            a[position] = pivot
            return (position, already)
        }

        /// The pivot at `first` equals the element before the range: elements equal to it go left, and the range
        /// after them is what remains to sort.
        mutating func partitionWithEqualsOnLeft(_ first: Int, _ last: Int) -> Int {
            let begin = first, pivot = a[first]
            var first = first + 1, last = last
            if comes(pivot, a[last - 1]) {
                while !comes(pivot, a[first]) { first += 1 }
            } else {
                while first < last && !comes(pivot, a[first]) { first += 1 }
            }
            if first < last {
                last -= 1
                while comes(pivot, a[last]) { last -= 1 }
            }
            while first < last {
                a.swapAt(first, last)
                first += 1
                while !comes(pivot, a[first]) { first += 1 }
                last -= 1
                while comes(pivot, a[last]) { last -= 1 }
            }
            let position = first - 1
            if begin != position { a[begin] = a[position] }
            a[position] = pivot
            return first
        }

        mutating func introsort(_ first: Int, _ last: Int, depth: Int, leftmost: Bool) {
            var first = first, last = last, depth = depth, leftmost = leftmost
            while true {
                let length = last - first
                if length <= 1 || small(first, last) { return }
                if length < Self.insertionLimit {
                    insertionSort(first, last, guarded: leftmost)
                    return
                }
                if depth == 0 {
                    // libc++'s fallback is a heap sort (`__partial_sort(first, last, last)`); no real input reaches it
                    // (2·log2 n partitions deep), and a crafted one must still end sorted: ours is a heap sort too,
                    // libstdc++'s, so ties could come out in another order there.
                    var range = Array(a[first..<last])
                    StandardLibrarySort.partialSort(&range, middle: range.count, by: comes)
                    a.replaceSubrange(first..<last, with: range)
                    return
                }
                depth -= 1
                let half = length / 2
                if length > Self.ninther {
                    sort3(first, first + half, last - 1)
                    sort3(first + 1, first + half - 1, last - 2)
                    sort3(first + 2, first + half + 1, last - 3)
                    sort3(first + half - 1, first + half, first + half + 1)
                    a.swapAt(first, first + half)
                } else {
                    sort3(first + half, first, last - 1)
                }
                if !leftmost && !comes(a[first - 1], a[first]) {
                    first = partitionWithEqualsOnLeft(first, last)
                    continue
                }
                let (i, already) = partitionWithEqualsOnRight(first, last)
                if already {
                    let leftDone = insertionSortIncomplete(first, i)
                    if insertionSortIncomplete(i + 1, last) {
                        if leftDone { return }
                        last = i
                        continue
                    }
                    if leftDone {
                        first = i + 1
                        continue
                    }
                }
                introsort(first, i, depth: depth, leftmost: leftmost)
                leftmost = false
                first = i + 1
            }
        }
    }
}
