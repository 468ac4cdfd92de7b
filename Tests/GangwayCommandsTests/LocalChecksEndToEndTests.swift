import Foundation
import GangwayTesting
import Testing

@Suite(
    "The device app's checks command: the kept checks filtered, sorted, paged and counted on the device, online or not",
    .tags(.endToEnd),
    .skipsTags
)
struct LocalChecksEndToEndTests {
    typealias Device = DeviceAppEndToEndTests.Device

    @Test("checks with filters, a sort and pages, offline too; a pending edit shows; bad filters are explained")
    func checksCommand() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let run = try await device.launch(
            DeviceAppEndToEndTests.aliceOnboards + [
                "checks status=open sort=-stand", "offline on", "edit F-GKXA-tyres status=done",
                "checks stand=12 status=open", "checks stand!=12", "checks colour=red", "checks nonsense",
                "checks item>=tyre sort=item", "quit",
            ]
        )
        #expect(run.status == 0, "\(run.standardError)")
        let output = run.output
        // The demo's open checks: two at stand 12, one at 14, stand 14 first.
        #expect(output.contains("3 checks match (page 1 of 1), from this device's copy:"), "\(output)")
        let open = output.components(separatedBy: "3 checks match")[1].components(separatedBy: "\n").dropFirst()
            .prefix(3).map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(
            open.map { String($0.prefix(17)).trimmingCharacters(in: .whitespaces) } == [
                "F-GTAJ-fuel", "F-GKXA-tyres", "F-GKXA-walkaround",
            ]
        )
        // Offline, the edit made there shows at once: tyres is done now, pending.
        #expect(
            output.contains("1 check matches (page 1 of 1), from this device's copy:\n  F-GKXA-walkaround"),
            "\(output)"
        )
        #expect(output.contains("2 checks match (page 1 of 1)"), "stand 14's two")
        #expect(output.contains("Not listed: colour is not a field of checks."))
        #expect(output.contains("Usage: checks [FIELD=VALUE …]"))
        #expect(output.contains("tyre pressure    done  (pending)"), "\(output)")
        #expect(
            output.contains("3 checks match (page 1 of 1), from this device's copy:\n  F-GKXA-tyres"),
            "the two tyre checks and the walk-around, by item"
        )
    }

    @Test("listen: its bounds and the offline switch are explained; with nothing new it says so at its end")
    func listenQuietly() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let run = try await device.launch(
            DeviceAppEndToEndTests.aliceOnboards + [
                "listen 0", "listen 2 3", "listen 16", "offline on", "listen", "offline off", "listen 1", "quit",
            ]
        )
        #expect(run.status == 0, "\(run.standardError)")
        let output = run.output
        #expect(
            output.components(separatedBy: "Usage: listen [SECONDS], 1 to 15").count == 4,
            "three refusals: \(output)"
        )
        #expect(output.contains("Offline: nothing can come from the server until 'offline off'."))
        #expect(output.contains("Listening for changes to the checks for up to 1 seconds…"))
        #expect(output.contains("No change to the checks in 1 second."), "\(output)")
    }

    @Test("listen: a check the server receives while the app listens is shown as it comes")
    func listenHearsAChange() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let serverURL = device.directory.appending("server/url")
        // The airline's office adds a check at stand 12 every second, through the app's
        // own server, until the app quits. Each put is a process of its own, started
        // without waiting for the one before (three at most at once): under load one may
        // take many seconds, and the checks still come one a second once the first has.
        // What a put that failed said is kept for the report: one refused while the app
        // quits is no fault, one refused before it heard anything explains why.
        let office = Task {
            await withTaskGroup(of: String?.self) { group in
                var (number, running, failures) = (0, 0, [String]())
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard !Task.isCancelled, FileManager.default.fileExists(atPath: serverURL.path) else { continue }
                    if running == 3 {
                        if case let failure?? = await group.next() { failures.append(failure) }
                        running -= 1
                    }
                    number += 1
                    running += 1
                    let id = "NEW-\(number)"
                    group.addTask {
                        // Not waiting for a turn: the app, which holds one, runs until it hears.
                        do {
                            let put = try await GangwayProcess(deviceKeys: device.directory.appending("unused-keys"))
                                .run(
                                    [
                                        "admin", "data", "put", "--data-dir", device.directory.url.path, "checks", id,
                                        "aircraft=A321 F-GNEW", "stand=12", "item=oil level", "status=open",
                                    ],
                                    takingTurns: false
                                )
                            return put.status == 0 ? nil : "\(id): exit \(put.status): \(put.standardError)"
                        } catch {
                            return "\(id): \(error)"
                        }
                    }
                }
                for await case let failure? in group { failures.append(failure) }
                return failures
            }
        }
        defer { office.cancel() }
        let run = try await device.launch(
            DeviceAppEndToEndTests.aliceOnboards + ["listen 15", "listen 15", "listen 15", "quit"]
        )
        office.cancel()
        // The puts still running end before the directory goes.
        let failedPuts = await office.value
        #expect(run.status == 0, "\(run.standardError)")
        let output = run.output
        let answers = output.components(separatedBy: "Listening for changes to the checks for up to 15 seconds…")
            .dropFirst()
        #expect(answers.count == 3, "\(output)")
        let heard = answers.filter { $0.contains("From the server: ") }
        // The first listen may end before the office's first put has landed (a machine
        // under load); every listen after it hears one.
        #expect(
            heard.count >= 2 && answers.last?.contains("From the server: ") == true,
            "\(output)\nputs that failed: \(failedPuts)"
        )
        for answer in heard {
            // One check, or more when the office was quicker than the app.
            #expect(answer.contains(" new or changed, 0 checks gone."), "\(answer)")
            #expect(answer.contains("NEW-") && answer.contains("A321 F-GNEW"))
        }
        #expect(answers.dropFirst().allSatisfy { !$0.contains("No change to the checks") }, "\(output)")
    }
}
