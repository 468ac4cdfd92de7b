import Crypto
import Foundation
import FuzzSupport

@testable import GangwayProtocol
@testable import GangwayServer

// A sealed change, in both forms, as the server opens it (`ChangeSeal.open`,
// `sharedKeys`) and then checks it (`checkLimits`, the author's signature): anyone who
// reads the settings exchange has the server's sealing key and can seal any plaintext to
// it, so everything behind the seal is an attacker's too.
//
// Modes (first byte):
// 0  the rest as the sealed bytes, either form;
// 1  the rest as a plaintext (binary, `0x00 ‖ signature ‖ signed bytes`, or the JSON
//    of earlier versions, `{…}`), sealed in the shared form (`0x02 ‖ enc ‖ AES-GCM`);
// 2  the same plaintext, sealed in the single form (HPKE);
// 3  the rest as a change's signed bytes (`Change(signedBytes:)`).

runFuzzer(fuzz)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(start, count).mode(of: 4) else { return 0 }
    let bytes = Data(rest)
    switch mode {
    case 0:
        let keys = ChangeSeal.sharedKeys(of: [bytes], with: Keys.server)
        serverChecks(try? ChangeSeal.open(bytes, with: Keys.server, sharedKeys: keys))
        serverChecks(try? ChangeSeal.open(bytes, with: Keys.server))
    case 1:
        serverChecks(try? ChangeSeal.open(Keys.sealShared(bytes), with: Keys.server))
    case 2:
        guard let sealed = try? HPKESeal.seal(bytes, to: Keys.server.publicKey, info: ChangeSeal.info) else { return 0 }
        serverChecks(try? ChangeSeal.open(sealed, with: Keys.server))
    default:
        guard let change = Change(signedBytes: bytes) else { return 0 }
        invariant(change.signedBytes == bytes, "a change read from its signed bytes writes them back")
        serverChecks(SignedChange(change: change, signature: Data(repeating: 1, count: 64)))
    }
    return 0
}

/// Fixed keys, so an input does the same at every run.
enum Keys {
    static let server = try! SealingPrivateKey(rawRepresentation: Data(repeating: 7, count: 32))
    static let author = try! ChangeSigningKey(rawRepresentation: Data(repeating: 9, count: 32))
    static let shared = try! ChangeSeal.newSharedKey(to: server.publicKey)

    /// `plaintext` in the shared form, as a device's `ChangeSealer` seals a change.
    static func sealShared(_ plaintext: Data) -> Data {
        let header = Data([ChangeSeal.sharedFormat]) + shared.encapsulated
        return header + (try! AES.GCM.seal(plaintext, using: shared.key, authenticating: header).combined!)
    }
}

/// What the server does with a change that opened: the document's limits, then the
/// author's signature; and what a device does with one it keeps, which seals it again.
private func serverChecks(_ signed: SignedChange?) {
    guard let signed else { return }
    _ = try? ChangesHandler.checkLimits(signed)
    _ = signed.isSigned(by: Keys.author.verifyingKey)
    let resigned = Keys.author.sign(signed.change)
    invariant(resigned.isSigned(by: Keys.author.verifyingKey), "a change signed by its author verifies")
    guard let sealed = try? ChangeSeal.seal(resigned, under: Keys.shared) else {
        invariant(false, "a signed change seals")
        return
    }
    // The binary form carries what is signed: the change to the second.
    let opened = try? ChangeSeal.open(sealed, with: Keys.server)
    invariant(opened?.signature == resigned.signature, "a sealed change opens with its signature")
    invariant(opened?.change.signedBytes == resigned.change.signedBytes, "a sealed change opens as it was signed")
}
