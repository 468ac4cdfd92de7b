import Foundation

/// The secret that lets a user who forgot the passcode keep their data: the server keeps
/// it for the user and hands it to an authentication step only after the same user signs
/// in again. Its description is redacted.
public struct RecoveryKey: Sendable, Hashable, CustomStringConvertible {
    /// The secret; at least ``GangwayStore/SecureStore/recoveryKeyByteCount`` bytes.
    public let secret: Data

    public init(_ secret: Data) {
        self.secret = secret
    }

    public var description: String { "RecoveryKey(<redacted>)" }
}

extension FlowInfoKey where Value == RecoveryKey {
    /// The recovery key an authentication step got from the server.
    public static var recoveryKey: Self { Self("gangway.recoveryKey") }
}
