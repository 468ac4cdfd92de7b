/// A step's failure the flow can go on after, without what the step would have done:
/// work that waits for a later time, such as the offline hand-over's changes, which the
/// next server contact sends. The ``FlowController``'s delegate may answer it with
/// ``FlowDisposition/skip``.
public protocol SkippableStepError: Error {
    /// Whether the flow may go on without the failed step's work.
    var canSkip: Bool { get }
}
