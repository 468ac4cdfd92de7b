/// The server's answer to one change, kept for its author: how the change ended and,
/// after a conflict or a refusal, the entity as the server held it.
public struct ChangeAnswer: Sendable, Hashable, Codable {
    public var result: ChangeResult
    public var entity: EntityState?

    public init(result: ChangeResult, entity: EntityState? = nil) {
        self.result = result
        self.entity = entity
    }

    /// How the change ended the first time the server saw it.
    public var outcome: ChangeResult.Outcome { result.original ?? result.outcome }
}
