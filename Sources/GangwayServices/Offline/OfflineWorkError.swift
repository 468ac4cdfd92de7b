import GangwayFlows

/// Why an edit could not be recorded, or offline work not done, on this device.
///
/// Equal by kind whatever the message; new kinds can be added without breaking callers.
/// A change the rules refuse is a `ChangeRejection` instead, the same the server gives.
public struct OfflineWorkError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case notReady
        case noSuchChange
        case unreadable
        case handOverFailed
    }

    let kind: Kind
    /// For people; never a field's value.
    public let message: String
    /// What failed underneath, when something did: a ``ServiceError`` for the server.
    public let underlying: (any Error)?

    init(_ kind: Kind, _ message: String, underlying: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.underlying = underlying
    }

    /// The device has not yet what offline work needs from the server (its registration,
    /// the app's rules and the server's sealing key): it must reach the server once.
    public static let notReady = Self(.notReady, "")
    /// No change of the user's has that ID.
    public static let noSuchChange = Self(.noSuchChange, "")
    /// The outbox or the user's copy of their changes could not be read or written.
    public static let unreadable = Self(.unreadable, "")
    /// The offline hand-over (``OfflineHandOverStep``) could not send what waits: nothing
    /// is lost, and it goes at the next server contact. A flow may go on without it
    /// (``GangwayFlows/FlowDisposition/skip``), as the reference's `syncFailed` story does.
    public static let handOverFailed = Self(.handOverFailed, "")

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    public var description: String { message }
}

extension OfflineWorkError: SkippableStepError {
    public var canSkip: Bool { kind == .handOverFailed }
}
