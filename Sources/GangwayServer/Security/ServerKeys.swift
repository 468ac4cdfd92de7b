import Crypto
import Foundation
import GangwayProtocol
import GangwayServerStorage

/// The keys a server works with: the server key, which seals every other secret it
/// stores, and the keys it signs and opens with, each doing one job. Each is made at the
/// first start (the first process decides) and kept in the database sealed with the
/// server key, so every server sharing the database holds the same ones; a key stored
/// before keys were sealed is sealed in place. The keys that sign tokens verified by
/// `kid`, and the activation key, rotate (``SigningKeyRing``).
struct ServerKeys: Sendable {
    /// Seals the stored secrets, and makes the form tokens' and enrolments' codes.
    let server: ServerKey
    /// Signs activation links.
    let activation: ActivationSigner
    /// The activation keys, the newest signing (``ActivationSigner``).
    let activationKeys: SigningKeyRing
    /// Sign OpenID Connect ID tokens.
    let idTokens: SigningKeyRing
    /// Sign the identity forwarded to a destination.
    let destinationTokens: SigningKeyRing
    /// The key devices seal offline changes to.
    let changeSealing: SealingPrivateKey
    /// Its public half as the settings exchange sends it (X9.63, base64url): encoded
    /// once, not at every exchange.
    let changeSealingPublicKey: String

    /// The names the keys are stored under in `secrets` (the signing keys only by servers
    /// before they rotated: each moves to the signing keys at the next start).
    enum StoredName {
        static let activation = "activation-signing-key"
        static let idTokens = "oidc-id-token-signing-key"
        static let destinationTokens = "destination-token-signing-key"
        static let changeSealing = "change-sealing-key"
    }

    /// Reads the keys, making those not there yet; `storage` is open and migrated.
    static func load(serverKeyFile: URL, storage: ServerStorage, at now: Date) async throws -> ServerKeys {
        let server = try await ServerKey.load(file: serverKeyFile, storage: storage)
        let activationKeys = try await SigningKeyRing.load(
            .activation,
            legacyName: StoredName.activation,
            server: server,
            storage: storage,
            at: now
        )
        let changeSealing = try await server.storedPrivateKey(
            named: StoredName.changeSealing,
            storage: storage,
            plainLength: nil
        ) { SealingPrivateKey().rawRepresentation }
        let sealing = try SealingPrivateKey(rawRepresentation: changeSealing)
        return ServerKeys(
            server: server,
            activation: ActivationSigner(keys: activationKeys),
            activationKeys: activationKeys,
            idTokens: try await SigningKeyRing.load(
                .idToken,
                legacyName: StoredName.idTokens,
                server: server,
                storage: storage,
                at: now
            ),
            destinationTokens: try await SigningKeyRing.load(
                .destination,
                legacyName: StoredName.destinationTokens,
                server: server,
                storage: storage,
                at: now
            ),
            changeSealing: sealing,
            changeSealingPublicKey: sealing.publicKey.x963Representation.base64URLEncoded
        )
    }

    /// The ring of `purpose`.
    func ring(_ purpose: SigningKeyRing.Purpose) -> SigningKeyRing {
        switch purpose {
        case .idToken: idTokens
        case .destination: destinationTokens
        case .activation: activationKeys
        }
    }
}
