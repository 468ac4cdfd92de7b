import Crypto
import Foundation
import GangwayProtocol
import GangwayServerStorage
import Synchronization

/// Signs activation payloads with the server's newest activation key (ECDSA P-256).
///
/// The payload is the app configuration as JSON; the signature is raw `r‖s` over its
/// SHA-256. Both travel base64url in a `gangway://activate` link, which is also the text
/// of the QR code. A client verifies them against the public key it pinned. Once the key
/// has been rotated, the link also carries the chain of endorsed keys from the first
/// (``ActivationKeyChain``), so a client that pinned any earlier key still verifies it.
final class ActivationSigner: Sendable {
    /// The activation keys, oldest first in their chain.
    let keys: SigningKeyRing
    /// The chain last checked, by its keys' IDs: each link and each look at the public
    /// `/activation-key` would otherwise check every endorsement again.
    private let checked = Mutex<(kids: [String], chain: ActivationKeyChain)?>(nil)

    init(keys: SigningKeyRing) {
        self.keys = keys
    }

    /// The chain of activation keys, checked, and the newest key, which signs.
    func chain() async throws -> (chain: ActivationKeyChain, signer: P256.Signing.PrivateKey) {
        let keys = try await keys.chain()
        guard let newest = keys.last else {
            throw ActivationKeyChain.Failure(.malformed, "no activation key is stored")
        }
        let kids = keys.map(\.record.kid)
        if let known = checked.withLock({ $0 }), known.kids == kids { return (known.chain, newest.signer.key) }
        let chain = try ActivationKeyChain(
            keys: keys.map(\.signer.key.publicKey),
            endorsements: try keys.dropFirst().map { key in
                guard let endorsement = key.record.endorsement else {
                    throw ActivationKeyChain.Failure(
                        .notEndorsed,
                        "the activation key \(key.record.kid) has no endorsement"
                    )
                }
                return endorsement
            }
        )
        checked.withLock { $0 = (kids, chain) }
        return (chain, newest.signer.key)
    }

    /// The newest key's public half in PEM, the key a new client pins, and the chain that
    /// leads to it from the first key once there is more than one.
    func publicKey() async throws -> Components.Schemas.ActivationKey {
        let (chain, signer) = try await chain()
        return .init(
            algorithm: .es256,
            publicKeyPEM: signer.publicKey.pemRepresentation,
            chain: chain.keys.count > 1 ? chain.encoded.base64URLEncoded : nil
        )
    }

    /// An activation of `configuration`, signed by the newest key.
    func activation(
        for configuration: Components.Schemas.AppConfiguration
    ) async throws
        -> Components.Schemas.Activation
    {
        let (chain, signer) = try await chain()
        return try Self.activation(for: configuration, signedBy: signer, chain: chain)
    }

    /// An activation of `configuration` signed by `signer`, the newest key of `chain`: the
    /// payload, its signature and the link that carries both (and the chain, once there is
    /// more than one key).
    static func activation(
        for configuration: Components.Schemas.AppConfiguration,
        signedBy signer: P256.Signing.PrivateKey,
        chain: ActivationKeyChain
    ) throws -> Components.Schemas.Activation {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        let payload = try encoder.encode(configuration)
        let signature = try signer.signature(for: payload).rawRepresentation
        let payloadText = payload.base64URLEncoded
        let signatureText = signature.base64URLEncoded
        let chainText = chain.keys.count > 1 ? chain.encoded.base64URLEncoded : nil
        return .init(
            configuration: configuration,
            payload: payloadText,
            signature: signatureText,
            link: "gangway://activate?payload=\(payloadText)&signature=\(signatureText)"
                + (chainText.map { "&chain=\($0)" } ?? ""),
            chain: chainText
        )
    }
}
