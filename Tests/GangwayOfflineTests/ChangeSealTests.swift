import Foundation
import Testing

@testable import GangwayOffline

@Suite("A change sealed to the server opens only with the server's key")
struct ChangeSealTests {
    static let signed = ChangeSigningKey().sign(ChangeSignatureTests.change)

    @Test func theServerOpensWhatADeviceSealedAndTheSignatureStillHolds() throws {
        let server = SealingPrivateKey()
        let published = try SealingPublicKey(x963Representation: server.publicKey.x963Representation)
        let sealed = try ChangeSeal.seal(Self.signed, to: published)
        let opened = try ChangeSeal.open(sealed, with: server)
        #expect(opened == Self.signed)
        let kept = try SealingPrivateKey(rawRepresentation: server.rawRepresentation)
        #expect(try ChangeSeal.open(sealed, with: kept) == Self.signed)
    }

    @Test func noValueOfTheChangeIsInTheSealedBytes() throws {
        let sealed = try ChangeSeal.seal(Self.signed, to: SealingPrivateKey().publicKey)
        for value in ["8.2 bar", "done", "reading", "A320-tyres", "alice"] {
            #expect(sealed.range(of: Data(value.utf8)) == nil, "\(value)")
        }
        let again = try ChangeSeal.seal(Self.signed, to: SealingPrivateKey().publicKey)
        #expect(sealed != again, "each seal is fresh")
    }

    @Test func anotherKeyAnAlteredByteOrACutOpenNothing() throws {
        let server = SealingPrivateKey()
        let sealed = try ChangeSeal.seal(Self.signed, to: server.publicKey)
        #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(sealed, with: SealingPrivateKey()) }
        for index in [0, 64, 65, sealed.count - 1] {
            var altered = sealed
            altered[altered.startIndex + index] ^= 0x01
            #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(altered, with: server) }
        }
        for bytes in [
            Data(), Data(sealed.prefix(65)), Data(sealed.prefix(80)), Data(count: ChangeSeal.maximumLength + 1),
        ] {
            #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(bytes, with: server) }
        }
        #expect(throws: ChangeKeyError.invalidKey) { try SealingPublicKey(x963Representation: Data(count: 65)) }
    }
}
