import Foundation

/// A device's request to sign in with the device authorization grant (RFC 8628): the
/// server keeps the SHA-256 of its device code, and the user code a person types on the
/// verification page, until it is redeemed once or expires.
public struct DeviceGrantRecord: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable {
        /// Waiting for a person to approve or deny it.
        case pending
        /// Approved by ``DeviceGrantRecord/username``; the device's next poll redeems it.
        case approved
        case denied
        /// Tokens were issued for it; it opens nothing any more.
        case redeemed
    }

    public var deviceCodeHash: Data
    /// Eight letters (``UserCode``), stored without the hyphen.
    public var userCode: String
    public var appID: String
    /// The device that asked, for the session and its registration.
    public var deviceID: String
    public var createdAt: Date
    public var expiresAt: Date
    /// Seconds the device must wait between polls; raised by each `slow_down`.
    public var interval: Int
    public var lastPolledAt: Date?
    public var status: Status
    public var username: String?

    enum CodingKeys: String, CodingKey {
        case deviceCodeHash, userCode, appID, deviceID, createdAt, expiresAt, lastPolledAt, status, username
        case interval = "intervalSeconds"
    }

    public init(
        deviceCodeHash: Data,
        userCode: String,
        appID: String,
        deviceID: String,
        createdAt: Date,
        expiresAt: Date,
        interval: Int,
        lastPolledAt: Date? = nil,
        status: Status = .pending,
        username: String? = nil
    ) {
        self.deviceCodeHash = deviceCodeHash
        self.userCode = userCode
        self.appID = appID
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.interval = interval
        self.lastPolledAt = lastPolledAt
        self.status = status
        self.username = username
    }
}

/// A refresh token, stored as its SHA-256. Each use spends it and issues the next one of
/// its family (the tokens descended from one sign-in); a spent token used again revokes
/// the whole family and the sessions it opened (RFC 9700 §4.14.2).
public struct RefreshTokenRecord: Sendable, Hashable, Codable {
    public var tokenHash: Data
    public var familyID: String
    public var appID: String
    public var username: String
    public var deviceID: String
    /// The session (access token) issued with it.
    public var sessionHash: Data
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    /// Who spent it: a hash of the client's address, when it was spent.
    public var usedFrom: Data?
    public var revoked: Bool

    public init(
        tokenHash: Data,
        familyID: String,
        appID: String,
        username: String,
        deviceID: String,
        sessionHash: Data,
        createdAt: Date,
        expiresAt: Date,
        usedAt: Date? = nil,
        usedFrom: Data? = nil,
        revoked: Bool = false
    ) {
        self.tokenHash = tokenHash
        self.familyID = familyID
        self.appID = appID
        self.username = username
        self.deviceID = deviceID
        self.sessionHash = sessionHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.usedFrom = usedFrom
        self.revoked = revoked
    }
}

/// An authorization code of the authorization code grant (RFC 6749 §4.1), stored as its
/// SHA-256 with what redeeming it must match: the redirect URI it was issued for and the
/// PKCE challenge (RFC 7636, S256). Redeemed once; the family of the tokens it gave is
/// kept, so a code presented again revokes them (RFC 6749 §4.1.2).
public struct AuthorizationCodeRecord: Sendable, Hashable, Codable {
    public var codeHash: Data
    public var appID: String
    public var username: String
    /// The device that asked, for the session and its registration.
    public var deviceID: String
    public var redirectURI: String
    /// BASE64URL(SHA-256(code_verifier)).
    public var codeChallenge: String
    /// The client's OpenID Connect nonce, for the ID token.
    public var nonce: String?
    public var createdAt: Date
    public var expiresAt: Date
    public var redeemedAt: Date?
    /// The refresh token family the redemption started.
    public var familyID: String?

    public init(
        codeHash: Data,
        appID: String,
        username: String,
        deviceID: String,
        redirectURI: String,
        codeChallenge: String,
        nonce: String? = nil,
        createdAt: Date,
        expiresAt: Date,
        redeemedAt: Date? = nil,
        familyID: String? = nil
    ) {
        self.codeHash = codeHash
        self.appID = appID
        self.username = username
        self.deviceID = deviceID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.nonce = nonce
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.redeemedAt = redeemedAt
        self.familyID = familyID
    }
}
