import Foundation
import GangwayFlows

/// What the device keeps about its server account in the user's credential store: who
/// signed in, the last settings the server sent and when it last answered. For an app's
/// settings or home screen; the session token stays inside.
public struct ServiceAccount: Sendable, Hashable {
    /// The server user who signed in, if one did.
    public var user: ServerUser?
    /// Whether a server session token is kept.
    public var hasSession: Bool
    /// The settings the last download found, without their passcode requirement: the
    /// store's own policy (`SecureStore.policy`) is the one in force.
    public var settings: ServerSettings?
    /// When the server last answered a settings download.
    public var lastContact: Date?
    /// The device registration the server gave this user on this device, kept from the
    /// last registration (so it shows offline too).
    public var registrationID: String?

    /// Reads the account from `credentials` (the user's secure store once it is open).
    public init(reading credentials: any CredentialStore) throws {
        user = try credentials.serverUser()
        hasSession = try credentials.sessionToken() != nil
        settings = try credentials.serverSettings()
        lastContact = try credentials.lastContact()
        registrationID = try credentials.registrationID()
    }
}
