import Foundation

/// A device authorization the server started (RFC 8628 §3.2): the code a person types at
/// the verification page on another device, and the device code this device polls with.
///
/// Its description leaves the device code out: the device code is as good as the tokens
/// while someone approves it.
public struct DeviceAuthorization: Sendable, Hashable, CustomStringConvertible {
    /// The secret this device polls the token endpoint with.
    public var deviceCode: String
    /// What the person types, as `XXXX-XXXX`.
    public var userCode: String
    /// The verification page, where the person types ``userCode``.
    public var verificationURL: URL
    /// The verification page with the code filled in, for a QR code or a link.
    public var verificationURLComplete: URL?
    /// When the codes stop working.
    public var expiresAt: Date
    /// How long to wait between polls; `slow_down` adds 5 seconds.
    public var interval: Duration

    public init(
        deviceCode: String,
        userCode: String,
        verificationURL: URL,
        verificationURLComplete: URL?,
        expiresAt: Date,
        interval: Duration
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURL = verificationURL
        self.verificationURLComplete = verificationURLComplete
        self.expiresAt = expiresAt
        self.interval = interval
    }

    public var description: String {
        "DeviceAuthorization(userCode: \(userCode), verificationURL: \(verificationURL), deviceCode: <redacted>)"
    }
}

/// The tokens the token endpoint issued: an access token, which is a session token like
/// a password sign-in's, and the refresh token that replaces it, spent at its first use.
public struct OAuthTokens: Sendable, Hashable, CustomStringConvertible {
    /// The bearer token of the session.
    public var accessToken: SessionToken
    /// The one-use token that gets the next pair (RFC 9700 §4.14.2).
    public var refreshToken: RefreshToken
    /// When the server stops accepting ``accessToken``.
    public var expiresAt: Date

    public init(accessToken: SessionToken, refreshToken: RefreshToken, expiresAt: Date) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    public var description: String { "OAuthTokens(<redacted>, expiresAt: \(expiresAt))" }
}

/// A refresh token. Its description is redacted, like ``SessionToken``'s.
public struct RefreshToken: Sendable, Hashable, CustomStringConvertible {
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "RefreshToken(<redacted>)" }
}
