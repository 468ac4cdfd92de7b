import Crypto
import Foundation
import Testing

@testable import GangwayProtocol

/// The chain of activation keys a link carries: each key after the first endorsed by the
/// one before, read back exactly, and refused whole when any byte of it was changed.
@Suite("Activation key chains: each key endorsed by the one before, and any change refused")
struct ActivationKeyChainTests {
    /// A chain of `count` new keys, and their private halves.
    static func chain(_ count: Int) throws -> (chain: ActivationKeyChain, keys: [P256.Signing.PrivateKey]) {
        let keys = (0..<count).map { _ in P256.Signing.PrivateKey() }
        let endorsements = try zip(keys, keys.dropFirst()).map { previous, key in
            try ActivationKeyChain.endorsement(of: key.publicKey, by: previous)
        }
        return (try ActivationKeyChain(keys: keys.map(\.publicKey), endorsements: endorsements), keys)
    }

    @Test("encoded, read back the same: 33 bytes for the first key and 97 for each after it", arguments: 1...8)
    func roundTrip(count: Int) throws {
        let (chain, keys) = try Self.chain(count)
        #expect(chain.encoded.count == 33 + 97 * (count - 1))
        let read = try ActivationKeyChain(encoded: chain.encoded)
        #expect(read.keys.map(\.x963Representation) == keys.map(\.publicKey.x963Representation))
        #expect(read.newest.x963Representation == keys[count - 1].publicKey.x963Representation)
        #expect(read.encoded == chain.encoded)
        for key in keys { #expect(read.leads(from: key.publicKey)) }
        #expect(!read.leads(from: P256.Signing.PrivateKey().publicKey))
    }

    @Test("every byte of a three-key chain, changed, makes the chain refused")
    func everyByteMatters() throws {
        let encoded = try Self.chain(3).chain.encoded
        for index in encoded.indices {
            var changed = encoded
            changed[index] ^= 0x40
            #expect(throws: ActivationKeyChain.Failure.self, "byte \(index)") {
                try ActivationKeyChain(encoded: changed)
            }
        }
    }

    @Test("an endorsement is a signature over the label and both keys: no other signature of the key passes for one")
    func endorsementIsLabelled() throws {
        let previous = P256.Signing.PrivateKey()
        let next = P256.Signing.PrivateKey().publicKey
        let keys = [previous.publicKey, next]
        for other in [
            next.x963Representation, next.compressedRepresentation,
            ActivationKeyChain.endorsedBytes(of: next, by: next),
            ActivationKeyChain.endorsedBytes(of: previous.publicKey, by: previous.publicKey),
        ] {
            let signature = try previous.signature(for: other).rawRepresentation
            let error = #expect(throws: ActivationKeyChain.Failure.self) {
                try ActivationKeyChain(keys: keys, endorsements: [signature])
            }
            #expect(error?.code == .notEndorsed)
        }
        let good = try ActivationKeyChain.endorsement(of: next, by: previous)
        #expect(try ActivationKeyChain(keys: keys, endorsements: [good]).keys.count == 2)
        // The label is the contract's: a change of it is a change of every device's check.
        #expect(
            ActivationKeyChain.endorsedBytes(of: next, by: previous.publicKey).prefix(38)
                == Data("gangway activation key endorsement v1\n".utf8)
        )
    }

    @Test("endorsements out of order, a count that does not fit, too many keys, or no key are refused with a code")
    func malformed() throws {
        let (chain, keys) = try Self.chain(3)
        let publicKeys = keys.map(\.publicKey)
        /// The code of the failure `body` throws; `nil` when it throws none.
        func code(_ body: () throws -> ActivationKeyChain) -> ActivationKeyChain.Failure.Code? {
            do {
                _ = try body()
                return nil
            } catch {
                return (error as? ActivationKeyChain.Failure)?.code ?? .init(rawValue: "NOT_A_FAILURE")
            }
        }
        let swapped = [chain.endorsements[1], chain.endorsements[0]].map(\.rawRepresentation)
        #expect(code { try ActivationKeyChain(keys: publicKeys, endorsements: swapped) } == .notEndorsed)
        #expect(code { try ActivationKeyChain(keys: publicKeys, endorsements: []) } == .malformed)
        #expect(code { try ActivationKeyChain(keys: [], endorsements: []) } == .malformed)
        #expect(code { try ActivationKeyChain(encoded: Data()) } == .malformed)
        #expect(code { try ActivationKeyChain(encoded: chain.encoded.dropLast()) } == .malformed)
        #expect(code { try ActivationKeyChain(encoded: chain.encoded + Data(count: 97)) } == .malformed)

        // One key more than a chain holds, each endorsed: refused before any is checked.
        var previous = P256.Signing.PrivateKey()
        var (longKeys, longEndorsements) = ([previous.publicKey], [Data]())
        var longEncoded = previous.publicKey.compressedRepresentation
        for _ in 0..<ActivationKeyChain.maximumKeys {
            let next = P256.Signing.PrivateKey()
            let endorsement = try ActivationKeyChain.endorsement(of: next.publicKey, by: previous)
            longKeys.append(next.publicKey)
            longEndorsements.append(endorsement)
            longEncoded += endorsement + next.publicKey.compressedRepresentation
            previous = next
        }
        #expect(code { try ActivationKeyChain(keys: longKeys, endorsements: longEndorsements) } == .tooLong)
        #expect(code { try ActivationKeyChain(encoded: longEncoded) } == .tooLong)
        #expect(
            code {
                try ActivationKeyChain(keys: Array(longKeys.prefix(8)), endorsements: Array(longEndorsements.prefix(7)))
            } == nil
        )
    }
}
