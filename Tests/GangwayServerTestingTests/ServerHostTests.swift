import Foundation
import GangwayServer
import GangwayServerTesting
import Logging
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("ServerHost: the lifecycle of a server run in this process", .servingTurn)
struct ServerHostTests {
    private func host() async throws -> (ServerHost, TestServer) {
        let test = try await TestServer()
        return (ServerHost(server: test.server, logger: test.options.logger), test)
    }

    @Test("serving gives the bound port, then stops; a host runs once")
    func servesOnce() async throws {
        let (host, test) = try await host()
        defer { test.removeDirectory() }
        let port = try await host.serving { port in port }
        #expect(port > 0)
        await #expect(throws: ServerHostError.notListening) { try await host.port() }
        await #expect(throws: ServerHostError.finished) { try await host.run() }
    }

    @Test("run while running is refused; stop before listening ends the waiters")
    func misuse() async throws {
        let (host, test) = try await host()
        defer { test.removeDirectory() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await host.run() }
            let port = try await host.port()
            #expect(try await host.url().absoluteString == "http://127.0.0.1:\(port)")
            await #expect(throws: ServerHostError.alreadyRunning) { try await host.run() }
            await host.stop()
            try await group.waitForAll()
        }

        let (idle, other) = try await self.host()
        defer { other.removeDirectory() }
        let waiter = Task { try await idle.port() }
        try await Task.sleep(for: .milliseconds(100))
        await idle.stop()
        await #expect(throws: ServerHostError.notListening) { try await waiter.value }
        await #expect(throws: ServerHostError.notListening) { try await idle.port() }
    }

    @Test("stop lets a request in flight finish")
    func gracefulStop() async throws {
        // bcrypt at cost 13 keeps the sign-in busy long after stop is asked for.
        let test = try await TestServer(options: .init(bcryptCost: 13))
        defer { test.removeDirectory() }
        try await test.server.seed(ServerSeed(apps: [.checks], users: [.alice]))
        let host = ServerHost(server: test.server, logger: test.options.logger)
        let status = try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                try await host.run()
                return nil
            }
            let url = try await host.url().appendingPathComponent("apps/checks/sessions")
            group.addTask {
                var request = URLRequest(url: url)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.httpBody = Data(
                    #"{"username": "alice", "password": "alice-password", "deviceID": "d1"}"#.utf8
                )
                let (_, response) = try await URLSession.shared.data(for: request)
                return (response as? HTTPURLResponse)?.statusCode
            }
            try await Task.sleep(for: .milliseconds(150))
            await host.stop()
            var status: Int?
            for try await result in group { status = status ?? result }
            return status
        }
        #expect(status == 201)
    }

    // A minute from the server's turn to serve: the wait for the turn (eight servers serve
    // at once, and a loaded machine makes the queue long) is not what is measured.
    @Test("a port another server holds makes run throw, not hang")
    func portTaken() async throws {
        try await TestServer.run { running in
            var configuration = running.server.configuration
            configuration.port = running.port
            let again = try await MobileServicesServer(
                configuration: configuration,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            let outcome = try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask {
                    do {
                        try await ServerHost(server: again).serving { _ in }
                        return "served"
                    } catch {
                        return "threw"
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(60))
                    return "still running after a minute"
                }
                let first = try await group.next() ?? "nothing"
                group.cancelAll()
                return first
            }
            #expect(outcome == "threw")
        }
    }
}
