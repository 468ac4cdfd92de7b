import Crypto
import Foundation
import GangwayScreens
import GangwaySystem

/// Activates the app from a signed activation link, or from a QR code carrying one (its
/// text, or the path of a PNG read through ``QRCodeDecoder``). The signature is checked
/// against the administrator's server key the app pinned; nothing in an unverified
/// payload is used.
public struct SignedActivationProvider: ConfigurationProvider {
    public let source: ConfigurationSource
    /// The key activation payloads must be signed with.
    public let pinnedKey: P256.Signing.PublicKey
    /// A link the app was opened with, used without asking.
    public let launchLink: String?
    /// Reads QR code images.
    public let decoder: QRCodeDecoder
    /// The clock links' expiry is judged by.
    public var now: @Sendable () -> Date = WallClock.now

    /// A provider for activation links.
    public static func link(pinnedKey: P256.Signing.PublicKey, launchLink: String? = nil) -> Self {
        Self(source: .activationLink, pinnedKey: pinnedKey, launchLink: launchLink, decoder: QRCodeDecoder())
    }

    /// A provider for QR codes.
    public static func qrCode(pinnedKey: P256.Signing.PublicKey, decoder: QRCodeDecoder = QRCodeDecoder()) -> Self {
        Self(source: .qrCode, pinnedKey: pinnedKey, launchLink: nil, decoder: decoder)
    }

    /// Reads a pinned key from its PEM.
    /// - Throws: ``ConfigurationError/malformed`` when it is not a P-256 public key.
    public static func pinnedKey(pem: String) throws(ConfigurationError) -> P256.Signing.PublicKey {
        do {
            return try P256.Signing.PublicKey(pemRepresentation: pem)
        } catch {
            throw .malformed("the pinned activation key is not a P-256 public key in PEM")
        }
    }

    public var activationMethod: WelcomeScreen.ActivationMethod? { source == .qrCode ? .qrCode : .link }

    public func configuration() async throws(ConfigurationError) -> AppConfiguration? {
        guard let launchLink else { return nil }
        return try ActivationLink(launchLink).verified(with: pinnedKey, now: now())
    }

    public func configuration(
        for activation: WelcomeScreen.Activation
    ) async throws(ConfigurationError) -> AppConfiguration? {
        switch (source, activation) {
        case (.activationLink, .link(let text)):
            return try ActivationLink(text).verified(with: pinnedKey, now: now())
        case (.qrCode, .qrCode(let text)):
            return try ActivationLink(await qrText(text)).verified(with: pinnedKey, now: now())
        default:
            return nil
        }
    }

    /// The code's text: as given, or read from the PNG the text names.
    private func qrText(_ text: String) async throws(ConfigurationError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.lowercased().hasPrefix("gangway:") else { return trimmed }
        let file = URL(fileURLWithPath: (trimmed as NSString).expandingTildeInPath)
        guard FileManager.default.fileExists(atPath: file.path) else {
            // A path (it names a directory or an image) that is not there; any other text
            // is simply not a code.
            guard trimmed.contains("/") || trimmed.lowercased().hasSuffix(".png") else {
                throw .invalidLink("enter the QR code's text or the path of its PNG image")
            }
            throw .imageNotFound
        }
        // Only a regular file is opened: a FIFO or a device would block the read, or never end.
        guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
            let head = try? FileHandle(forReadingFrom: file).read(upToCount: 8), QRCodeDecoder.isPNG(head)
        else {
            throw .notAnImage
        }
        return try await decoder.text(ofImageAt: file)
    }
}
