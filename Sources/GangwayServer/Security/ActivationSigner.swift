import Crypto
import Foundation
import GangwayProtocol

/// Signs activation payloads with the server's ECDSA P-256 key.
///
/// The payload is the app configuration as JSON; the signature is raw `r‖s` over its
/// SHA-256. Both travel base64url in a `gangway://activate` link, which is also the text
/// of the QR code. A client verifies them against the public key it pinned.
struct ActivationSigner: Sendable {
    let key: P256.Signing.PrivateKey

    var publicKeyPEM: String { key.publicKey.pemRepresentation }

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
