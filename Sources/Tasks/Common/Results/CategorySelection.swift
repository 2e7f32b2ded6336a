/// Which categories of a model's scores a task reports, as MediaPipe's classification and detection post-processing
/// choose them (`TensorsToClassificationCalculator`, `TensorsToDetectionsCalculator`): by label *index*, not name.
///
/// Allow- and denylisted names become the indices of the first labels that carry them (unknown and repeated names are
/// ignored), and an empty index set filters nothing — so an allowlist of only unknown names keeps every category, as
/// MediaPipe does. Scores below the threshold (strictly) go. The threshold is the options' when set, else the model
/// metadata's, else none.
struct CategorySelection: Sendable {
    let labels: [String]?
    let displayNames: [String]?
    let allowed: Set<Int>
    let denied: Set<Int>
    let threshold: Float
    /// Categories to keep after sorting; nil for all.
    let maxResults: Int?

    init(labels: [String]?, displayNames: [String]? = nil, allowlist: [String], denylist: [String], scoreThreshold: Float?,
         metadataThreshold: Float?, maxResults: Int?) throws(VisionTaskError) {
        if labels == nil, !allowlist.isEmpty || !denylist.isEmpty {
            throw .invalidOption(name: allowlist.isEmpty ? "categoryDenylist" : "categoryAllowlist",
                                 reason: "the model carries no labels in its metadata to match names against")
        }
        self.labels = labels
        self.displayNames = displayNames
        func indices(_ names: [String]) -> Set<Int> {
            guard let labels else { return [] }
            var first: [String: Int] = [:]
            for (index, label) in labels.enumerated() where first[label] == nil { first[label] = index }
            return Set(names.compactMap { first[$0] })
        }
        allowed = indices(allowlist)
        denied = indices(denylist)
        threshold = scoreThreshold ?? metadataThreshold ?? -.greatestFiniteMagnitude
        self.maxResults = maxResults.flatMap { $0 > 0 ? $0 : nil }
    }

    func isAllowed(_ index: Int) -> Bool {
        if !allowed.isEmpty { return allowed.contains(index) }
        return !denied.contains(index)
    }

    func category(_ index: Int, score: Float) -> Category {
        Category(index: index, score: score, categoryName: labels.flatMap { index < $0.count ? $0[index] : nil },
                 displayName: displayNames.flatMap { index < $0.count ? $0[index] : nil })
    }

    /// The reported categories of one head's scores, best first, in the order libstdc++'s sorts leave ties.
    func categories(_ scores: [Float]) -> [Category] {
        var candidates: [Category] = []
        for (index, score) in scores.enumerated() where isAllowed(index) && !(score < threshold) {
            candidates.append(category(index, score: score))
        }
        if let maxResults {
            let kept = min(candidates.count, maxResults)
            StandardLibrarySort.partialSort(&candidates, middle: kept, by: { $0.score > $1.score })
            if candidates.count > maxResults { candidates.removeLast(candidates.count - maxResults) }
        } else {
            StandardLibrarySort.sort(&candidates, by: { $0.score > $1.score })
        }
        return candidates
    }
}
