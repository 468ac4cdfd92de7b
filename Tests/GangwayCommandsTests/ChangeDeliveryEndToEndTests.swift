import Foundation
import GangwayServerTesting
import GangwayTesting
import Testing

/// The reference's round trip with the built binaries: the demo's checks are read from
/// the company's OData service (not Gangway's code, ``TestODataBackend``), a shift's
/// offline edits reach that service as their authors through `gangway serve`, and what it
/// refuses comes back to the person who made the change, on a shared device.
@Suite(
    "Changes delivered by gangway serve: a shift's offline edits reach the company's service once, as their authors",
    .tags(.endToEnd),
    .skipsTags
)
struct ChangeDeliveryEndToEndTests {
    typealias Device = DeviceAppEndToEndTests.Device

    /// Polls `condition` every 50 ms for up to `seconds`; whether it came true.
    static func within(_ seconds: Int, _ condition: () async throws -> Bool) async throws -> Bool {
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    /// The service's writes of the change `key`.
    static func writes(of key: String, in stats: [String: Any]) -> [[String: Any]] {
        (stats["writes"] as? [[String: Any]] ?? []).filter { $0["key"] as? String == key }
    }

    @Test(
        "an edit reaches the service once as its author through two 503s and a server killed before its commit; a refusal reaches its author after a switch",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func roundTripThroughAKill() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-delivery")
        defer { directory.remove() }
        let data = directory.appending("server")
        var serve = try await ServeProcess(["--demo", "--log-level", "warning"], in: data)
        defer { serve.stop() }
        let port = try #require(URLComponents(string: serve.url)?.port)
        let issuer = serve.url + "/apps/checks"
        let runner = GangwayProcess(deviceKeys: directory.appending("admin-keys"))
        func admin(_ arguments: [String]) async throws -> GangwayProcess.Result {
            let result = try await runner.run(
                ["admin"] + arguments + ["--server", serve.url, "--token-file", serve.tokenFile],
                lines: []
            )
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
            return result
        }

        try await TestODataBackend.using(jwks: issuer + "/destination-keys", issuer: issuer) { odata in
            // The company's checks, in the demo's fields and the service's tyre pressure.
            try await odata.change(put: [
                [
                    "ID": "C-1", "aircraft": "A320 F-HBXA", "stand": "21", "item": "tyre pressure", "status": "open",
                    "TyrePressure": 202,
                ],
                [
                    "ID": "C-2", "aircraft": "A320 F-HBXB", "stand": "22", "item": "tyre pressure", "status": "open",
                    "TyrePressure": 204,
                ],
            ])
            _ = try await admin(["destinations", "add", "erp", "--url", odata.url])
            _ = try await admin(["data", "schema", "checks", "--add", "TyrePressure:decimal"])
            _ = try await admin(["data", "fields", "checks", "status", "reading", "note", "TyrePressure"])
            _ = try await admin(
                ["data", "source", "set", "checks", "--destination", "erp", "--path", "/Checks", "--deliver-changes"]
            )
            let pulled = try await admin(["data", "pull", "checks", "--full"])
            // The first read may be the server's own (it starts when the source is set):
            // written by either, the two checks are there, none refused.
            #expect(
                pulled.output.contains("checks: full, 2 rows:") && pulled.output.contains("0 refused"),
                "\(pulled.output)"
            )

            // Alice's shift, offline: a good pressure and one the company refuses.
            let device = try Device()
            defer { device.directory.remove() }
            let server = ["--server", serve.url]
            let alice = try await device.launch(
                DeviceAppEndToEndTests.aliceOnboards + [
                    "offline on", "edit C-1 TyrePressure=212 status=done", "edit C-2 TyrePressure=400", "pending",
                    "quit",
                ],
                arguments: server
            )
            #expect(alice.status == 0, "\(alice.standardError)")
            #expect(alice.output.contains("Change to C-1 saved on this device (pending)."), "\(alice.output)")
            #expect(alice.output.contains("Change to C-2 saved on this device (pending)."))

            // The service answers the first two tries of each 503, then applies the
            // good edit and holds its answer: the server is killed while it waits.
            try await odata.fail(4)
            try await odata.hold(milliseconds: 20_000)

            // Bob takes the device: he carries Alice's changes, as hers; the server holds
            // them until the service decides.
            let bob = try await device.launch(OfflineWorkEndToEndTests.bobAdded + ["quit"], arguments: server)
            #expect(bob.status == 0, "\(bob.standardError)")
            #expect(bob.output.contains("Sending 2 changes left on this device by other users, as theirs…"))
            #expect(
                bob.output.contains("2 waiting for the company's backend to decide them"),
                "\(bob.output)"
            )

            var good: String?
            let applied = try await Self.within(120) {
                let writes = try await odata.stats()["writes"] as? [[String: Any]] ?? []
                good =
                    writes.first { $0["id"] as? String == "C-1" && ($0["status"] as? Int ?? 500) < 300 }?["key"]
                    as? String
                return good != nil
            }
            #expect(applied, "the service applied the good edit")
            let key = try #require(good)
            serve.kill()

            // The server starts again on its data; its claim lapses, and the change goes
            // again with the same key: the service answers what it answered, applying
            // nothing.
            serve = try await ServeProcess(["--demo", "--log-level", "warning"], port: port, in: data)
            let unsettled = try await admin(["data", "deliveries"]).output
            #expect(
                unsettled.contains("checks/C-1"),
                "killed before its commit, the service's answer is not kept: \(unsettled)"
            )
            let settled = try await Self.within(150) {
                try await admin(["data", "deliveries"]).output.contains("No change waits for the company's backend.")
            }
            #expect(settled, "every delivery ended after the restart")
            let stats = try await odata.stats()
            #expect((stats["applied"] as? [String: Int])?[key] == 1, "applied once, as the service sees it")
            let sent = Self.writes(of: key, in: stats)
            #expect(sent.count == 2, "once before the kill, once after: \(sent)")
            #expect(sent.last?["replayed"] as? Bool == true, "the second answered from the key")
            #expect(sent.allSatisfy { $0["sub"] as? String == "alice" }, "as its author, not bob who carried it")
            // Four 503s in all; the good edit's own first two at least (a round the machine's
            // load delays may send both changes' next tries at once).
            #expect((stats["failures"] as? [String] ?? []).count == 4)
            #expect((stats["failures"] as? [String] ?? []).filter { $0 == key }.count >= 2, "two 503s first")
            let refusedKey = try #require(
                (stats["writes"] as? [[String: Any]] ?? []).first { $0["id"] as? String == "C-2" }?["key"] as? String
            )
            #expect(
                Self.writes(of: refusedKey, in: stats).compactMap { $0["status"] as? Int } == [400],
                "refused once, then answered from its key"
            )

            let listed = try await admin(["data", "list", "checks", "--json", "--limit", "100"])
            let checks = try #require(try JSONSerialization.jsonObject(with: listed.standardOutput) as? [[String: Any]])
            let first = try #require(checks.first { $0["id"] as? String == "C-1" })
            #expect((first["fields"] as? [String: String])?["TyrePressure"] == "212")
            #expect((first["fields"] as? [String: String])?["status"] == "done")
            #expect(first["updatedBy"] as? String == "alice")
            let second = try #require(checks.first { $0["id"] as? String == "C-2" })
            #expect((second["fields"] as? [String: String])?["TyrePressure"] == "204", "refused: unchanged")

            // Bob's next launch takes the answers for their authors; Alice, back on the
            // device, finds her refused edit with the company's reason.
            let later = try await device.launch(["2", OfflineWorkEndToEndTests.bobPasscode, "quit"], arguments: server)
            #expect(later.status == 0, "\(later.standardError)")
            let back = try await device.launch(
                ["1", OfflineWorkEndToEndTests.alicePasscode, "pending", "quit"],
                arguments: server
            )
            #expect(back.status == 0, "\(back.standardError)")
            let pending = back.output.components(separatedBy: "gangway> pending").last ?? ""
            #expect(pending.contains("edit C-2: TyrePressure=400"), "\(back.output)")
            #expect(pending.contains("A tyre pressure is from 150 to 300 kPa."), "\(pending)")
            #expect(!pending.contains("edit C-1"), "the applied edit is no longer hers to look at: \(pending)")
        }
    }
}
