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
}
