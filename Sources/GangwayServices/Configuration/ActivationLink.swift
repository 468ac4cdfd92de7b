import Crypto
import Foundation
import GangwayProtocol
import GangwaySystem

/// A signed activation link, `gangway://activate?payload=…&signature=…[&chain=…]`: the
/// text of an administrator's link and of the QR code that carries it.
///
/// The payload is the app configuration as JSON, the signature ECDSA P-256 over its
/// SHA-256 (raw `r‖s`), both base64url. A link signed after the server's activation key
/// was rotated also carries the chain of endorsed keys (``ActivationKeyChain``) from the
/// first key to the one that signed. ``verified(with:now:)`` checks the signature against
/// the key the app pinned, or against a key the chain leads to from it, before anything
/// in the payload is believed.
public struct ActivationLink: Sendable, Hashable {
    /// The payload's bytes: the configuration as JSON.
    public let payload: Data
    /// The signature's raw bytes.
    public let signature: Data
    /// The server's activation keys up to the one that signed; `nil` when the link was
    /// signed by the server's first key and says nothing of others.
    public let chain: ActivationKeyChain?

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
        func value(_ name: String, required: Bool = true) throws(ConfigurationError) -> Data? {
            let values = items.filter { $0.name == name }.map { $0.value ?? "" }
            guard values.count == 1 else {
                guard values.isEmpty, !required else { throw .invalidLink("the link needs exactly one \(name)") }
                return nil
            }
            guard let data = Data(base64URLEncoded: values[0]), !data.isEmpty else {
                throw .invalidLink("the link's \(name) is not base64url")
            }
            return data
        }
        payload = try value("payload") ?? Data()
        signature = try value("signature") ?? Data()
        guard let chainBytes = try value("chain", required: false) else {
            chain = nil
            return
        }
        do {
            chain = try ActivationKeyChain(encoded: chainBytes)
        } catch  where error.code == .notEndorsed {
            throw .badSignature
        } catch {
            throw .invalidLink("the link's chain of keys cannot be read: \(error)")
        }
    }

    /// The key that signed the link, when `pinned` is trusted: `pinned` itself for a link
    /// without a chain, and otherwise the chain's newest key, when the chain holds `pinned`.
    /// An app that keeps its pin may pin this key once the link has verified, so a key
    /// older than it no longer activates the app.
    /// - Throws: ``ConfigurationError/badSignature`` when the chain does not lead from
    ///   `pinned`.
    public func signer(trusting pinned: P256.Signing.PublicKey) throws(ConfigurationError) -> P256.Signing.PublicKey {
        guard let chain else { return pinned }
        guard chain.leads(from: pinned) else { throw .badSignature }
        return chain.newest
    }

    /// The configuration the link carries, once its signature verifies against `key`, or
    /// against the key its chain leads to from `key` (``signer(trusting:)``), and it has
    /// not expired at `now`.
    /// - Throws: ``ConfigurationError/badSignature`` when it does not verify,
    ///   ``ConfigurationError/expired`` when the signed payload has no expiry or is past
    ///   it, ``ConfigurationError/malformed`` when it is not a configuration.
    public func verified(
        with key: P256.Signing.PublicKey,
        now: Date = WallClock.now()
    ) throws(ConfigurationError) -> AppConfiguration {
        let signer = try signer(trusting: key)
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            signer.isValidSignature(ecdsa, for: payload)
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
