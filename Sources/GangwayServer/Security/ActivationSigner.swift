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

    /// The name the key is stored under.
    static let secretName = "activation-signing-key"

    var publicKeyPEM: String { key.publicKey.pemRepresentation }

    /// The private key's bytes: made and stored sealed with `serverKey` at the first
    /// start (the first process decides), read and opened after. A key stored before
    /// keys were sealed is sealed in place.
    static func privateKey(storage: any ServerStorage, sealedWith serverKey: ServerKey) async throws -> Data {
        let fresh = try serverKey.seal(P256.Signing.PrivateKey().rawRepresentation, for: secretName)
        let stored = try await storage.secret(named: secretName, orInsert: fresh)
        let bytes = try serverKey.open(stored, for: secretName, plainLength: plainLength)
        if stored.count == plainLength {
            try await storage.setSecret(named: secretName, to: try serverKey.seal(bytes, for: secretName))
        }
        return bytes
    }

    /// The length of the key's raw bytes, as stored before keys were sealed.
    private static let plainLength = 32

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
