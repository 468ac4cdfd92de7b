import Crypto
import Foundation
import GangwayProtocol
import GangwayServerStorage

/// Signs activation payloads with the server's ECDSA P-256 key.
///
/// The payload is the app configuration as JSON; the signature is raw `r‖s` over its
/// SHA-256. Both travel base64url in a `gangway://activate` link, which is also the text
/// of the QR code. A client verifies them against the public key it pinned.
struct ActivationSigner: Sendable {
    let key: P256.Signing.PrivateKey

    /// The name the key is stored under.
    static let secretName = "activation-signing-key"

    var publicKeyPEM: String { key.publicKey.pemRepresentation }

    /// The private key's bytes: made and stored sealed with `serverKey` at the first
    /// start (the first process decides), read and opened after. A key stored before
    /// keys were sealed is sealed in place.
    static func privateKey(storage: ServerStorage, sealedWith serverKey: ServerKey) async throws -> Data {
        try await serverKey.storedPrivateKey(named: secretName, storage: storage, plainLength: 32) {
            P256.Signing.PrivateKey().rawRepresentation
        }
    }

    func activation(for configuration: Components.Schemas.AppConfiguration) throws -> Components.Schemas.Activation {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        let payload = try encoder.encode(configuration)
        let signature = try key.signature(for: payload).rawRepresentation
        let payloadText = payload.base64URLEncoded
        let signatureText = signature.base64URLEncoded
        return .init(
            configuration: configuration,
            payload: payloadText,
            signature: signatureText,
            link: "gangway://activate?payload=\(payloadText)&signature=\(signatureText)"
        )
    }
}
