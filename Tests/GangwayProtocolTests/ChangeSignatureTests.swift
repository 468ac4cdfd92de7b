import Crypto
import Foundation
import Testing

@testable import GangwayProtocol

@Suite("A change is signed by its author, and nothing else verifies")
struct ChangeSignatureTests {
    static let change = Change(
        id: UUID(uuidString: "6F1C2E0A-8B3D-4C5E-9F70-112233445566")!,
        registrationID: "reg-alice",
        author: "alice",
        sequence: 7,
        entitySet: "checks",
        entityID: "A320-tyres",
        baseVersion: 3,
        fields: ["status": "done", "reading": "8.2 bar"],
        madeAt: Date(timeIntervalSince1970: 1_800_000_000.75)
    )

    @Test func theAuthorsSignatureVerifiesWithTheirRegisteredKey() throws {
        let key = ChangeSigningKey()
        let signed = key.sign(Self.change)
        let registered = try ChangeVerifyingKey(x963Representation: key.verifyingKey.x963Representation)
        #expect(signed.isSigned(by: registered))
        #expect(signed.signature.count == 64)
        let restored = try ChangeSigningKey(rawRepresentation: key.rawRepresentation)
        #expect(restored.sign(Self.change).isSigned(by: registered), "the kept key signs as the first")
    }

    @Test func anotherUsersKeyDoesNotVerify() {
        let signed = ChangeSigningKey().sign(Self.change)
        #expect(!signed.isSigned(by: ChangeSigningKey().verifyingKey))
    }

    /// Each part of a change, altered after signing.
    static let alterations: [(String, @Sendable (inout Change) -> Void)] = [
        ("id", { $0.id = UUID() }),
        ("registration", { $0.registrationID = "reg-bob" }),
        ("author", { $0.author = "bob" }),
        ("sequence", { $0.sequence = 8 }),
        ("entity set", { $0.entitySet = "fuel" }),
        ("entity", { $0.entityID = "A321-tyres" }),
        ("base version", { $0.baseVersion = 4 }),
        ("no base version", { $0.baseVersion = nil }),
        ("a value", { $0.fields["status"] = "open" }),
        ("a field added", { $0.fields["note"] = "" }),
        ("a field removed", { $0.fields["reading"] = nil }),
        ("a value moved to another field", { $0.fields = ["status": "8.2 bar", "reading": "done"] }),
        ("the time", { $0.madeAt = $0.madeAt.addingTimeInterval(1) }),
    ]

    @Test(arguments: alterations.map(\.0))
    func anyPartAlteredAfterSigningFailsTheSignature(part: String) {
        let key = ChangeSigningKey()
        var signed = key.sign(Self.change)
        Self.alterations.first { $0.0 == part }!.1(&signed.change)
        #expect(signed.change != Self.change)
        #expect(!signed.isSigned(by: key.verifyingKey))
    }

    @Test func fieldBoundariesCannotBeShiftedBetweenNameAndValue() {
        var one = Self.change
        one.fields = ["ab": "c"]
        var other = Self.change
        other.fields = ["a": "bc"]
        #expect(one.signedBytes != other.signedBytes)
    }

    @Test func theSignedBytesDoNotDependOnDictionaryOrderOrSubSecondTime() {
        var reordered = Self.change
        reordered.fields = [:]
        for name in Self.change.fields.keys.sorted().reversed() { reordered.fields[name] = Self.change.fields[name] }
        #expect(reordered.signedBytes == Self.change.signedBytes)
        #expect(Self.change.madeAt == Date(timeIntervalSince1970: 1_800_000_000), "kept to the second")
    }

    @Test func aDamagedSignatureOrKeyIsRefusedWithoutCrashing() throws {
        let key = ChangeSigningKey()
        var signed = key.sign(Self.change)
        signed.signature = Data(signed.signature.prefix(63))
        #expect(!signed.isSigned(by: key.verifyingKey))
        signed.signature = Data(repeating: 0, count: 64)
        #expect(!signed.isSigned(by: key.verifyingKey))
        #expect(throws: ChangeKeyError.invalidKey) { try ChangeVerifyingKey(x963Representation: Data([4, 1, 2])) }
        #expect(throws: ChangeKeyError.invalidKey) { try ChangeSigningKey(rawRepresentation: Data(count: 5)) }
    }

    @Test func aSignatureForAnotherPurposeIsNotAChangeSignature() throws {
        // The same key signing the bare fields (no label) does not make a change signature.
        let raw = P256.Signing.PrivateKey()
        let key = try ChangeSigningKey(rawRepresentation: raw.rawRepresentation)
        let unlabelled = Data(Self.change.signedBytes.dropFirst(8 + Change.signatureLabel.utf8.count))
        let signature = try raw.signature(for: unlabelled).rawRepresentation
        #expect(!SignedChange(change: Self.change, signature: signature).isSigned(by: key.verifyingKey))
    }
}
