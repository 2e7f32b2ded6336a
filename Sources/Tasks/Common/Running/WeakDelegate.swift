/// A live-stream delegate, held weakly as MediaPipe holds it.
///
/// `@unchecked Sendable`: the delegate is the user's object and need not be `Sendable` (the delegate classes of
/// MediaPipe's guides are plain `NSObject` subclasses). The task only ever calls it on its one serial delivery
/// queue — MediaPipe's contract, written in the delegate protocols' documentation.
final class WeakDelegate<Delegate>: @unchecked Sendable {
    // AnyObject, not Delegate: a generic parameter bound to a protocol existential cannot be constrained to classes.
    private weak var object: AnyObject?

    init(_ value: Delegate?) { object = value.map { $0 as AnyObject } }

    var value: Delegate? { object as? Delegate }
}
