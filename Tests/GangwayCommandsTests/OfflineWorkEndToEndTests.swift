import Foundation
import GRDB
import GangwayProtocol
import GangwayTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(
    "The device app's offline work: edits kept through a quit, handed over at a user switch, never lost at a removal",
    .tags(.endToEnd),
    .skipsTags
)
struct OfflineWorkEndToEndTests {
    typealias Device = DeviceAppEndToEndTests.Device
    static let alicePasscode = DeviceAppEndToEndTests.alicePasscode
    static let bobPasscode = DeviceAppEndToEndTests.bobPasscode
    static let aliceOnboards = DeviceAppEndToEndTests.aliceOnboards
    static let bobAdded = ["add", "1", "bob", "preflight-bob", "accept", "decline", bobPasscode, bobPasscode]

    static func admin(_ arguments: [String], in device: Device) async throws -> GangwayProcess.Result {
        try await GangwayProcess(deviceKeys: device.directory.appending("unused-keys"))
            .run(["admin"] + arguments + ["--data-dir", device.directory.url.path])
    }

    /// The demo's checks as the admin reads them, by ID.
    static func checks(in device: Device) async throws -> [String: [String: Any]] {
        let listed = try await admin(["data", "list", "checks", "--limit", "1000", "--json"], in: device)
        #expect(listed.status == 0, "\(listed.standardError)")
        let entities = try #require(try JSONSerialization.jsonObject(with: listed.standardOutput) as? [[String: Any]])
        return Dictionary(
            uniqueKeysWithValues: entities.compactMap { entity in
                (entity["id"] as? String).map { ($0, entity) }
            }
        )
    }

    /// Every file under the device's directory, read as bytes.
    static func deviceFilesContain(_ text: String, in device: Device) -> Bool {
        filesContain(text, under: device.directory.appending("device"))
    }

    /// Whether any file under `root`, read as bytes, holds `text`.
    static func filesContain(_ text: String, under root: URL) -> Bool {
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        let needle = Data(text.utf8)
        while let url = files?.nextObject() as? URL {
            if let data = try? Data(contentsOf: url), data.range(of: needle) != nil { return true }
        }
        return false
    }

    @Test(
        "an edit made offline is shown pending, survives a quit, is unreadable in the device's files, and goes once at the next launch"
    )
    func offlineEditSurvivesAQuit() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let first = try await device.launch(
            Self.aliceOnboards + [
                "offline on", #"edit F-GKXA-tyres status=done "note=valve cap 7731""#, "home", "pending", "quit",
            ]
        )
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.output.contains("Change to F-GKXA-tyres saved on this device (pending)."))
        #expect(first.output.contains("Pending:        1 change of yours waiting for the server"))
        #expect(first.output.contains("tyre pressure    done  (pending)"))
        // Offline by the person's own switch: said as such, not as a server out of reach.
        #expect(first.output.contains("not refreshed: the app is offline"), "\(first.output)")
        #expect(!first.output.contains("cannot be reached"))
        #expect(first.output.contains("1. edit F-GKXA-tyres: note=valve cap 7731 status=done"))
        #expect(!Self.deviceFilesContain("valve cap 7731", in: device), "a pending value in a file on the device")
        await #expect(try Self.checks(in: device)["F-GKXA-tyres"]?["version"] as? Int == 1, "nothing left the device")

        let second = try await device.launch(["1", Self.alicePasscode, "pending", "quit"])
        #expect(second.output.contains("The server answered: 1 applied."), "\(second.output)")
        #expect(second.output.contains("No changes of yours wait or need a look."))
        let tyres = try await #require(try Self.checks(in: device)["F-GKXA-tyres"])
        #expect(tyres["version"] as? Int == 2)
        #expect(tyres["updatedBy"] as? String == "alice")
        #expect((tyres["fields"] as? [String: String])?["note"] == "valve cap 7731")

        let third = try await device.launch(["1", Self.alicePasscode, "sync", "quit"])
        #expect(third.output.contains("Nothing to send."))
        await #expect(try Self.checks(in: device)["F-GKXA-tyres"]?["version"] as? Int == 2, "sent once")
    }

    @Test("what the rules refuse is not saved, with the server's reason")
    func refusedEdits() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            Self.aliceOnboards + [
                "edit F-GKXA-fuel aircraft=B737", "edit F-GKXA-fuel status", "edit", #"edit "" status=done"#,
                "discard 1", "pending", "quit",
            ]
        )
        #expect(result.output.contains("Not saved: An entity set or ID is 1 to 64 letters"))
        #expect(result.output.contains("nothing to discard"))
        #expect(result.output.contains("Not saved: Devices may not write aircraft in checks.\n"))
        #expect(!result.output.contains("FIELD_NOT_WRITABLE"), "codes go to the log, not the screen")
        #expect(result.output.contains("'status' is not FIELD=VALUE"))
        #expect(result.output.contains("Say what to change: edit"))
        #expect(result.output.contains("No changes of yours wait or need a look."))
    }

    @Test("a check the device has never seen is created only once the person says yes: a typo creates nothing")
    func creatingAsksFirst() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            Self.aliceOnboards + [
                "offline on", "edit F-GKXA-fule status=done", "n", "pending", "edit F-GKXA-tyres status=done",
                "edit F-GKXA-de-ice status=open", "y", "pending", "discard 1 2", "quit",
            ]
        )
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.output
        #expect(output.contains("There is no check F-GKXA-fule on this device. Create it, for everyone? [y/n]: n"))
        #expect(output.contains("Nothing was created."))
        #expect(!output.contains("F-GKXA-fule (new)"), "\(output)")
        #expect(!output.contains("There is no check F-GKXA-tyres"), "a known check is edited without asking")
        #expect(output.contains("There is no check F-GKXA-de-ice on this device. Create it, for everyone? [y/n]: y"))
        #expect(output.components(separatedBy: "Create it, for everyone?").count == 3, "asked twice in all")
        let pending = output.components(separatedBy: "gangway> pending").last ?? ""
        #expect(pending.contains("F-GKXA-de-ice"))
        #expect(!pending.contains("F-GKXA-fule"))
        // One number or none: the second is not dropped silently.
        #expect(
            output.contains("gangway> discard 1 2\nSay which: discard N, with N from 'pending' (1 to 2)."),
            "\(output)"
        )
    }

    @Test(
        "at a switch the next user carries the previous user's changes as theirs, or leaves them for her when the app says so",
        arguments: [true, false]
    )
    func handOver(allowed: Bool) async throws {
        let device = try Device()
        defer { device.directory.remove() }
        _ = try await device.launch(Self.aliceOnboards + ["quit"])
        let set = try await Self.admin(["shared-device", "--upload-previous-user-changes", "\(allowed)"], in: device)
        #expect(set.status == 0, "\(set.standardError)")

        let shift = try await device.launch(
            ["1", Self.alicePasscode, "offline on", "edit F-GTAJ-fuel status=done reading=9100kg", "offline off"]
                + Self.bobAdded + ["quit"]
        )
        #expect(shift.status == 0, "\(shift.standardError)")
        let fuel = try await #require(try Self.checks(in: device)["F-GTAJ-fuel"])
        if allowed {
            #expect(shift.output.contains("Sending 1 change left on this device by other users, as theirs…"))
            #expect(shift.output.contains("The server answered: 1 applied."))
            #expect(fuel["updatedBy"] as? String == "alice", "the author, not bob who carried it")
            let changes = try await Self.admin(["data", "changes", "--json"], in: device)
            let recorded = try #require(
                try JSONSerialization.jsonObject(with: changes.standardOutput) as? [[String: Any]]
            )
            #expect(recorded.map { $0["author"] as? String } == ["alice"])
            #expect(recorded.map { $0["carrier"] as? String } == ["bob"])
        } else {
            #expect(shift.output.contains("1 change of other users waits for their authors"))
            #expect(fuel["version"] as? Int == 1, "bob did not carry it")
            // Alice's next session sends it herself.
            let back = try await device.launch(["1", Self.alicePasscode, "quit"])
            #expect(back.output.contains("The server answered: 1 applied."), "\(back.output)")
            let sent = try await #require(try Self.checks(in: device)["F-GTAJ-fuel"])
            #expect(sent["updatedBy"] as? String == "alice")
            #expect((sent["fields"] as? [String: String])?["reading"] == "9100kg")
        }
    }

    @Test("the checks are one copy on the device: what one user's session fetched, the next user reads offline")
    func oneCopyForTheDevice() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let first = try await device.launch(Self.aliceOnboards + Self.bobAdded + ["quit"])
        #expect(first.status == 0, "\(first.standardError)")
        let put = try await Self.admin(
            [
                "data", "put", "checks", "F-GTAJ-fuel", "aircraft=A321 F-GTAJ", "stand=14", "item=fuel level",
                "status=refuelled",
            ],
            in: device
        )
        #expect(put.status == 0, "\(put.standardError)")

        // Bob's session reads the fresh checks; Alice, switched to with the network gone,
        // reads the copy Bob's session kept, not the one of her own last session.
        let shift = try await device.launch(
            ["2", Self.bobPasscode, "offline on", "switch", "Alice Martin", Self.alicePasscode, "quit"]
        )
        #expect(shift.status == 0, "\(shift.standardError)")
        let homes = shift.output.components(separatedBy: "Signed in:      ").dropFirst()
        #expect(homes.map { $0.prefix(5) } == ["Bob O", "Alice"])
        let alicesHome = try #require(homes.last)
        #expect(alicesHome.contains("refuelled"), "\(alicesHome)")
        #expect(device.storeCount() == 2)

        // The copy is the device's while it has a user, and goes with the last.
        let copy = device.directory.appending("device/shared-data")
        #expect(FileManager.default.fileExists(atPath: copy.path))
        let bobLeaves = try await device.launch(["2", Self.bobPasscode, "remove", "y", "quit"])
        #expect(bobLeaves.output.contains("The user was removed."))
        #expect(FileManager.default.fileExists(atPath: copy.path), "Alice still uses it")
        let aliceLeaves = try await device.launch(["1", Self.alicePasscode, "remove", "y", "quit"])
        #expect(aliceLeaves.output.contains("The user was removed."))
        #expect(!FileManager.default.fileExists(atPath: copy.path))
    }

    @Test("removing a user with changes pending says so; offline they stay sealed in the outbox, and go later as hers")
    func removalWithChangesPending() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            Self.aliceOnboards + Self.bobAdded + [
                "switch", "Alice Martin", Self.alicePasscode,
                "offline on", "edit F-GKXA-walkaround status=done", "remove", "y", "quit",
            ]
        )
        #expect(result.output.contains("1 change of this user's has not reached the server."), "\(result.output)")
        #expect(result.output.contains("1 change stays in the device's outbox, sealed"))
        #expect(result.output.contains("The user was removed."))
        await #expect(try Self.checks(in: device)["F-GKXA-walkaround"]?["version"] as? Int == 1)

        // Bob's next session carries it (the demo app allows it), as Alice's.
        let bob = try await device.launch(["1", Self.bobPasscode, "quit"])
        #expect(bob.output.contains("Sending 1 change left on this device by other users, as theirs…"), "\(bob.output)")
        let walkaround = try await #require(try Self.checks(in: device)["F-GKXA-walkaround"])
        #expect(walkaround["updatedBy"] as? String == "alice")
        #expect((walkaround["fields"] as? [String: String])?["status"] == "done")
    }

    @Test(
        "the app killed at many points of an upload of three thousand changes: each applied exactly once, as its author's"
    )
    func killedDuringUpload() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        // As many checks as one person may create in a set, each edited 14 times after.
        let checks = EntityLimits.creationsPerAuthor
        let edits = 15
        var lines = Self.aliceOnboards + ["offline on"]
        for round in 0..<edits {
            for check in 0..<checks {
                let id = String(format: "K-%03d", check)
                // A check the device has not seen is created once the person says yes.
                lines += round == 0 ? ["edit \(id) status=open", "y"] : ["edit \(id) reading=\(round)"]
            }
        }
        let app = GangwayProcess(deviceKeys: device.directory.appending("unused-keys"))
        let arguments = ["--data-dir", device.directory.url.path, "--bcrypt-cost", "4"]
        let recorded = try await app.run(arguments, lines: lines + ["home", "quit"])
        #expect(recorded.status == 0, "\(recorded.standardError)")
        #expect(recorded.output.contains("Pending:        \(checks * edits) changes of yours waiting for the server"))

        /// How many of the changes the server has applied: each raises its check's
        /// version by one, from 1 at its creation.
        func applied() async throws -> Int {
            try await Self.checks(in: device).filter { $0.key.hasPrefix("K-") }.values.reduce(0) {
                $0 + ($1["version"] as? Int ?? 0)
            }
        }

        // Each launch hands the outbox over at once, in uploads of 50 changes, and is
        // killed as soon as the server has applied more than before (its answers then
        // still on their way, or not yet kept), until a launch ends on its own with
        // nothing left to send. Small uploads keep the kills partway on a loaded machine. The server
        // runs in the app's process, so a kill also loses answers the server committed.
        // While the app runs (its server holds the admin's port), the server's database
        // is read directly, read-only.
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        let database = try DatabaseQueue(
            path: device.directory.appending("server/gangway-server.sqlite").path,
            configuration: configuration
        )
        @Sendable func appliedWhileRunning() throws -> Int {
            try database.read {
                try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM changes WHERE outcome = 'applied'") ?? 0
            }
        }
        // On a thread of its own: a kill must land while the upload runs, even when other
        // tests hold every cooperative thread with processes they wait for.
        let total = checks * edits
        let (kills, progress) = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { () throws -> (Int, Set<Int>) in
                        var kills = 0
                        var progress: Set<Int> = []
                        var seen = try appliedWhileRunning()
                        for _ in 0..<80 {
                            let process = try app.launch(
                                arguments,
                                lines: ["1", Self.alicePasscode],
                                extraEnvironment: ["GANGWAY_TEST_UPLOAD_BATCH": "50"]
                            )
                            while process.isRunning, try appliedWhileRunning() == seen { usleep(2_000) }
                            guard process.isRunning else { break }
                            kill(process.processIdentifier, SIGKILL)
                            kills += 1
                            while process.isRunning { usleep(20_000) }
                            seen = try appliedWhileRunning()
                            progress.insert(seen)
                            if seen >= total { break }
                        }
                        return (kills, progress)
                    }
                )
            }
        }
        let partway = progress.filter { (1..<total).contains($0) }
        #expect(partway.count >= 3, "kills at several points of the upload, each after more was applied: \(progress)")
        let last = try await app.run(arguments, lines: ["1", Self.alicePasscode, "pending", "quit"])
        #expect(last.output.contains("No changes of yours wait or need a look."), "\(last.output)")

        let server = try await Self.checks(in: device)
        for check in 0..<checks {
            let entity = try #require(server[String(format: "K-%03d", check)])
            #expect(entity["version"] as? Int == edits, "created once and edited \(edits - 1) times, each once")
            #expect((entity["fields"] as? [String: String])?["reading"] == "\(edits - 1)")
            #expect(entity["updatedBy"] as? String == "alice")
        }
        await #expect(try applied() == checks * edits, "each change applied once, after \(kills) kills")
        let listed = try await Self.admin(["data", "changes", "--limit", "1000", "--json"], in: device)
        let changes = try #require(try JSONSerialization.jsonObject(with: listed.standardOutput) as? [[String: Any]])
        #expect(changes.count == 1000)
        #expect(Set(changes.compactMap { $0["changeID"] as? String }).count == 1000)
        #expect(changes.allSatisfy { $0["outcome"] as? String == "applied" })
        let refused = try await Self.admin(["data", "changes", "--outcome", "rejected", "--json"], in: device)
        #expect(
            String(decoding: refused.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                == "[]"
        )
    }
}
