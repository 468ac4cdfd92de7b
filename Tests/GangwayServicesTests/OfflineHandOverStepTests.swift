import Foundation
import GangwayAdmin
import GangwayFlows
import GangwayProtocol
import GangwayScreens
import GangwayServerTesting
import GangwayServices
import GangwayTesting
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import Testing

@Suite("The offline hand-over is a flow step: the next user's sign-in sends what waits, with no app code")
struct OfflineHandOverStepTests {
    static let rules = OfflineChangesAgainstServerTests.rules
    static let fuel = OfflineChangesAgainstServerTests.fuel

    /// The app's default transport, except that the change uploads fail while `drops`
    /// is above zero, as a network that goes at the wrong moment.
    final class DroppingTransport: ClientTransport {
        let base = ServiceTransport.standard()
        let drops: Mutex<Int>
        let dropped = Mutex(0)

        init(drops: Int) { self.drops = Mutex(drops) }

        func send(
            _ request: HTTPRequest,
            body: HTTPBody?,
            baseURL: URL,
            operationID: String
        ) async throws -> (HTTPResponse, HTTPBody?) {
            if operationID == "uploadSealedChanges",
                drops.withLock({ count in
                    defer { count -= 1 }
                    return count > 0
                })
            {
                dropped.withLock { $0 += 1 }
                throw URLError(.networkConnectionLost)
            }
            return try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
        }
    }

    /// A server whose app lets devices write its checks, and a shared device that hands
    /// over in its flows, where alice is onboarded and has edited a check without
    /// sending it.
    static func aliceLeftAnEdit(
        transport: (any ClientTransport)? = nil,
        _ body: (RunningTestServer, ServicesDevice, ServicesApp) async throws -> Void
    ) async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.admin(.patch, "/admin/apps/checks", json: Self.rules)
            try await server.admin(.put, "/admin/apps/checks/data/checks/F-GKXA-fuel", json: Self.fuel)
            let device = try ServicesDevice(server: server, shared: true, transport: transport, handsOver: true)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            // Nothing waited at her onboarding: the step said so, and sent nothing.
            #expect(device.handOverEvents.withLock { $0.first } == .sending(own: 0, carried: 0, left: 0))
            device.handOverEvents.withLock { $0 = [] }
            let context = try #require(await app.manager.flowContext)
            _ = try await device.work.reader.read("checks", in: context)
            try device.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["status": "done"], in: context)
            #expect(try device.work.waiting(in: context).own == 1)
            try await body(server, device, app)
        }
    }

    @Test func theNextUsersSignInSendsThePreviousUsersEditAsTheirsWithProgress() async throws {
        try await Self.aliceLeftAnEdit { server, device, app in
            app.presenter.append(.welcome(.signIn), .signIn("bob"), .create(ServicesDevice.bobPasscode))
            _ = try await app.manager.addUser()
            let events = device.handOverEvents.withLock { $0 }
            #expect(events.prefix(2) == [.sending(own: 0, carried: 1, left: 0), .progress(done: 1, total: 1)])
            guard case .finished(let report) = events.last else {
                Issue.record("the hand-over did not finish: \(events)")
                return
            }
            #expect(report.sent.answered == [.applied: 1])
            let bob = try #require(await app.manager.flowContext)
            #expect(bob.info[.offlineHandOver] == report)

            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            let check = try #require(try await admin.entities(app: "checks", entitySet: "checks").entities.first)
            #expect(check["status"] == "done")
            #expect(check.updatedBy == "alice", "the author, not the carrier")
            #expect(try await admin.changes(app: "checks").map(\.carrier) == ["bob"])

            // Back to alice: her restore takes the answer in, and nothing of hers waits.
            let alice = try #require(try app.registry.users().first, "alice registered first")
            app.presenter.append(.userPicker(.select(alice.id)), .unlock(ServicesDevice.alicePasscode))
            _ = try await app.manager.switchUser()
            let context = try #require(await app.manager.flowContext)
            #expect(try device.work.own(in: context).isEmpty)
            #expect(try device.work.waiting(in: context) == (0, 0))
            try app.presenter.verifyFinished()
            try await app.manager.close()
        }
    }

    @Test("a forgotten passcode's reset is a way in like the others: what waits is sent before the home screen")
    func aPasscodeResetHandsOver() async throws {
        try await Self.aliceLeftAnEdit { server, device, app in
            try await app.manager.close()
            let alice = try #require(try app.registry.users().first)
            app.presenter.append(
                .userPicker(.select(alice.id)),
                .passcodeInput(.reset),
                .signIn("alice"),
                .create(ServicesDevice.newPasscode)
            )
            _ = try await app.manager.open()
            try app.presenter.verifyFinished()
            let events = device.handOverEvents.withLock { $0 }
            #expect(events.first == .sending(own: 1, carried: 0, left: 0), "\(events)")
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            let check = try #require(try await admin.entities(app: "checks", entitySet: "checks").entities.first)
            #expect(check["status"] == "done")
            try await app.manager.close()
        }
    }

    @Test func aFailedHandOverIsAFlowErrorTheAppRetries() async throws {
        // The sender tries each upload 4 times itself: the network stays away for all 4.
        let transport = DroppingTransport(drops: 4)
        let failures = Mutex<[FlowFailure]>([])
        try await Self.aliceLeftAnEdit(transport: transport) { server, device, app in
            try await app.manager.close()
            let next = try device.launch(
                [.userPicker(.addUser), .welcome(.signIn), .signIn("bob"), .create(ServicesDevice.bobPasscode)]
            ) { failure in
                failures.withLock { $0.append(failure) }
                return .retry
            }
            try await next.manager.open()
            let seen = failures.withLock { $0 }
            #expect(seen.count == 1)
            let failure = try #require(seen.first)
            #expect(failure.canSkip)
            #expect(failure.attempt == 1)
            let error = try #require(failure.error as? OfflineWorkError)
            #expect(error == .handOverFailed)
            #expect(error.underlying as? ServiceError == .unreachable(server.url))
            #expect(error.message.contains("Nothing is lost"))
            #expect(transport.dropped.withLock { $0 } == 4)

            // The retry sent it, once.
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            #expect(try await admin.changes(app: "checks").map(\.result.outcome) == [.applied])
            try next.presenter.verifyFinished()
            try await next.manager.close()
        }
    }

    @Test(arguments: [false, true])
    func goingOnOfflineOpensTheSessionAndKeepsTheChangeForTheNextContact(askingThePerson: Bool) async throws {
        let transport = DroppingTransport(drops: .max)
        try await Self.aliceLeftAnEdit(transport: transport) { server, device, app in
            try await app.manager.close()
            var answers: [ScriptedPresenter.Answer] = [
                .userPicker(.addUser), .welcome(.signIn), .signIn("bob"), .create(ServicesDevice.bobPasscode),
            ]
            if askingThePerson { answers.append(.error(.cancel)) }
            let presenter = Mutex<ScriptedPresenter?>(nil)
            // Asking the person through the app's presenter, or the controller's default.
            let asking: FlowController.Delegate = { failure in
                guard let shown = presenter.withLock({ $0 }) else { return .stop }
                return await OfflineHandOverStep.ask(shown, after: failure)
            }
            let next = try device.launch(answers, delegate: askingThePerson ? asking : nil)
            presenter.withLock { $0 = next.presenter }
            try await next.manager.open()
            #expect(await next.manager.session != nil, "bob is in, offline")
            if askingThePerson {
                let screen = try #require(next.presenter.presented(ErrorScreen.self).first)
                #expect(screen.strings.cancel == StringTable.text("offline.goOnOffline"))
                #expect(screen.allowsRetry)
            }
            let bob = try #require(await next.manager.flowContext)
            #expect(bob.info[.offlineHandOver] == nil)
            #expect(try device.work.waiting(in: bob) == (0, 1), "alice's change waits, nothing lost")
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            #expect(try await admin.changes(app: "checks").isEmpty)
            try next.presenter.verifyFinished()
            try await next.manager.close()
        }
    }

    @Test func aFlowThatDidNotReachTheServerTriesNothing() async throws {
        let failures = Mutex(0)
        try await Self.aliceLeftAnEdit { server, device, app in
            try await app.manager.close()
            try device.goOffline()
            let alice = try #require(try app.registry.users().first)
            let next = try device.launch([.userPicker(.select(alice.id)), .unlock(ServicesDevice.alicePasscode)]) { _ in
                failures.withLock { $0 += 1 }
                return .stop
            }
            try await next.manager.open()
            #expect(await next.manager.session != nil)
            #expect(device.handOverEvents.withLock { $0 }.isEmpty)
            #expect(failures.withLock { $0 } == 0)
            let context = try #require(await next.manager.flowContext)
            #expect(try device.work.waiting(in: context).own == 1)
            try await next.manager.close()
        }
    }
}
