import Foundation
import GangwayFlows
import GangwayScreens
import GangwayServerTesting
import GangwayServices
import GangwayTesting
import HTTPTypes
import Logging
import Testing

@Suite("Stories: the app's logs go to the server only as each user allows")
struct LogUploadStoryTests {
    static let usage = ConsentStep(
        topic: "usage-reports",
        version: 1,
        isRequired: false,
        pages: [ConsentScreen.Page(title: "Usage reports", body: "Send how the app is used?")],
        followsServer: true
    )

    /// What the server received, as an administrator lists it.
    static func uploaded(_ server: RunningTestServer) async throws -> [(user: String, message: String)] {
        let reply = try await server.admin(.get, "/admin/apps/checks/logs?limit=1000")
        #expect(reply.status == .ok)
        let list = try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]] ?? []
        return list.map { ($0["userID"] as? String ?? "", $0["message"] as? String ?? "") }
    }

    static func enableLogs(_ server: RunningTestServer, level: String = "info", interval: Int = 600) async throws {
        let body =
            #"{"settings": {"logSettings": {"logEnabled": true, "logLevel": "\#(level)", "uploadIntervalSeconds": \#(interval)}}}"#
        let reply = try await server.admin(.patch, "/admin/apps/checks", json: body)
        #expect(reply.status == .ok, "\(String(decoding: reply.body, as: UTF8.self))")
    }

    /// Alice onboarded on a device whose app collects its logs, her usage-reports consent
    /// given: the device, its collector, a logger of the app's own and her open app.
    static func aliceAllowing(
        on server: RunningTestServer
    ) async throws -> (
        device: ServicesDevice, collector: LogCollector, app: Logger, first: ServicesApp, session: Session
    ) {
        let collector = LogCollector()
        let device = try ServicesDevice(server: server, agreements: [usage], collector: collector)
        let app = Logger(label: "ground-checks") { collector.handler(label: $0) }
        let first = try device.launch(
            .byEmail,
            .signIn("alice"),
            .consent(.accept),
            .create(ServicesDevice.alicePasscode)
        )
        let session = try await first.manager.open()
        return (device, collector, app, first, session)
    }

    @Test func consentLevelAndScheduleGovernUploadsAndWithdrawingStopsThemAtOnce() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.enableLogs(server)
            let (device, collector, app, first, session) = try await Self.aliceAllowing(on: server)
            app.info("check opened", metadata: ["check": "F-GKXA-fuel"])
            app.debug("below the server's level")

            // Going to the background is a server contact: alice's records go.
            await first.manager.enterBackground()
            var received = try await Self.uploaded(server)
            #expect(received.contains { $0.user == "alice" && $0.message == "check opened check=F-GKXA-fuel" })
            #expect(!received.contains { $0.message.contains("below the server's level") })
            #expect(collector.entries(for: session.onboardingID).isEmpty, "sent records are forgotten")

            // Within the server's interval nothing more goes; past it, the next contact sends.
            device.clock.advance(by: .seconds(600))
            first.presenter.append(.unlock(ServicesDevice.alicePasscode))
            #expect(try await first.manager.enterForeground() == .unlock)
            app.notice("fuel level recorded")
            await first.manager.enterBackground()
            received = try await Self.uploaded(server)
            #expect(!received.contains { $0.message == "fuel level recorded" }, "not due yet")
            device.wallClock.advance(by: .seconds(601))
            device.clock.advance(by: .seconds(600))
            first.presenter.append(.unlock(ServicesDevice.alicePasscode))
            #expect(try await first.manager.enterForeground() == .unlock)
            await first.manager.enterBackground()
            received = try await Self.uploaded(server)
            #expect(received.contains { $0.message == "fuel level recorded" })

            // Alice withdraws her consent: her kept records go, and nothing more is sent.
            device.clock.advance(by: .seconds(600))
            first.presenter.append(.unlock(ServicesDevice.alicePasscode))
            #expect(try await first.manager.enterForeground() == .unlock)
            let store = try #require(await first.manager.store)
            try ConsentRecord(version: 1, accepted: false).save(topic: "usage-reports", to: store)
            app.warning("tyre pressure low")
            device.wallClock.advance(by: .seconds(601))
            await first.manager.enterBackground()
            received = try await Self.uploaded(server)
            #expect(!received.contains { $0.message == "tyre pressure low" })
            #expect(collector.entries(for: session.onboardingID).isEmpty)
        }
    }

    @Test func aUserWhoDeclinedNeverHasTheirRecordsSentAndOthersDoNotCarryThem() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.enableLogs(server)
            let collector = LogCollector()
            let device = try ServicesDevice(
                server: server,
                shared: true,
                agreements: [Self.usage],
                collector: collector
            )
            let app = Logger(label: "ground-checks") { collector.handler(label: $0) }

            let bob = try device.launch(
                .byEmail,
                .signIn("bob"),
                .consent(.decline),
                .create(ServicesDevice.bobPasscode)
            )
            try await bob.manager.open()
            app.info("bob's check")
            await bob.manager.enterBackground()
            try await bob.manager.close()

            let alice = try device.launch(
                .userPicker(.addUser),
                .welcome(.signIn),
                .signIn("alice"),
                .consent(.accept),
                .create(ServicesDevice.alicePasscode)
            )
            try await alice.manager.open()
            app.info("alice's check")
            await alice.manager.enterBackground()
            let received = try await Self.uploaded(server)
            #expect(received.contains { $0.user == "alice" && $0.message == "alice's check" })
            #expect(!received.contains { $0.message == "bob's check" }, "alice's consent does not carry bob's records")
            #expect(!received.contains { $0.user == "bob" })
        }
    }

    @Test func aFlowThatDidNotReachTheServerTriesNothing() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.enableLogs(server)
            let (device, collector, app, first, session) = try await Self.aliceAllowing(on: server)
            app.info("logged after the onboarding")
            let step = LogUploadStep(services: device.services, collector: collector, consentTopic: "usage-reports")

            // The session's context no longer carries a server contact: nothing is tried.
            var context = try #require(await first.manager.flowContext)
            #expect(context.info[.settingsExchanged] == nil)
            _ = try await step.background(context)
            #expect(!(try await Self.uploaded(server)).contains { $0.message == "logged after the onboarding" })
            #expect(collector.entries(for: session.onboardingID).count == 1)

            // A flow that exchanged the settings sends, and clears the mark.
            context.info[.settingsExchanged] = true
            let after = try await step.background(context)
            #expect(after.info[.settingsExchanged] == nil)
            #expect(try await Self.uploaded(server).contains { $0.message == "logged after the onboarding" })
        }
    }

    @Test func withUploadsOffNothingGoesWhateverTheConsent() async throws {
        try await TestServer.run(seed: .checks) { server in
            let (_, collector, app, first, session) = try await Self.aliceAllowing(on: server)
            app.info("check opened")
            await first.manager.enterBackground()
            #expect(try await Self.uploaded(server).isEmpty)
            #expect(!collector.entries(for: session.onboardingID).isEmpty, "kept until the server takes them")
        }
    }
}
