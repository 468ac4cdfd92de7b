import Foundation
import GangwayTesting
import NIOHTTP1
import Testing

/// The reference's multi-user tutorial retold with the built binary: the demo airline's
/// own backend (the crew roster) is reached through the app's destination as whoever is
/// signed in, and the shift's offline work is handed over by the flows.
@Suite(
    "The demo's crew backend through its destination: each person arrives as themselves",
    .tags(.endToEnd),
    .skipsTags
)
struct CrewBackendEndToEndTests {
    typealias Device = DeviceAppEndToEndTests.Device

    static let bobAdded = OfflineWorkEndToEndTests.bobAdded

    /// The crew backend's address, as `serve --demo` printed it.
    static func backendURL(in printed: String) throws -> String {
        let marker = "reaches the airline's crew backend at "
        let line = try #require(printed.split(separator: "\n").first { $0.contains(marker) }, "\(printed)")
        let after = line[line.range(of: marker)!.upperBound...]
        return String(after.prefix { $0 != "," })
    }

    @Test("serve --demo: alice leaves a note as alice, bob reads it as bob; the backend takes nobody else")
    func notesBetweenShifts() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-crew")
        defer { directory.remove() }
        let serve = try await ServeProcess(["--demo"], in: directory.appending("server"))
        defer { serve.stop() }
        let backend = try Self.backendURL(in: serve.printed)
        #expect(backend.hasPrefix("http://127.0.0.1:"))

        // Without the server's identity, or with a device's own session token, the
        // backend answers nothing.
        let bare = try await DestinationStreamingEndToEndTests.call(.GET, backend + "/roster")
        #expect(bare.status == 401)
        let session = try await DestinationStreamingEndToEndTests.call(
            .POST,
            serve.url + "/apps/checks/sessions",
            json: #"{"username": "alice", "password": "preflight-alice", "deviceID": "stand-9"}"#
        )
        let token = try #require(session.body["token"] as? String)
        let forged = try await DestinationStreamingEndToEndTests.call(.GET, backend + "/roster", token: token)
        #expect(forged.status == 401)

        let device = try Device()
        defer { device.directory.remove() }
        let alice = try await device.launch(
            DeviceAppEndToEndTests.aliceOnboards + [
                "crew", "crew note stand 14 tyre gauge is with the night crew", "crew", "crew note", "quit",
            ],
            arguments: ["--server", serve.url]
        )
        #expect(alice.status == 0, "\(alice.standardError)")
        #expect(alice.output.contains("The crew backend sees Alice Martin (alice), through the app's destination."))
        #expect(alice.output.contains("Your shift: 06:00-14:00, stands 12, 14."))
        #expect(alice.output.contains("No notes for the shift yet."))
        #expect(alice.output.contains("Noted, as you, for the next shift."))
        #expect(alice.output.contains("Alice Martin: stand 14 tyre gauge is with the night crew"))
        #expect(
            alice.output.contains(/\n  [0-2][0-9]:[0-5][0-9] Alice Martin: stand 14/),
            "the note's time on the 24-hour clock, as crews read it: \(alice.output)"
        )
        #expect(alice.output.contains("crew note TEXT leaves a note"), "an empty note gets the usage")

        // The next shift on the same device: bob arrives as bob, and reads alice's note.
        let bob = try await device.launch(Self.bobAdded + ["crew", "quit"], arguments: ["--server", serve.url])
        #expect(bob.status == 0, "\(bob.standardError)")
        #expect(bob.output.contains("The crew backend sees Bob Okafor (bob), through the app's destination."))
        #expect(bob.output.contains("Your shift: 14:00-22:00, stand 14."))
        #expect(bob.output.contains("Alice Martin: stand 14 tyre gauge is with the night crew"))

        // Every forwarded request is counted for the admin, never with its body.
        let listed = try await GangwayProcess(deviceKeys: directory.appending("keys")).run(
            ["admin", "destinations", "--server", serve.url, "--token-file", serve.tokenFile]
        )
        let text = String(decoding: listed.standardOutput, as: UTF8.self)
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(text.contains("crew"), "\(text)")
        #expect(text.contains(backend), "\(text)")
        #expect(!text.contains("tyre gauge"))
    }

    @Test("without a crew destination the command says what an admin does, in one sentence")
    func noDestination() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-crew")
        defer { directory.remove() }
        let serve = try await ServeProcess(["--demo"], in: directory.appending("server"))
        defer { serve.stop() }
        let removed = try await GangwayProcess(deviceKeys: directory.appending("keys")).run(
            ["admin", "destinations", "remove", "crew", "--server", serve.url, "--token-file", serve.tokenFile]
        )
        #expect(removed.status == 0, "\(removed.standardError)")
        let device = try Device()
        defer { device.directory.remove() }
        let alice = try await device.launch(
            DeviceAppEndToEndTests.aliceOnboards + ["crew", "quit"],
            arguments: ["--server", serve.url]
        )
        #expect(alice.status == 0, "\(alice.standardError)")
        #expect(
            alice.output.contains(
                "This app has no destination 'crew': an admin adds it with 'gangway admin destinations add'."
            ),
            "\(alice.output)"
        )
    }
}
