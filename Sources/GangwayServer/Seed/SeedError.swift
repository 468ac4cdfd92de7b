import GangwayProtocol
import HTTPTypes

/// Why a ``ServerSeed`` could not be applied: the item it stopped at and the server's reason.
///
/// Equal by kind (``invalidValue``, ``appExists``, …) whatever the item, so callers
/// match it as `catch let error as SeedError where error == .appExists`. The message
/// never holds a password: it names items by ID or user name only.
public struct SeedError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidValue
        case appExists
        case userExists
        case conflict
        case storageFailed
    }

    private let code: Code
    /// The item the seed stopped at, such as `user alice` (never a password).
    public let item: String
    /// The server's reason, for a person.
    public let reason: String

    private init(_ code: Code, item: String = "", reason: String = "") {
        self.code = code
        self.item = item
        self.reason = reason
    }

    /// A value the admin API refuses (a bad ID, domain, password length, …).
    public static let invalidValue = SeedError(.invalidValue)
    /// An app with the seed app's ID exists already.
    public static let appExists = SeedError(.appExists)
    /// A user with the seed user's name exists already.
    public static let userExists = SeedError(.userExists)
    /// Another conflict: a domain another app holds, a full entity set.
    public static let conflict = SeedError(.conflict)
    /// The database failed.
    public static let storageFailed = SeedError(.storageFailed)

    /// The seed error for an admin API refusal while creating `item`.
    init(_ error: APIError, item: String) {
        let code: Code =
            switch (error.code, error.status.code) {
            case (.appExists, _): .appExists
            case (.userExists, _): .userExists
            case (_, 409): .conflict
            case (_, 500...): .storageFailed
            default: .invalidValue
            }
        self.init(code, item: item, reason: "\(error.message) (\(error.code.rawValue))")
    }

    public static func == (lhs: SeedError, rhs: SeedError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The item and the reason, without any password.
    public var description: String { "cannot seed \(item): \(reason)" }
}
