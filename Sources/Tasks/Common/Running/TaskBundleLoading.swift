import VisionTasksModelFormat

extension BaseOptions.Values {
    /// Opens the `.task` bundle at `modelAssetPath`, with the format layer's errors as the task's.
    func openBundle() throws(VisionTaskError) -> TaskBundle {
        do { return try TaskBundle(path: try requiredModelPath()) } catch let error as FormatError {
            throw .model(error)
        } catch let error as VisionTaskError {
            throw error
        } catch {
            throw .wrongModel("\(error)")
        }
    }
}

extension TaskBundle {
    /// Refuses a bundle that lacks one of `members` with a message naming what it holds (a pose bundle given to the
    /// face landmarker, say).
    func requireMembers(_ members: [String], for task: String) throws(VisionTaskError) {
        for member in members where (try? self.member(member)) == nil {
            throw .wrongModel("a \(task) bundle holds \(member); this one has \(memberPaths)")
        }
    }
}
