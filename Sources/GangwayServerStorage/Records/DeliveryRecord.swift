import Foundation
import GangwayProtocol

/// A device's change to a set whose data source delivers changes, waiting for the
/// company's backend to decide it: sent as its author, once by its ID, in the order the
/// changes of its entity came.
public struct DeliveryRecord: Sendable, Hashable {
    public var appID: String
    public var change: Change
    /// The user whose session uploaded it.
    public var carrier: String
    public var receivedAt: Date
    /// Attempts that failed so far (the backend down, or answering 5xx).
    public var attempts: Int
    /// Parked: it failed too often to be tried again until an operator says so.
    public var parked: Bool
    /// Why the last attempt failed.
    public var lastError: String?

    public init(
        appID: String,
        change: Change,
        carrier: String,
        receivedAt: Date,
        attempts: Int = 0,
        parked: Bool = false,
        lastError: String? = nil
    ) {
        self.appID = appID
        self.change = change
        self.carrier = carrier
        self.receivedAt = receivedAt
        self.attempts = attempts
        self.parked = parked
        self.lastError = lastError
    }
}

/// How the company's backend answered a delivered change.
public enum DeliveryOutcome: Sendable, Hashable {
    /// Taken: the entity as the backend now holds it, which becomes the server's.
    case accepted(fields: [String: String])
    /// Refused for good, with the backend's reason: the change's result, for its author.
    case refused(ChangeRejection)
    /// Not decided (the backend down, or answering 5xx): tried again at `retryAt`, or
    /// parked when `park`.
    case failed(reason: String, retryAt: Date, park: Bool)
}
