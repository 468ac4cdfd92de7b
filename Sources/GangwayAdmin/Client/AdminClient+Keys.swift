import Foundation
import GangwayClient
import GangwayProtocol
import OpenAPIRuntime

/// The server's signing keys, through the admin API: by `kid`, never the key.
extension AdminClient {
    // MARK: Signing keys

    /// The key that signs each purpose, and the retired keys still published.
    public func signingKeys() async throws(ServiceError) -> [ManagedSigningKey] {
        let output = try await ServiceCall.run(at: serverURL) { try await client.listSigningKeys() }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Rotates `purpose`'s key: a new key is published now and signs after the server's
    /// publication lead (at once when `immediately`), and the old one stays published
    /// until the tokens it signed have expired. An activation key signs at once, endorsed
    /// by the one before; `dropOldest` drops the oldest of its chain (for the activation
    /// key alone). The new key.
    public func rotateSigningKey(
        _ purpose: SigningKeyPurpose,
        immediately: Bool = false,
        dropOldest: Bool = false
    ) async throws(ServiceError) -> ManagedSigningKey {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.rotateSigningKey(
                path: .init(purpose: purpose),
                query: .init(immediately: immediately ? true : nil, dropOldest: dropOldest ? true : nil)
            )
        }
        switch output {
        case .created(let created): return try ServiceCall.decode { try created.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }
}

/// One of the server's signing keys as the admin API shows it: the API's own type.
public typealias ManagedSigningKey = Components.Schemas.SigningKey

/// What a signing key signs: `id-token`, `destination` or `activation`.
public typealias SigningKeyPurpose = Components.Schemas.SigningKeyPurpose
