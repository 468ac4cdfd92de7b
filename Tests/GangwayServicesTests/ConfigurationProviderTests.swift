import Crypto
import Foundation
import GangwayProtocol
import GangwayScreens
import GangwayServices
import GangwaySystem
import GangwayTesting
import Testing

@Suite("Configuration providers are tried in their stated order and refuse what is not signed")
struct ConfigurationProviderTests {
    static func write(_ text: String, to file: URL) throws {
        try Data(text.utf8).write(to: file)
    }

    static func json(_ url: String, app: String = "checks", expires: String = "2999-01-01T00:00:00Z") -> String {
        #"{"serverURL": "\#(url)", "appID": "\#(app)", "appName": "Ground checks", "authType": "basic", "activationExpiresAt": "\#(expires)"}"#
    }

    @Test func managedGoesBeforeBundledAndAMissingFileIsSkipped() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-config")
        defer { directory.remove() }
        let bundled = FileConfigurationProvider(.bundled, file: directory.appending("bundled.json"))
        let managed = FileConfigurationProvider(.managed, file: directory.appending("managed.json"))
        let loader = ConfigurationLoader.standard([bundled, managed])
        #expect(try await loader.automatic() == nil)

        try Self.write(Self.json("https://bundled.example"), to: bundled.file)
        let fromBundled = try #require(try await loader.automatic())
        #expect(fromBundled.0.serverURL.host == "bundled.example" && fromBundled.1 == .bundled)

        try Self.write(Self.json("https://managed.example"), to: managed.file)
        let fromManaged = try #require(try await loader.automatic())
        #expect(fromManaged.0.serverURL.host == "managed.example" && fromManaged.1 == .managed)
    }

    @Test(arguments: [
        ("not json", "not valid JSON"),
        (#"{"appID": "checks", "appName": "x", "authType": "basic"}"#, "serverURL is missing"),
        (json("ftp://files.example"), "must start with http:// or https://"),
        (json("https://ok.example", app: "-bad app"), "appID"),
        (#"{"serverURL": "https://ok.example", "appID": "checks", "appName": "x", "authType": "saml"}"#, "authType"),
    ])
    func aBrokenFileIsAnErrorNotSkipped(text: String, reason: String) async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-config")
        defer { directory.remove() }
        let provider = FileConfigurationProvider(.managed, file: directory.appending("managed.json"))
        try Self.write(text, to: provider.file)
        do {
            _ = try await provider.configuration()
            Issue.record("a broken file was accepted")
        } catch {
            #expect(error == .malformed)
            #expect(error.description.contains(reason))
        }
    }

    @Test func theWelcomeScreenOffersTheMethodsInProviderOrder() throws {
        let key = P256.Signing.PrivateKey().publicKey
        let loader = ConfigurationLoader.standard([
            DiscoveryProvider(discoveryURL: URL(string: "http://127.0.0.1:1")!),
            SignedActivationProvider.qrCode(pinnedKey: key),
            FileConfigurationProvider(.bundled, file: URL(fileURLWithPath: "/nonexistent/bundled.json")),
            SignedActivationProvider.link(pinnedKey: key),
        ])
        #expect(loader.providers.map(\.source) == [.bundled, .activationLink, .qrCode, .discovery])
        #expect(loader.activationMethods == [.link, .qrCode, .email])
    }

    @Test func aLinkVerifiesOnlyAgainstThePinnedKey() throws {
        let signer = P256.Signing.PrivateKey()
        let payload = Data(Self.json("https://ms.airline.example").utf8)
        let signature = try signer.signature(for: payload).rawRepresentation
        let link = "gangway://activate?payload=\(payload.base64URLEncoded)&signature=\(signature.base64URLEncoded)"

        let configuration = try ActivationLink(link).verified(with: signer.publicKey)
        #expect(configuration.appID == "checks" && configuration.serverURL.host == "ms.airline.example")

        #expect(throws: ConfigurationError.badSignature) {
            try ActivationLink(link).verified(with: P256.Signing.PrivateKey().publicKey)
        }
        var bytes = [UInt8](signature)
        bytes[10] ^= 0x01
        let flipped = "gangway://activate?payload=\(payload.base64URLEncoded)&signature=\(Data(bytes).base64URLEncoded)"
        #expect(throws: ConfigurationError.badSignature) {
            try ActivationLink(flipped).verified(with: signer.publicKey)
        }
    }

    @Test("a signed link without an expiry, or past it, is refused; before it, taken")
    func aLinkExpires() throws {
        let signer = P256.Signing.PrivateKey()
        func link(_ json: String) throws -> ActivationLink {
            let payload = Data(json.utf8)
            let signature = try signer.signature(for: payload).rawRepresentation
            return try ActivationLink(
                "gangway://activate?payload=\(payload.base64URLEncoded)&signature=\(signature.base64URLEncoded)"
            )
        }
        let expiring = try link(Self.json("https://ms.airline.example", expires: "2026-11-30T00:00:00Z"))
        let before = Date(timeIntervalSince1970: 1_795_996_800 - 1)
        #expect(try expiring.verified(with: signer.publicKey, now: before).appID == "checks")
        #expect(throws: ConfigurationError.expired) {
            try expiring.verified(with: signer.publicKey, now: before.addingTimeInterval(2))
        }
        let timeless = try link(
            #"{"serverURL": "https://ms.airline.example", "appID": "checks", "appName": "G", "authType": "basic"}"#
        )
        #expect(throws: ConfigurationError.expired) { try timeless.verified(with: signer.publicKey) }
    }

    @Test(arguments: [
        "https://ms.airline.example/activate?payload=e30&signature=e30",
        "gangway://activate?payload=e30",
        "gangway://activate?payload=e30&signature=e30&signature=e30",
        "gangway://activate?payload=%%%&signature=e30",
        "gangway://other?payload=e30&signature=e30",
        "",
    ])
    func whatIsNotALinkIsRefused(text: String) {
        #expect(throws: ConfigurationError.invalidLink) { try ActivationLink(text) }
    }

    @Test(
        .enabled(
            if: QRCodeDecoder().executable != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/qrencode")
        )
    )
    func aQRCodeImageIsReadThroughZbar() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-qr")
        defer { directory.remove() }
        let signer = P256.Signing.PrivateKey()
        let payload = Data(Self.json("https://ms.airline.example").utf8)
        let signature = try signer.signature(for: payload).rawRepresentation
        let link = "gangway://activate?payload=\(payload.base64URLEncoded)&signature=\(signature.base64URLEncoded)"
        let png = directory.appending("code.png")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/qrencode")
        process.arguments = ["--type=PNG", "--output=\(png.path)", "--", link]
        try process.start()
        try await process.exit()
        #expect(process.terminationStatus == 0)

        let provider = SignedActivationProvider.qrCode(pinnedKey: signer.publicKey)
        let configuration = try await provider.configuration(for: .qrCode(png.path))
        #expect(configuration?.serverURL.host == "ms.airline.example")

        let notPNG = directory.appending("code.txt")
        try Self.write("hello", to: notPNG)
        let notAnImage = await #expect(throws: ConfigurationError.notAnImage) {
            _ = try await provider.configuration(for: .qrCode(notPNG.path))
        }
        #expect(notAnImage?.summary == "That file is not a PNG image.")
        // A FIFO (no writer would ever come) and a directory are no images either, and never block.
        let fifo = directory.appending("scan.png.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        for path in [fifo.path, directory.url.path] {
            await #expect(throws: ConfigurationError.notAnImage) {
                _ = try await provider.configuration(for: .qrCode(path))
            }
        }
        // A path to nothing says so; text that is no path is not a code.
        let missing = await #expect(throws: ConfigurationError.imageNotFound) {
            _ = try await provider.configuration(for: .qrCode(directory.appending("scan.png").path))
        }
        #expect(missing?.summary == "There is no file at that path.")
        await #expect(throws: ConfigurationError.invalidLink) {
            _ = try await provider.configuration(for: .qrCode("hello"))
        }
        // A white PNG holds no code at all.
        let blank = directory.appending("blank.png")
        let encode = Process()
        encode.executableURL = URL(fileURLWithPath: "/usr/bin/qrencode")
        encode.arguments = ["--type=PNG", "--output=\(blank.path)", "--", "x"]
        try encode.start()
        try await encode.exit()
        var bytes = try Data(contentsOf: blank)
        bytes.removeSubrange(40..<min(bytes.count, 80))
        try bytes.write(to: blank)
        await #expect(throws: ConfigurationError.unreadableQRCode) {
            _ = try await provider.configuration(for: .qrCode(blank.path))
        }
    }

    @Test func withoutZbarAnImageIsAClearError() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-qr")
        defer { directory.remove() }
        let png = directory.appending("code.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]).write(to: png)
        let provider = SignedActivationProvider.qrCode(
            pinnedKey: P256.Signing.PrivateKey().publicKey,
            decoder: QRCodeDecoder(searchPath: ["/nonexistent/zbarimg"])
        )
        await #expect(throws: ConfigurationError.qrDecoderUnavailable) {
            _ = try await provider.configuration(for: .qrCode(png.path))
        }
    }
}
