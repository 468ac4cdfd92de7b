import Foundation
import GangwayFlows
import Logging

/// What the mobile-services steps keep in the credential store: in memory during
/// onboarding, then in the user's secure store, where the store step moves it.
enum ServiceCredentials {
    static let token = "gangway.services.token"
    /// For an `oauth2` app: the refresh token that gets the next session.
    static let refreshToken = "gangway.services.refreshToken"
    static let user = "gangway.services.user"
    static let settings = "gangway.services.settings"
    static let lastContact = "gangway.services.lastContact"
    /// The device cookie the server gave this device for this user; kept when the user
    /// signs out, since it is what lets them back in while someone guesses their password.
    static let deviceCookie = "gangway.services.deviceCookie"
    /// The ID of the device's registration for this user, which their offline changes name.
    static let registration = "gangway.services.registration"
}

private struct StoredUser: Codable {
    var id: String
    var displayName: String
}

extension CredentialStore {
    /// The server session's token.
    func sessionToken() throws -> SessionToken? {
        try data(forKey: ServiceCredentials.token).map { SessionToken(String(decoding: $0, as: UTF8.self)) }
    }

    /// For an `oauth2` app: the refresh token that gets the next session.
    func refreshToken() throws -> RefreshToken? {
        try data(forKey: ServiceCredentials.refreshToken).map { RefreshToken(String(decoding: $0, as: UTF8.self)) }
    }

    /// The server user who signed in.
    func serverUser() throws -> ServerUser? {
        guard let data = try data(forKey: ServiceCredentials.user) else { return nil }
        let user = try JSONDecoder().decode(StoredUser.self, from: data)
        return ServerUser(id: user.id, displayName: user.displayName)
    }

    /// The settings the last download found, without their passcode requirement (see
    /// ``keep(_:contactAt:)``).
    func serverSettings() throws -> ServerSettings? {
        try data(forKey: ServiceCredentials.settings).map { try JSONDecoder().decode(ServerSettings.self, from: $0) }
    }

    /// When the server last answered.
    func lastContact() throws -> Date? {
        guard let data = try data(forKey: ServiceCredentials.lastContact),
            let seconds = Double(String(decoding: data, as: UTF8.self))
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// The device cookie to present at this user's next sign-in on this device.
    func deviceCookie() throws -> String? {
        try data(forKey: ServiceCredentials.deviceCookie).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The ID of the device's registration for this user.
    func registrationID() throws -> String? {
        try data(forKey: ServiceCredentials.registration).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The user's offline keys (``OfflineKeys``), when kept here and readable.
    func offlineKeys() throws -> OfflineKeys? {
        try data(forKey: OfflineKeys.storeKey).flatMap { try? OfflineKeys(stored: $0) }
    }

    func keep(_ registration: DeviceRegistration) throws {
        try put(Data(registration.registrationID.utf8), forKey: ServiceCredentials.registration)
    }

    package func keep(_ session: ServerSession) throws {
        try put(Data(session.token.value.utf8), forKey: ServiceCredentials.token)
        if let refresh = session.refreshToken {
            try put(Data(refresh.value.utf8), forKey: ServiceCredentials.refreshToken)
        }
        if let cookie = session.deviceCookie {
            try put(Data(cookie.utf8), forKey: ServiceCredentials.deviceCookie)
        }
        let user = StoredUser(id: session.user.id, displayName: session.user.displayName)
        try put(JSONEncoder().encode(user), forKey: ServiceCredentials.user)
    }

    /// Keeps the settings and the time of contact. The passcode requirement is left out:
    /// the store keeps the policy in force itself, and the store manager records a change
    /// that waits for the user, so the requirement is persisted in one place.
    package func keep(_ settings: ServerSettings, contactAt time: Date) throws {
        var kept = settings
        kept.passcodeRequirement = nil
        try put(JSONEncoder().encode(kept), forKey: ServiceCredentials.settings)
        try put(Data(String(time.timeIntervalSince1970).utf8), forKey: ServiceCredentials.lastContact)
    }
}
