import Foundation

/// A change with its author's signature, as it waits in the outbox and travels to the
/// server.
public struct SignedChange: Sendable, Hashable, Codable {
    public var change: Change
    /// The author's ECDSA P-256 signature of ``Change/signedBytes`` (raw `r‖s`, 64 bytes).
    public var signature: Data

    public init(change: Change, signature: Data) {
        self.change = change
        self.signature = signature
    }

    /// Whether the signature is `key`'s, for exactly this change.
    public func isSigned(by key: ChangeVerifyingKey) -> Bool {
        key.isValidSignature(signature, for: change)
    }
}
