import Foundation

/// How the server ended one change; the device keeps the answer before it drops the change
/// from its outbox.
public struct ChangeResult: Sendable, Hashable, Codable {
    /// The four ways a change ends.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// Every field it set was taken.
        case applied
        /// The server had this change already; ``ChangeResult/original`` is how it ended
        /// the first time, and nothing changed now.
        case duplicate
        /// Some fields were taken, the others kept the server's value (``ChangeResult/conflicts``).
        case conflict
        /// Refused for good (``ChangeResult/rejection``): it goes to its author's archive.
        case rejected
        /// Not ended: its author is blocked, or their registration locked. The device keeps
        /// it and sends it again later; the server records nothing of it, so once the
        /// author is let in again it is ended exactly once.
        case held
    }

    public var changeID: UUID
    public var outcome: Outcome
    /// For a duplicate, how the change ended the first time.
    public var original: Outcome?
    /// The entity's version after the change, unless it was rejected.
    public var version: Int64?
    /// The fields left at the server's value.
    public var conflicts: [FieldConflict]
    /// Why the change was refused.
    public var rejection: ChangeRejection?

    public init(
        changeID: UUID,
        outcome: Outcome,
        original: Outcome? = nil,
        version: Int64? = nil,
        conflicts: [FieldConflict] = [],
        rejection: ChangeRejection? = nil
    ) {
        self.changeID = changeID
        self.outcome = outcome
        self.original = original
        self.version = version
        self.conflicts = conflicts
        self.rejection = rejection
    }

    /// The result of a refusal.
    /// A change held back, not ended (see ``Outcome/held``).
    public init(changeID: UUID, heldBecause reason: ChangeRejection) {
        self.init(changeID: changeID, outcome: .held, rejection: reason)
    }

    public init(changeID: UUID, rejected rejection: ChangeRejection) {
        self.init(changeID: changeID, outcome: .rejected, rejection: rejection)
    }

    /// This result, as the answer to the same change sent again.
    public var asDuplicate: ChangeResult {
        var result = self
        result.original = outcome == .duplicate ? original : outcome
        result.outcome = .duplicate
        return result
    }
}
