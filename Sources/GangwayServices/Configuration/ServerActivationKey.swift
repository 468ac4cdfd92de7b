import Crypto
import Foundation
import GangwayProtocol

/// The key a server signs activation links with now, as it shows it (`GET /activation-key`),
/// with the chain of endorsed keys that leads to it from the server's first key once the
/// key has been rotated (``ActivationKeyChain``).
public struct ServerActivationKey: Sendable {
    /// The key, in PEM.
    public let pem: String
    /// The key.
    public let key: P256.Signing.PublicKey
    /// From the server's first key to ``key``; `nil` while the first key signs.
    public let chain: ActivationKeyChain?

    /// The key the server shows, checked: a P-256 key in PEM, and the newest of its chain.
    /// - Throws: ``ConfigurationError/malformed`` when the key is not a P-256 key or the
    ///   chain cannot be read or ends elsewhere.
    public init(pem: String, chain encodedChain: String?) throws(ConfigurationError) {
        let key = try SignedActivationProvider.pinnedKey(pem: pem)
        var chain: ActivationKeyChain?
        if let encodedChain {
            guard let bytes = Data(base64URLEncoded: encodedChain),
                let read = try? ActivationKeyChain(encoded: bytes),
                read.newest.x963Representation == key.x963Representation
            else {
                throw .malformed("the server's chain of activation keys does not lead to its key")
            }
            chain = read
        }
        self.pem = pem
        self.key = key
        self.chain = chain
    }

    /// Whether a device that pinned `pinned` may trust this key: it is `pinned`, or its
    /// chain holds `pinned`, every key after it endorsed by the one before.
    public func follows(from pinned: P256.Signing.PublicKey) -> Bool {
        key.x963Representation == pinned.x963Representation || chain?.leads(from: pinned) == true
    }
}
