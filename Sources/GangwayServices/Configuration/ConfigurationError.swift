import Foundation

/// Why the app could not learn its configuration.
///
/// Errors are equal when their kind is equal. Messages name what is wrong and never
/// repeat a payload or a signature.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case malformed
        case unreadableFile
        case invalidLink
        case badSignature
        case expired
        case qrDecoderUnavailable
        case unreadableQRCode
        case unknownEmailDomain
        case discoveryFailed
        case unsupported
    }

    private let code: Code
    /// What is wrong, for people and logs.
    public let reason: String?

    private init(_ code: Code, reason: String? = nil) {
        self.code = code
        self.reason = reason
    }

    /// The configuration is not valid JSON or misses a field.
    public static let malformed = Self(.malformed)
    /// A configuration file exists but cannot be read.
    public static let unreadableFile = Self(.unreadableFile)
    /// The text is not an activation link (`gangway://activate?payload=…&signature=…`).
    public static let invalidLink = Self(.invalidLink)
    /// The activation payload's signature does not verify against the pinned key: the
    /// link was altered or signed by someone else.
    public static let badSignature = Self(.badSignature)
    /// The activation link is past its expiry, or carries none: ask for a new one.
    public static let expired = Self(.expired)
    /// A QR code image was given and no decoder (`zbarimg`, from zbar-tools) is installed.
    public static let qrDecoderUnavailable = Self(.qrDecoderUnavailable)
    /// The image holds no readable QR code.
    public static let unreadableQRCode = Self(.unreadableQRCode)
    /// No app is set up for the email address's domain.
    public static let unknownEmailDomain = Self(.unknownEmailDomain)
    /// The discovery service could not be asked.
    public static let discoveryFailed = Self(.discoveryFailed)
    /// No provider handles that way of activating.
    public static let unsupported = Self(.unsupported)

    static func malformed(_ reason: String) -> Self { Self(.malformed, reason: reason) }
    static func unreadableFile(_ path: String) -> Self { Self(.unreadableFile, reason: path) }
    static func invalidLink(_ reason: String) -> Self { Self(.invalidLink, reason: reason) }
    static func unreadableQRCode(_ reason: String) -> Self { Self(.unreadableQRCode, reason: reason) }
    static func discoveryFailed(_ error: ServiceError) -> Self { Self(.discoveryFailed, reason: error.description) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// What happened, in a sentence for people.
    public var summary: String {
        switch code {
        case .malformed: "The app configuration is not valid."
        case .unreadableFile: "The app configuration file cannot be read."
        case .invalidLink: "That is not an activation link."
        case .badSignature: "The activation code is not signed by your administrator's server."
        case .expired: "This activation link has expired."
        case .qrDecoderUnavailable: "QR code images cannot be read on this device."
        case .unreadableQRCode: "No QR code could be read from that image."
        case .unknownEmailDomain: "No app is set up for that email address."
        case .discoveryFailed: "The app could not be looked up."
        case .unsupported: "That way of activating is not offered."
        }
    }

    /// What the user can do about it.
    public var advice: String {
        switch code {
        case .malformed, .unreadableFile: "Contact your administrator."
        case .invalidLink, .badSignature, .expired: "Ask your administrator for a new activation link or QR code."
        case .qrDecoderUnavailable: "Paste the QR code's text instead, or install zbar-tools."
        case .unreadableQRCode: "Try a sharper image, or paste the code's text."
        case .unknownEmailDomain: "Check the address, or use an activation link."
        case .discoveryFailed: "Check the network connection and try again."
        case .unsupported: "Choose another way to activate."
        }
    }

    public var description: String { summary + (reason.map { " (\($0))" } ?? "") }
}
