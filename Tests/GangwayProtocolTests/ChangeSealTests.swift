import Foundation
import Testing

@testable import GangwayProtocol

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

    @Test func aRunOfOneAuthorsChangesSharesOneKeyThatOnlyTheServerDerives() throws {
        let server = SealingPrivateKey()
        let sealer = ChangeSealer()
        let key = ChangeSigningKey()
        let changes = (1...3).map { sequence in
            var change = ChangeSignatureTests.change
            change.id = UUID()
            change.sequence = Int64(sequence)
            return key.sign(change)
        }
        let run = try changes.map { try sealer.seal($0, registrationID: "reg-alice", to: server.publicKey) }
        #expect(Set(run.map { $0.prefix(ChangeSeal.sharedHeaderLength) }).count == 1)
        #expect(run.allSatisfy { $0.first == ChangeSeal.sharedFormat })
        #expect(try run.map { try ChangeSeal.open($0, with: server) } == changes)
        let keys = ChangeSeal.sharedKeys(of: run, with: server)
        #expect(keys.count == 1)
        #expect(try run.map { try ChangeSeal.open($0, with: server, sharedKeys: keys) } == changes)
        for (index, sealed) in run.enumerated() {
            for value in ["8.2 bar", "done", "reading", "A320-tyres", "alice"] {
                #expect(sealed.range(of: Data(value.utf8)) == nil, "\(value) in change \(index)")
            }
        }
        // Another author, or another server key, starts a run of its own.
        let bob = try sealer.seal(changes[0], registrationID: "reg-bob", to: server.publicKey)
        #expect(bob.prefix(ChangeSeal.sharedHeaderLength) != run[0].prefix(ChangeSeal.sharedHeaderLength))
        let other = SealingPrivateKey()
        let moved = try sealer.seal(changes[0], registrationID: "reg-alice", to: other.publicKey)
        #expect(moved.prefix(ChangeSeal.sharedHeaderLength) != run[0].prefix(ChangeSeal.sharedHeaderLength))
        #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(moved, with: server) }
        #expect(try ChangeSeal.open(moved, with: other) == changes[0])
    }

    @Test func aRunEndsAfterItsLimitOfChanges() throws {
        let server = SealingPrivateKey()
        let sealer = ChangeSealer()
        let headers = try (0...ChangeSealer.changesPerKey).map { _ in
            try sealer.seal(Self.signed, registrationID: "reg-alice", to: server.publicKey)
                .prefix(ChangeSeal.sharedHeaderLength)
        }
        #expect(Set(headers.dropLast()).count == 1)
        #expect(headers.last != headers.first)
    }

    @Test func aChangeOfARunThatIsAlteredOrCutOpensNothingAndTheOthersStillOpen() throws {
        let server = SealingPrivateKey()
        let sealer = ChangeSealer()
        let sealed = try sealer.seal(Self.signed, registrationID: "reg-alice", to: server.publicKey)
        let keys = ChangeSeal.sharedKeys(of: [sealed], with: server)
        // The format byte, the encapsulated key, the nonce, the ciphertext and the tag.
        for index in [1, 30, 65, 66, 70, 80, sealed.count - 17, sealed.count - 1] {
            var altered = sealed
            altered[altered.startIndex + index] ^= 0x01
            #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(altered, with: server) }
            #expect(throws: ChangeSealError.unreadable) {
                try ChangeSeal.open(
                    altered,
                    with: server,
                    sharedKeys: ChangeSeal.sharedKeys(of: [altered], with: server)
                )
            }
            #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(altered, with: server, sharedKeys: keys) }
        }
        for cut in [1, ChangeSeal.sharedHeaderLength, ChangeSeal.sharedHeaderLength + 12, sealed.count - 1] {
            #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(Data(sealed.prefix(cut)), with: server) }
        }
        #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(sealed, with: SealingPrivateKey()) }
        // A key that does not derive is left out; the changes of good runs still open.
        var badKey = sealed
        badKey.replaceSubrange(1..<66, with: Data(count: 65))
        let mixed = ChangeSeal.sharedKeys(of: [badKey, sealed], with: server)
        #expect(mixed.count == 1)
        #expect(try ChangeSeal.open(sealed, with: server, sharedKeys: mixed) == Self.signed)
        #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(badKey, with: server, sharedKeys: mixed) }
        // Keys given for a batch are the only ones tried: one left out is not derived again.
        #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(sealed, with: server, sharedKeys: [:]) }
        #expect(try ChangeSeal.open(sealed, with: server) == Self.signed)
    }

    /// Found by the `sealed-change` and `change-batch` fuzzing harnesses: a time past
    /// what a millisecond count holds trapped the server as it stored the change.
    @Test(arguments: [9.3e15, -1e17, 253_402_300_800])
    func aTimeNoDeviceMakesOpensNothing(seconds: Double) throws {
        let server = SealingPrivateKey()
        var change = ChangeSignatureTests.change
        change.madeAt = Date(timeIntervalSince1970: seconds)
        let signed = ChangeSigningKey().sign(change)
        // In the signed bytes, the form devices send now.
        #expect(Change(signedBytes: change.signedBytes) == nil)
        let sealed = try ChangeSeal.seal(signed, to: server.publicKey)
        #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(sealed, with: server) }
        // In JSON, as earlier versions sealed it.
        let json = try HPKESeal.seal(try ChangeSeal.encoder.encode(signed), to: server.publicKey, info: ChangeSeal.info)
        #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(json, with: server) }
    }

    @Test func aChangeSealedAsJSONByAnEarlierVersionStillOpens() throws {
        let server = SealingPrivateKey()
        let json = try ChangeSeal.encoder.encode(Self.signed)
        #expect(json.first == UInt8(ascii: "{"))
        let sealed = try HPKESeal.seal(json, to: server.publicKey, info: ChangeSeal.info)
        #expect(try ChangeSeal.open(sealed, with: server) == Self.signed)
        // A plaintext of neither form opens nothing.
        for plaintext in [
            Data([7]) + Self.signed.signature + Self.signed.change.signedBytes, Data([0]), Data("[]".utf8),
        ] {
            let other = try HPKESeal.seal(plaintext, to: server.publicKey, info: ChangeSeal.info)
            #expect(throws: ChangeSealError.unreadable) { try ChangeSeal.open(other, with: server) }
        }
    }
}

@Suite("A change's signed bytes read back as the change, and nothing else does")
struct SignedBytesReadingTests {
    static let changes = [
        ChangeSignatureTests.change,
        Change(
            registrationID: "reg-ünïcode",
            author: "Zoë",
            sequence: Int64.max,
            entitySet: "checks",
            entityID: "A321-new",
            baseVersion: nil,
            fields: ["note": "café ☕️ \u{0}", "": "", "status": String(repeating: "x", count: 1024)],
            madeAt: Date(timeIntervalSince1970: -1)
        ),
        Change(
            registrationID: "r",
            author: "a",
            sequence: 1,
            entitySet: "s",
            entityID: "e",
            baseVersion: 0,
            fields: [:],
            madeAt: Date(timeIntervalSince1970: 1_800_000_000.75)
        ),
    ]

    @Test(arguments: changes)
    func readsBack(change: Change) {
        #expect(Change(signedBytes: change.signedBytes) == change)
    }

    @Test func cutAtAnyLengthOrWithABytePastTheEndIsNoChange() {
        let bytes = ChangeSignatureTests.change.signedBytes
        for length in 0..<bytes.count {
            #expect(Change(signedBytes: Data(bytes.prefix(length))) == nil, "cut at \(length)")
        }
        #expect(Change(signedBytes: bytes + Data([0])) == nil)
    }

    @Test func anotherLabelAnUppercaseIDALengthPastTheEndOrBadUTF8IsNoChange() {
        let change = ChangeSignatureTests.change
        var bytes = change.signedBytes
        let id = change.id.uuidString.lowercased()
        // The label's first letter.
        var relabelled = bytes
        relabelled[relabelled.startIndex + 8] = UInt8(ascii: "G")
        #expect(Change(signedBytes: relabelled) == nil)
        // The same ID, in capitals: one form only.
        let idRange = bytes.range(of: Data(id.utf8))!
        var capitals = bytes
        capitals.replaceSubrange(idRange, with: Data(id.uppercased().utf8))
        #expect(Change(signedBytes: capitals) == nil)
        // The label's length, past the end.
        var long = bytes
        long.replaceSubrange(long.startIndex..<(long.startIndex + 8), with: Data(repeating: 0x7f, count: 8))
        #expect(Change(signedBytes: long) == nil)
        // A byte that is not UTF-8 in the author's name.
        let authorRange = bytes.range(of: Data(change.author.utf8))!
        bytes[authorRange.lowerBound] = 0xff
        #expect(Change(signedBytes: bytes) == nil)
    }
}
