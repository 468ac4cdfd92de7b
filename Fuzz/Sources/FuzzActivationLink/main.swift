import Crypto
import Foundation
import FuzzSupport
import GangwayProtocol
import GangwayServices

@testable import GangwayServer

// Activation links and the QR codes that carry them, as a device reads them: the link's
// text (`ActivationLink.init`), its signature against the pinned key and the signed
// configuration (`verified(with:now:)`, `AppConfiguration.decode`). The text of a QR code
// or a link a person was sent is anyone's.
//
// Modes (first byte):
// 0  the rest as a link's (or QR code's) text;
// 1  the rest as a payload the server's key signed, in a link made as the server makes it;
// 2  the rest as an app's name, in an activation the server makes (`ActivationSigner.activation`),
//    which a device must read back exactly;
// 3  the rest as a configuration file (bundled or managed).

runFuzzer(fuzz)

@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(start, count).mode(of: 4) else { return 0 }
    switch mode {
    case 0:
        guard let link = try? ActivationLink(rest.text) else { return 0 }
        invariant(!link.payload.isEmpty && !link.signature.isEmpty, "a link has a payload and a signature")
        _ = try? link.verified(with: Keys.pinned, now: Keys.now)
    case 1:
        guard let signature = try? Keys.signer.signature(for: Data(rest)).rawRepresentation else {
            invariant(false, "the server's key signs any payload")
            return 0
        }
        let text = "gangway://activate?payload=\(Data(rest).base64URLEncoded)&signature=\(signature.base64URLEncoded)"
        guard !rest.isEmpty else { return 0 }
        guard let link = try? ActivationLink(text) else {
            invariant(false, "a link made as the server makes it reads")
            return 0
        }
        invariant(link.payload == Data(rest), "a link carries its payload unchanged")
        _ = try? link.verified(with: Keys.pinned, now: Keys.now)
    case 2:
        serverMadeActivation(appName: rest.text)
    default:
        _ = try? AppConfiguration.decode(Data(rest))
    }
    return 0
}

enum Keys {
    static let signer = try! P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 3, count: 32))
    /// The key an app pinned: the signer's.
    static let pinned = signer.publicKey
    /// The chain of a server whose activation key has not rotated: the signer's key alone.
    static let chain = try! ActivationKeyChain(keys: [pinned], endorsements: [])
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
}

/// What `POST /admin/apps/{appID}/activations` makes for an app of this name, read by a
/// device: the same configuration.
private func serverMadeActivation(appName: String) {
    let configuration = Components.Schemas.AppConfiguration(
        serverURL: "https://ms.airline.example",
        appID: "checks",
        appName: appName,
        authType: .basic,
        activationExpiresAt: Keys.now.addingTimeInterval(7 * 24 * 3600),
        activationNonce: "AAECAwQFBgcICQoLDA0ODw"
    )
    guard
        let activation = try? ActivationSigner.activation(
            for: configuration,
            signedBy: Keys.signer,
            chain: Keys.chain
        )
    else {
        invariant(false, "the server makes an activation for any app name")
        return
    }
    let read: AppConfiguration
    do {
        read = try ActivationLink(activation.link).verified(with: Keys.pinned, now: Keys.now)
    } catch {
        invariant(false, "a device reads the activation the server made (\(error))")
        return
    }
    invariant(read.appName == appName, "the app's name arrives unchanged")
    invariant(
        read.appID == "checks" && read.serverURL.absoluteString == "https://ms.airline.example",
        "the app arrives"
    )
}
