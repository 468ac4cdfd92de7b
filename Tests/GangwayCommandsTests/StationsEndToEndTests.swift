import Foundation
import GangwayTerminal
import GangwayTesting
import Testing

@Suite(
    "The demo at an airline's size: 20,000 checks over ten stations, each shift carrying its own station's",
    .tags(.endToEnd),
    .skipsTags
)
struct StationsEndToEndTests {
    typealias Device = DeviceAppEndToEndTests.Device

    static func open(_ checks: [(id: String, fields: [String: String])]) -> Int {
        checks.count { $0.fields["status"] == "open" }
    }

    @Test(
        "alice (CDG) and bob (ORY) share a device: each receives and queries their station alone; alice's offline edit goes as hers in bob's session"
    )
    func twoStationsOnOneDevice() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let generated = DemoApp.generatedChecks(20_000)
        let cdg = generated.filter { $0.fields["station"] == "CDG" } + DemoApp.checks
        let ory = generated.filter { $0.fields["station"] == "ORY" }
        #expect(cdg.count == 2_005 && ory.count == 2_000)
        let edited = try #require(generated.first { $0.fields["station"] == "CDG" && $0.fields["status"] == "open" })
        let run = try await device.launch(
            DeviceAppEndToEndTests.aliceOnboards + [
                "checks station=ORY", "checks status=open", "offline on", "edit \(edited.id) status=done reading=91",
                "checks status=open", "offline off",
            ] + OfflineWorkEndToEndTests.bobAdded + ["checks station=CDG", "checks status=open", "quit"],
            arguments: ["--demo-checks", "20000"]
        )
        #expect(run.status == 0, "\(run.standardError)")
        let output = run.output
        let (alice, bob) = try #require(Self.split(output, at: "== Sign In =="))
        // Alice: her station's checks, a page of them on the home screen.
        #expect(alice.contains("Checks:         2005 checks from the server"), "\(alice.suffix(3_000))")
        #expect(alice.contains("… 1985 more: 'checks' lists them, filtered, sorted and paged."))
        #expect(alice.contains("0 checks match (page 1 of 1), from this device's copy:"), "nothing of ORY")
        let open = Self.open(cdg)
        #expect(alice.contains("\(open) checks match (page 1 of \((open + 19) / 20)), from this device's copy:"))
        #expect(alice.contains("\(open - 1) checks match"), "her edit shows at once, offline")
        // Bob: his station's, and alice's edit carried as hers.
        #expect(bob.contains("Sending 1 change left on this device by other users, as theirs…"), "\(bob.suffix(3_000))")
        #expect(bob.contains("The server answered: 1 applied."))
        #expect(bob.contains("Checks:         2000 checks from the server"))
        #expect(bob.contains("0 checks match (page 1 of 1), from this device's copy:"), "nothing of CDG")
        let bobOpen = Self.open(ory)
        #expect(bob.contains("\(bobOpen) checks match (page 1 of \((bobOpen + 19) / 20)), from this device's copy:"))
        #expect(!bob.contains("CDG-"), "no check of CDG in bob's session")

        let changes = try await OfflineWorkEndToEndTests.admin(["data", "changes", "--json"], in: device)
        let recorded = try #require(try JSONSerialization.jsonObject(with: changes.standardOutput) as? [[String: Any]])
        #expect(recorded.map { $0["author"] as? String } == ["alice"])
        #expect(recorded.map { $0["carrier"] as? String } == ["bob"])
        #expect(recorded.map { $0["entityID"] as? String } == [edited.id])
    }

    /// The output before bob's sign-in and from it on.
    static func split(_ output: String, at marker: String) -> (String, String)? {
        let parts = output.components(separatedBy: marker)
        guard parts.count >= 3 else { return nil }
        return (parts.dropLast().joined(separator: marker), parts.last ?? "")
    }

    @Test("--demo-checks out of its range is refused with one sentence, by the app and by serve")
    func demoChecksBounds() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        for count in ["0", "100001", "x"] {
            let app = try await device.launch(["quit"], arguments: ["--demo-checks", count])
            #expect(app.status == 64, "\(count)")
            #expect(!app.standardError.contains("Fatal"))
        }
        let app = try await device.launch(["quit"], arguments: ["--demo-checks", "0"])
        #expect(app.standardError.contains("--demo-checks must be between 1 and 100000."), "\(app.standardError)")
        let serve = try await GangwayProcess(deviceKeys: device.directory.appending("unused-keys"))
            .run(["serve", "--demo-checks", "10", "--data-dir", device.directory.appending("server").path], lines: [])
        #expect(serve.status == 64)
        #expect(serve.standardError.contains("--demo-checks goes with --demo."), "\(serve.standardError)")
    }
}

@Suite(
    "gangway serve --demo --demo-checks: a server of its own at an airline's size",
    .tags(.endToEnd),
    .skipsTags
)
struct StationsServeEndToEndTests {
    @Test("serve seeds the stations and says whose they are; the app against it receives alice's station alone")
    func serveSeedsStations() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Its log at warning: the seed's thousand puts would fill the pipe no one reads.
        let serve = try await ServeProcess(
            ["--demo", "--demo-checks", "1000", "--log-level", "warning"],
            in: directory.appending("server")
        )
        defer { serve.stop() }
        #expect(
            serve.printed.contains(
                "Demo: 1005 checks over 10 stations; each user receives their station's: alice CDG, bob ORY."
            ),
            "\(serve.printed)"
        )
        let runner = GangwayProcess(deviceKeys: directory.appending("device-keys"))
        let schema = try await runner.run(
            ["admin", "data", "schema", "checks", "--server", serve.url, "--token-file", serve.tokenFile],
            lines: []
        )
        #expect(schema.status == 0, "\(schema.standardError)")
        #expect(schema.output.contains("station"), "\(schema.output)")
        let app = try await runner.run(
            ["--server", serve.url, "--data-dir", directory.appending("device").path],
            lines: DeviceAppEndToEndTests.aliceOnboards + ["checks station!=CDG", "quit"]
        )
        #expect(app.status == 0, "\(app.standardError)")
        #expect(app.output.contains("Checks:         105 checks from the server"), "\(app.output.suffix(2_000))")
        #expect(app.output.contains("0 checks match (page 1 of 1)"))
    }
}
