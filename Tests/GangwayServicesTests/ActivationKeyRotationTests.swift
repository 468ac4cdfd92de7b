import Crypto
import Foundation
import GangwayAdmin
import GangwayFlows
import GangwayProtocol
import GangwayScreens
import GangwayServerTesting
import GangwayServices
import GangwayTesting
import Testing

/// The activation key rotates without stranding a device: each new key is endorsed by the
/// one before, links carry the chain from the first key, and a device that pinned any key
/// of the chain verifies them; one that moved its pin forward refuses links of older keys.
@Suite(
    "Activation keys: a rotation's links verify on devices that pinned any earlier key, and on no others",
    .servingTurn
)
struct ActivationKeyRotationTests {
    static func key(_ pem: String) throws -> P256.Signing.PublicKey {
        try SignedActivationProvider.pinnedKey(pem: pem)
    }

    @Test("each rotation is endorsed by the key before: links verify from every earlier pin, old links only from older")
    func chainOfRotations() async throws {
        try await TestServer.run(seed: .checks) { server in
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            let client = MobileServicesClient(serverURL: server.url)
            let first = try Self.key(server.pinnedActivationKeyPEM)
            let shownFirst = try await client.activationKey()
            #expect(shownFirst.chain == nil && shownFirst.pem == server.pinnedActivationKeyPEM)
            let before = try await admin.activationLink(app: "checks")
            #expect(!before.contains("chain="), "a server that never rotated makes the links it always made")

            let rotated = try await admin.rotateSigningKey(.activation)
            #expect(rotated.purpose == .activation && rotated.state == .signing && rotated.publishedUntil == nil)
            let second = try Self.key(try await server.activationKeyPEM())
            #expect(Data(SHA256.hash(data: second.x963Representation).prefix(16)).base64URLEncoded == rotated.kid)
            #expect(second.x963Representation != first.x963Representation)
            _ = try await admin.rotateSigningKey(.activation, immediately: false)
            let third = try Self.key(try await server.activationKeyPEM())

            let link = try await admin.activationLink(app: "checks")
            let parsed = try ActivationLink(link)
            #expect(parsed.chain?.keys.count == 3)
            for pinned in [first, second, third] {
                #expect(try parsed.verified(with: pinned).appID == "checks")
                #expect(try parsed.signer(trusting: pinned).x963Representation == third.x963Representation)
            }
            #expect(throws: ConfigurationError.badSignature) {
                try parsed.verified(with: P256.Signing.PrivateKey().publicKey)
            }
            // A link made before still verifies where its key is pinned, and not on a
            // device that pinned a later key: the chain goes forward only.
            #expect(try ActivationLink(before).verified(with: first).appID == "checks")
            #expect(throws: ConfigurationError.badSignature) { try ActivationLink(before).verified(with: second) }

            // What the server shows new devices: the newest key, and the chain that a device
            // holding an earlier pin follows.
            let shown = try await client.activationKey()
            #expect(shown.key.x963Representation == third.x963Representation)
            #expect(shown.follows(from: first) && shown.follows(from: second) && shown.follows(from: third))
            #expect(!shown.follows(from: P256.Signing.PrivateKey().publicKey))

            let listed = try await admin.signingKeys().filter { $0.purpose == .activation }
            #expect(listed.map(\.state) == [.signing, .published, .published], "\(listed)")
            #expect(listed.allSatisfy { $0.publishedUntil == nil })
        }
    }

    @Test("an app that pinned the first key onboards from a link its server signed after two rotations")
    func onboardsAcrossRotations() async throws {
        try await TestServer.run(seed: .checks) { server in
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            _ = try await admin.rotateSigningKey(.activation)
            _ = try await admin.rotateSigningKey(.activation)
            #expect(try await server.activationKeyPEM() != server.pinnedActivationKeyPEM)
            let device = try ServicesDevice(server: server, launchLink: try await admin.activationLink(app: "checks"))
            let app = try device.launch(.welcome(.signIn), .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            try app.presenter.verifyFinished()
            #expect(app.presenter.presented(WelcomeScreen.self).first?.configuration == .configured)
            #expect(try device.configurationStore.load()?.appID == "checks")
        }
    }

    @Test(
        "a link whose chain was altered is refused: an endorsement flipped, another chain, a key added, a stranger signing"
    )
    func alteredChains() async throws {
        try await TestServer.run(seed: .checks) { server in
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            let pinned = try Self.key(server.pinnedActivationKeyPEM)
            _ = try await admin.rotateSigningKey(.activation)
            let newest = try Self.key(try await server.activationKeyPEM())
            let made = try await admin.activationLink(app: "checks")
            let components = try #require(URLComponents(string: made))
            let items = try #require(components.queryItems)
            func item(_ name: String) throws -> Data {
                let text = try #require(items.first { $0.name == name }?.value)
                return try #require(Data(base64URLEncoded: text))
            }
            let (payload, signature, chain) = (try item("payload"), try item("signature"), try item("chain"))
            #expect(chain.count == 33 + 97)
            #expect(try ActivationLink(made).verified(with: pinned).appID == "checks")
            func link(signature: Data = signature, chain: Data?, extra: [URLQueryItem] = []) -> String {
                var altered = components
                altered.queryItems =
                    [
                        URLQueryItem(name: "payload", value: payload.base64URLEncoded),
                        URLQueryItem(name: "signature", value: signature.base64URLEncoded),
                    ] + (chain.map { [URLQueryItem(name: "chain", value: $0.base64URLEncoded)] } ?? []) + extra
                return altered.string ?? ""
            }
            func refused(_ text: String, _ error: ConfigurationError, _ why: Comment) {
                #expect(throws: error, why) { try ActivationLink(text).verified(with: pinned) }
            }

            // Without its chain, the link's signer is a key the device never pinned.
            refused(link(chain: nil), .badSignature, "chain dropped")
            // The endorsement's last byte flipped: the new key is not vouched for.
            var flipped = chain
            flipped[33 + 63] ^= 0x01
            refused(link(chain: flipped), .badSignature, "endorsement flipped")

            // A stranger's own chain, each key endorsed by the one before, that does not
            // hold the pinned key; and one that extends the real chain with its own key.
            let stranger = P256.Signing.PrivateKey()
            let strangerNext = P256.Signing.PrivateKey()
            let strangerSignature = try strangerNext.signature(for: payload).rawRepresentation
            let own = try ActivationKeyChain(
                keys: [stranger.publicKey, strangerNext.publicKey],
                endorsements: [try ActivationKeyChain.endorsement(of: strangerNext.publicKey, by: stranger)]
            )
            refused(link(signature: strangerSignature, chain: own.encoded), .badSignature, "a stranger's chain")
            var extended = chain
            extended.append(try ActivationKeyChain.endorsement(of: strangerNext.publicKey, by: stranger))
            extended.append(strangerNext.publicKey.compressedRepresentation)
            refused(link(signature: strangerSignature, chain: extended), .badSignature, "a stranger's key added")
            // The real chain, and a payload signed by someone else than its newest key.
            refused(link(signature: strangerSignature, chain: chain), .badSignature, "signed by a stranger")
            #expect(newest.x963Representation != strangerNext.publicKey.x963Representation)

            // Bytes that are no chain, or a chain twice, are not a link.
            refused(link(chain: chain.dropLast()), .invalidLink, "truncated")
            refused(link(chain: Data(repeating: 0xFF, count: 33)), .invalidLink, "not a point")
            refused(
                link(chain: chain, extra: [URLQueryItem(name: "chain", value: chain.base64URLEncoded)]),
                .invalidLink,
                "two chains"
            )
            var long = P256.Signing.PrivateKey()
            var tooLong = long.publicKey.compressedRepresentation
            for _ in 0..<ActivationKeyChain.maximumKeys {
                let next = P256.Signing.PrivateKey()
                tooLong.append(try ActivationKeyChain.endorsement(of: next.publicKey, by: long))
                tooLong.append(next.publicKey.compressedRepresentation)
                long = next
            }
            refused(link(chain: tooLong), .invalidLink, "longer than a chain may be")
        }
    }

    @Test(
        "a chain of 8 keys still fits a QR code; a 9th is refused 409 unless the oldest is dropped, which strands its pin"
    )
    func longestChain() async throws {
        try await TestServer.run(seed: .checks) { server in
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            let first = try Self.key(server.pinnedActivationKeyPEM)
            for _ in 1..<ActivationKeyChain.maximumKeys { _ = try await admin.rotateSigningKey(.activation) }
            let second = try #require(try ActivationLink(try await admin.activationLink(app: "checks")).chain?.keys[1])
            let link = try await admin.activationLink(app: "checks")
            #expect(try ActivationLink(link).chain?.keys.count == ActivationKeyChain.maximumKeys)
            #expect(try ActivationLink(link).verified(with: first).appID == "checks")
            // The QR code holds the link with room to spare: a configuration twice as long fits.
            let chainless = try #require(link.components(separatedBy: "&chain=").first)
            #expect(link.count - chainless.count == 957, "8 keys: 7 + 950 characters")
            #expect(2 * chainless.count + 957 <= 2_331, "\(link.count) characters")
            let png = try await admin.activationQRCode(app: "checks")
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))

            let error = await #expect(throws: ServiceError.self) { try await admin.rotateSigningKey(.activation) }
            #expect(error?.status == 409 && error?.serverCode == "LIMIT_REACHED", "\(String(describing: error))")
            #expect(
                error?.serverMessage?.contains("rotate activation --drop-oldest") == true,
                "\(String(describing: error))"
            )
            #expect(try await admin.signingKeys().count { $0.purpose == .activation } == ActivationKeyChain.maximumKeys)
            let tokenKey = await #expect(throws: ServiceError.self) {
                try await admin.rotateSigningKey(.idToken, dropOldest: true)
            }
            #expect(tokenKey?.status == 409 && tokenKey?.serverCode == "CONFLICT", "\(String(describing: tokenKey))")

            let rotated = try await admin.rotateSigningKey(.activation, dropOldest: true)
            let keys = try await admin.signingKeys().filter { $0.purpose == .activation }
            #expect(keys.count == ActivationKeyChain.maximumKeys && keys.first?.kid == rotated.kid)
            let after = try ActivationLink(try await admin.activationLink(app: "checks"))
            #expect(after.chain?.keys.count == ActivationKeyChain.maximumKeys)
            #expect(throws: ConfigurationError.badSignature) { try after.verified(with: first) }
            #expect(try after.verified(with: second).appID == "checks")
        }
    }
}
