import Crypto
import Foundation
import GangwayProtocol
import GangwaySystem

/// A signed activation link, `gangway://activate?payload=…&signature=…`: the text of an
/// administrator's link and of the QR code that carries it.
///
/// The payload is the app configuration as JSON, the signature ECDSA P-256 over its
/// SHA-256 (raw `r‖s`), both base64url. ``verified(with:)`` checks the signature against
/// the key the app pinned before anything in the payload is believed.
public struct ActivationLink: Sendable, Hashable {
    /// The payload's bytes: the configuration as JSON.
    public let payload: Data
    /// The signature's raw bytes.
    public let signature: Data

    /// Reads a link.
    /// - Throws: ``ConfigurationError/invalidLink`` naming what is wrong.
    public init(_ text: String) throws(ConfigurationError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let components = URLComponents(string: trimmed), components.scheme?.lowercased() == "gangway",
            components.host?.lowercased() == "activate"
        else {
            throw .invalidLink("an activation link starts with gangway://activate")
        }
        let items = components.queryItems ?? []
        func value(_ name: String) throws(ConfigurationError) -> Data {
            let values = items.filter { $0.name == name }.compactMap(\.value)
            guard values.count == 1 else { throw .invalidLink("the link needs exactly one \(name)") }
            guard let data = Data(base64URLEncoded: values[0]), !data.isEmpty else {
                throw .invalidLink("the link's \(name) is not base64url")
            }
            return data
        }
        payload = try value("payload")
        signature = try value("signature")
    }

    /// The configuration the link carries, once its signature verifies against `key`
    /// and it has not expired at `now`.
    /// - Throws: ``ConfigurationError/badSignature`` when it does not verify,
    ///   ``ConfigurationError/expired`` when the signed payload has no expiry or is past
    ///   it, ``ConfigurationError/malformed`` when it is not a configuration.
    public func verified(
        with key: P256.Signing.PublicKey,
        now: Date = WallClock.now()
    ) throws(ConfigurationError) -> AppConfiguration {
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: payload)
        else {
            throw .badSignature
        }
        let configuration = try AppConfiguration.decode(payload)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let terms = try? decoder.decode(Terms.self, from: payload), let expiry = terms.activationExpiresAt,
            expiry > now
        else {
            throw .expired
        }
        return configuration
    }

    /// What a signed payload says about the link itself.
    private struct Terms: Decodable {
        var activationExpiresAt: Date?
    }
}
