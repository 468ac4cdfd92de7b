import Crypto
import Foundation
import FuzzServer
import FuzzSupport
import GangwayProtocol
import HTTPTypes
import Synchronization

@testable import GangwayProtocol

// A device's change batches, through the whole server in-process: the JSON body's
// decoding, the seal (shared and single forms), the checks of each change, the author's
// signature, the entity set's rules, the merge and the transaction that ends them.
// Alice's registered device sends them; `$REGISTRATION` in the rest stands for its
// registration ID.
//
// Modes (first byte):
// 0  the rest as the body of `POST /apps/checks/changes/sealed`;
// 1  the rest as a change's signed bytes: given the device's registration, signed by
//    its author and sealed to the server in the shared form, as a device sends it;
// 2  the rest as a sealed change's plaintext (the binary form, or the JSON of earlier
//    versions), sealed to the server in the single form.

runFuzzer(fuzz)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(start, count).mode(of: 3) else { return 0 }
    let server = FuzzServer.shared
    let headers = FuzzServer.headers(contentType: "application/json", token: server.session)
    let body = rest.replacingPlaceholder("$REGISTRATION", with: server.registrationID)
    blocking {
        switch mode {
        case 0:
            await server.send(.post, "/apps/checks/changes/sealed", headers: headers, body: body)
        case 1:
            var sealed = Data()
            if var change = Change(signedBytes: Data(rest)) {
                change.registrationID = server.registrationID
                let signed = server.authorKey.sign(change)
                sealed = (try? ChangeSeal.seal(signed, under: Sealing.key(server))) ?? Data()
            } else {
                // Not a change: sealed all the same, as a device of another version might.
                sealed = Sealing.sealShared(Data(rest), server)
            }
            await server.send(.post, "/apps/checks/changes/sealed", headers: headers, body: Sealing.upload([sealed]))
        default:
            guard let sealed = try? HPKESeal.seal(Data(body), to: server.sealingKey, info: ChangeSeal.info) else {
                return
            }
            await server.send(.post, "/apps/checks/changes/sealed", headers: headers, body: Sealing.upload([sealed]))
        }
    }
    return 0
}

enum Sealing {
    /// One run's key, as a device's `ChangeSealer` keeps it.
    static func key(_ server: FuzzServer) -> SharedSealingKey {
        shared.withLock { key in
            if let key { return key }
            let made = try! ChangeSeal.newSharedKey(to: server.sealingKey)
            key = made
            return made
        }
    }

    private static let shared = Mutex<SharedSealingKey?>(nil)

    /// `plaintext` sealed in the shared form.
    static func sealShared(_ plaintext: Data, _ server: FuzzServer) -> Data {
        let key = key(server)
        let header = Data([ChangeSeal.sharedFormat]) + key.encapsulated
        return header + (try! AES.GCM.seal(plaintext, using: key.key, authenticating: header).combined!)
    }

    /// The body of a sealed upload.
    static func upload(_ sealed: [Data]) -> [UInt8] {
        Array(#"{"sealed":[\#(sealed.map { "\"\($0.base64URLEncoded)\"" }.joined(separator: ","))]}"#.utf8)
    }
}
