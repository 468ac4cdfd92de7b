import Foundation
import GangwayScreens

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
        case imageNotFound
        case notAnImage
        case unknownEmailDomain
        case invalidEmail
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
    /// No file at the path given for a QR code's image.
    public static let imageNotFound = Self(.imageNotFound)
    /// The file given for a QR code's image is not a PNG.
    public static let notAnImage = Self(.notAnImage)
    /// No app is set up for the email address's domain.
    public static let unknownEmailDomain = Self(.unknownEmailDomain)
    /// What was typed as a work email is not an address (the server's rule decides).
    public static let invalidEmail = Self(.invalidEmail)
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

    /// The string table's key for this error's texts: `configuration.CODE`.
    private var key: String {
        switch code {
        case .malformed: "configuration.malformed"
        case .unreadableFile: "configuration.unreadableFile"
        case .invalidLink: "configuration.invalidLink"
        case .badSignature: "configuration.badSignature"
        case .expired: "configuration.expired"
        case .qrDecoderUnavailable: "configuration.qrDecoderUnavailable"
        case .unreadableQRCode: "configuration.unreadableQRCode"
        case .imageNotFound: "configuration.imageNotFound"
        case .notAnImage: "configuration.notAnImage"
        case .unknownEmailDomain: "configuration.unknownEmailDomain"
        case .invalidEmail: "configuration.invalidEmail"
        case .discoveryFailed: "configuration.discoveryFailed"
        case .unsupported: "configuration.unsupported"
        }
    }

    /// What happened, in a sentence for people, from the string table
    /// (`configuration.CODE.summary`).
    public var summary: String { StringTable.text(key + ".summary") }

    /// What the user can do about it (`configuration.CODE.advice`).
    public var advice: String { StringTable.text(key + ".advice") }

    public var description: String { summary + (reason.map { " (\($0))" } ?? "") }
}
