import Foundation
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import NIOHTTP1
import Testing

/// `gangway admin keys` against the built server: a company's backend that verifies the
/// forwarded identity with PyJWT's JWKS client (``TestDestinationBackend``, not
/// Gangway's code), keeping the key set for 2 seconds, takes every request across a
/// rotation whose new key is published 3 seconds before it signs; and the serve options
/// of rotation refuse what is out of range.
@Suite(
    "Keys through the built server: a destination's backend verifies across a rotation, and the list shows both keys",
    .tags(.endToEnd),
    .skipsTags
)
struct KeyRotationEndToEndTests {
    typealias Call = DestinationStreamingEndToEndTests

    /// The `kid` in the header of the token the backend was forwarded.
    static func forwardedKid(_ url: String, token: String) async throws -> String {
        let raw = try await Call.call(.GET, url + "/apps/checks/destinations/files/raw-token", token: token)
        let jwt = try #require(raw.body["token"] as? String, "\(raw)")
        return try #require(JWTHeader.kid(of: jwt))
    }

    @Test(
        "rotate destination: the new key is published before it signs, and the backend verifies every request",
        .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func destinationRotation() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let serve = try await ServeProcess(
            ["--demo", "--rotate-keys-days", "30", "--key-publish-seconds", "3"],
            in: directory.appending("server")
        )
        defer { serve.stop() }
        let url = serve.url
        let issuer = url + "/apps/checks"
        let admin = GangwayProcess(deviceKeys: directory.appending("device-keys"))
        let reach = ["--server", url, "--token-file", serve.tokenFile]
        try await TestDestinationBackend.using(jwks: issuer + "/destination-keys", issuer: issuer, jwksLifespan: 2) {
            backend in
            let added = try await admin.run(["admin", "destinations", "add", "files", "--url", backend.url] + reach)
            #expect(added.status == 0, "\(added.standardError)")
            let token = try await Call.registeredSession(url, device: "stand-12")
            let before = try await Call.call(.GET, url + "/apps/checks/destinations/files/whoami", token: token)
            #expect(before.status == 200 && before.body["sub"] as? String == "alice", "\(before)")
            let oldKid = try await Self.forwardedKid(url, token: token)

            // The backend has just fetched the key set, and keeps it 2 seconds; PyJWT fetches
            // it again for an unknown kid only 30 seconds after its last fetch. Were the new
            // key to sign at once, the next request would be refused.
            let rotated = try await admin.run(["admin", "keys", "rotate", "destination"] + reach)
            #expect(rotated.status == 0, "\(rotated.standardError)")
            #expect(rotated.output.contains("is published now and signs from"), "\(rotated.output)")
            var newKid = oldKid
            var requests = 0
            let deadline = ContinuousClock.now + .seconds(30)
            while newKid == oldKid, ContinuousClock.now < deadline {
                let reply = try await Call.call(.GET, url + "/apps/checks/destinations/files/whoami", token: token)
                #expect(reply.status == 200 && reply.body["sub"] as? String == "alice", "\(reply)")
                requests += 1
                newKid = try await Self.forwardedKid(url, token: token)
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(newKid != oldKid && requests > 1, "\(requests) requests")
            #expect(rotated.output.contains(newKid), "\(rotated.output)")
            let after = try await Call.call(.GET, url + "/apps/checks/destinations/files/whoami", token: token)
            #expect(after.status == 200 && after.body["sub"] as? String == "alice", "\(after)")

            let listed = try await admin.run(["admin", "keys", "list"] + reach)
            #expect(listed.status == 0, "\(listed.standardError)")
            let lines = listed.output.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("destination") && $0.contains(newKid) && $0.contains("signing") })
            #expect(lines.contains { $0.hasPrefix("destination") && $0.contains(oldKid) && $0.contains("published") })
            #expect(lines.filter { $0.hasPrefix("id-token") && $0.contains("signing") }.count == 1, "\(listed.output)")

            // A purpose that is not one is refused before anything is sent.
            let wrong = try await admin.run(["admin", "keys", "rotate", "activations"] + reach)
            #expect(wrong.status == 64, "\(wrong.standardError)")
            #expect(wrong.standardError.contains("id-token") && !wrong.standardError.contains("Fatal"))
            let dropped = try await admin.run(["admin", "keys", "rotate", "destination", "--drop-oldest"] + reach)
            #expect(dropped.status == 64, "\(dropped.standardError)")
            #expect(dropped.standardError.contains("--drop-oldest is for the activation key alone."))
            // A running server signs after its own lead: none is given to it.
            let led = try await admin.run(["admin", "keys", "rotate", "id-token", "--publish-seconds", "600"] + reach)
            #expect(led.status == 64, "\(led.standardError)")
            #expect(led.standardError.contains("--publish-seconds is for a server that is stopped"))
        }
    }

    @Test("a stopped server run with --key-file is listed and rotated with the same --key-file; without it, told so")
    func stoppedServerKeyFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("server")
        let keys = directory.appending("keys")
        try PrivateFiles.makeDirectory(keys)
        let keyFile = keys.appendingPathComponent("server-key").path
        let serve = try await ServeProcess(["--key-file", keyFile, "--log-level", "warning"], in: data)
        serve.stop()
        let admin = GangwayProcess(deviceKeys: directory.appending("device-keys"))
        let without = try await admin.run(["admin", "keys", "list", "--data-dir", data.path])
        #expect(without.status == 1, "\(without.standardError)")
        #expect(without.standardError.contains("--key-file"), "\(without.standardError)")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("server-key").path), "none made")
        let listed = try await admin.run(["admin", "keys", "list", "--data-dir", data.path, "--key-file", keyFile])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.output.contains("id-token"), "\(listed.output)")
        let rotated = try await admin.run(
            ["admin", "keys", "rotate", "id-token", "--data-dir", data.path, "--key-file", keyFile]
        )
        #expect(rotated.status == 0, "\(rotated.standardError)")
        let remote = try await admin.run(
            ["admin", "keys", "list", "--server", "http://127.0.0.1:1", "--key-file", keyFile]
        )
        #expect(remote.status == 64 && remote.standardError.contains("--key-file is for a local server"))
    }

    @Test(
        "a stopped server's key rotated with the lead its serve command has (--publish-seconds); out of range, refused"
    )
    func stoppedServerLead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("server")
        let serve = try await ServeProcess(["--demo"], in: data)
        serve.stop()
        let files = try FileManager.default.contentsOfDirectory(atPath: data.path).sorted()
        let admin = GangwayProcess(deviceKeys: directory.appending("device-keys"))
        let rotated = try await admin.run(
            ["admin", "keys", "rotate", "id-token", "--publish-seconds", "7200", "--data-dir", data.path],
            extraEnvironment: ["TZ": "UTC"]
        )
        #expect(rotated.status == 0, "\(rotated.standardError)")
        let when = try #require(rotated.output.firstMatch(of: /signs from (\d{4}-\d\d-\d\d \d\d:\d\d)/)?.1)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let signsFrom = try #require(formatter.date(from: String(when)))
        let lead = signsFrom.timeIntervalSinceNow
        #expect(lead > 7_000 && lead < 7_300, "signs two hours from now, not after the default lead: \(rotated.output)")
        // Serve's directory, opened for the command, holds what it held: no port kept for
        // a next start, as the device app's server keeps.
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.path).sorted() == files)
        for seconds in ["-1", "86401"] {
            let refused = try await admin.run(
                ["admin", "keys", "rotate", "id-token", "--publish-seconds", seconds, "--data-dir", data.path]
            )
            #expect(refused.status == 64, "\(refused.standardError)")
            #expect(refused.standardError.contains("--publish-seconds must be between"), "\(refused.standardError)")
        }
    }

    @Test(
        "rotate activation: a device that pinned the first key follows the chain to the new one and activates by its link"
    )
    func activationRotation() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let serve = try await ServeProcess(["--demo"], in: directory.appending("server"))
        defer { serve.stop() }
        let url = serve.url
        let runner = GangwayProcess(deviceKeys: directory.appending("device-keys"))
        let reach = ["--server", url, "--token-file", serve.tokenFile]
        let home = directory.appending("device-home")
        let pin = home.appendingPathComponent("device/activation-key.pem")

        // The device's first start pins the key the server shows.
        let first = try await runner.run(["--server", url, "--data-dir", home.path], lines: ["quit"])
        #expect(first.status == 0, "\(first.standardError)")
        let pinned = try String(contentsOf: pin, encoding: .utf8)
        #expect(pinned.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let before = try await runner.run(["admin", "activation"] + reach)
        #expect(before.status == 0 && !before.output.contains("chain="), "\(before.standardError)")

        let rotated = try await runner.run(["admin", "keys", "rotate", "activation"] + reach)
        #expect(rotated.status == 0, "\(rotated.standardError)")
        #expect(rotated.output.contains("signs links from now on, endorsed by the one before"), "\(rotated.output)")
        let listed = try await runner.run(["admin", "keys", "list"] + reach)
        let lines = listed.output.split(separator: "\n").filter { $0.hasPrefix("activation") }
        #expect(lines.count == 2 && lines.first?.contains("signing") == true, "\(listed.output)")
        #expect(lines.last?.contains("published") == true, "\(listed.output)")
        let link = try await runner.run(["admin", "activation"] + reach).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link.hasPrefix("gangway://activate?payload=") && link.contains("&chain="), "\(link)")

        // At its next start the device sees the first key endorsed the new one, and pins it;
        // the link signed by the new key activates it.
        let passcode = DeviceAppEndToEndTests.alicePasscode
        let activated = try await runner.run(
            ["--server", url, "--data-dir", home.path],
            lines: ["link", link, "alice", "preflight-alice", "accept", "allow", passcode, passcode, "quit"]
        )
        #expect(activated.status == 0, "\(activated.standardError)")
        #expect(activated.output.contains("Signed in:      Alice Martin (alice)"), "\(activated.output)")
        let repinned = try String(contentsOf: pin, encoding: .utf8)
        #expect(repinned != pinned && repinned.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(!activated.output.contains(repinned) && !activated.standardError.contains(repinned))

        // A chain holds 8 keys; the 9th is refused until the oldest is dropped.
        for _ in 3...8 {
            let again = try await runner.run(["admin", "keys", "rotate", "activation"] + reach)
            #expect(again.status == 0, "\(again.standardError)")
        }
        let full = try await runner.run(["admin", "keys", "rotate", "activation"] + reach)
        #expect(full.status == 1, "\(full.output)")
        #expect(full.standardError.contains("--drop-oldest") && !full.standardError.contains("Fatal"))
        let dropped = try await runner.run(["admin", "keys", "rotate", "activation", "--drop-oldest"] + reach)
        #expect(dropped.status == 0, "\(dropped.standardError)")
        #expect(dropped.output.contains("the oldest key is dropped"), "\(dropped.output)")
        let kept = try await runner.run(["admin", "keys", "list"] + reach)
        #expect(kept.output.split(separator: "\n").filter { $0.hasPrefix("activation") }.count == 8, "\(kept.output)")

        // A device pinned to another server's key keeps its pin: nothing leads from it.
        let stranger = directory.appending("stranger-home")
        try FileManager.default.createDirectory(
            at: stranger.appendingPathComponent("device"),
            withIntermediateDirectories: true
        )
        let strangerPin = stranger.appendingPathComponent("device/activation-key.pem")
        let otherKey = """
            -----BEGIN PUBLIC KEY-----
            MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEgBBnYjmByHd1FJkTqqA0rNrd/3Wk
            1IU40OrJ9/0F508dy+QkAZ2oAw8Sz/+nwCNbgB/MRmOlJV4ZXPiLpopxDQ==
            -----END PUBLIC KEY-----

            """
        try Data(otherKey.utf8).write(to: strangerPin)
        chmod(stranger.path, 0o700)
        chmod(stranger.appendingPathComponent("device").path, 0o700)
        chmod(strangerPin.path, 0o600)
        let refused = try await runner.run(
            ["--server", url, "--data-dir", stranger.path],
            lines: ["link", link, "quit"]
        )
        #expect(try String(contentsOf: strangerPin, encoding: .utf8) == otherKey)
        #expect(refused.output.contains("not signed by your administrator's server"), "\(refused.output)")
        #expect(!refused.output.contains("Signed in:"), "\(refused.output)")
    }

    @Test(
        "serve --rotate-keys-days takes 1 to 3650 days, --key-publish-seconds 0 to 86400: else one sentence, exit 64"
    )
    func rotationOptions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("device-keys"))
        let refused = [
            ("--rotate-keys-days", ["0", "3651", "-1", "seven", "1e3"]),
            ("--key-publish-seconds", ["-1", "86401", "five", "9999999999999999999999"]),
        ]
        for (option, values) in refused {
            for value in values {
                let result = try await runner.run(
                    ["serve", "--data-dir", directory.appending("server").path, option, value]
                )
                #expect(result.status == 64, "\(option) \(value): \(result.standardError)")
                #expect(result.standardError.contains(option), "\(option) \(value): \(result.standardError)")
                #expect(!result.standardError.contains("Fatal"))
                #expect(!FileManager.default.fileExists(atPath: directory.appending("server").path))
            }
        }
    }

    @Test(
        "replace-server-key: refused while serve runs; once stopped, replaced, and serve starts again and signs alice in"
    )
    func replaceServerKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("server")
        let runner = GangwayProcess(deviceKeys: directory.appending("device-keys"))
        let keyFile = data.appendingPathComponent("server-key")
        do {
            let serve = try await ServeProcess(["--demo"], in: data)
            defer { serve.stop() }
            let refused = try await runner.run(["admin", "keys", "replace-server-key", "--data-dir", data.path])
            #expect(refused.status == 1, "\(refused.standardError)")
            #expect(refused.standardError.contains("gangway serve"), "\(refused.standardError)")
            #expect(refused.standardError.split(separator: "\n").count == 1, "\(refused.standardError)")
        }
        let before = try Data(contentsOf: keyFile)
        let replaced = try await runner.run(["admin", "keys", "replace-server-key", "--data-dir", data.path])
        #expect(replaced.status == 0, "\(replaced.standardError)")
        #expect(replaced.output.contains("Replaced the server key \(keyFile.path)"), "\(replaced.output)")
        #expect(try Data(contentsOf: keyFile) != before)
        let kept = try FileManager.default.contentsOfDirectory(atPath: data.path).filter {
            $0.hasPrefix("server-key.replaced-")
        }
        #expect(kept.count == 1)
        let keptKey = try kept.first.map { try Data(contentsOf: data.appendingPathComponent($0)) }
        #expect(keptKey == before)
        #expect(!replaced.output.contains(before.base64EncodedString()))

        let serve = try await ServeProcess([], in: data)
        defer { serve.stop() }
        let session = try await Call.call(
            .POST,
            serve.url + "/apps/checks/sessions",
            json: #"{"username": "alice", "password": "preflight-alice", "deviceID": "stand-12"}"#
        )
        #expect(session.status == 201, "\(session)")
    }
}
