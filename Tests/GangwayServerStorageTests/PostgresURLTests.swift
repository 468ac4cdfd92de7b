import Foundation
import GangwayProtocol
import GangwayServerStorage
import GangwayTesting
import Logging
import Synchronization
import Testing

/// What a PostgreSQL URL says, read as libpq reads it: `sslmode` never weaker than it
/// says, and a password wherever it is found and hidden.
@Suite("A PostgreSQL URL: TLS as its sslmode says, never less; its password found and hidden")
struct PostgresURLTests {
    static func driver(_ url: String) throws(StorageError) -> PostgresDriver {
        try PostgresDriver(url: url, logger: Logger(label: "test"))
    }

    @Test("libpq's six sslmodes are taken; any other is refused in words, never read as a weaker one")
    func sslModes() throws {
        for mode in ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] {
            _ = try Self.driver("postgres://gw@db.example/gangway?sslmode=\(mode)")
        }
        _ = try Self.driver("postgres://gw@db.example/gangway")
        for mode in ["verify-cn", "REQUIRE", "", "true"] {
            #expect("\(mode)") {
                _ = try Self.driver("postgres://gw@db.example/gangway?sslmode=\(mode)")
            } throws: { error in
                (error as? StorageError)?.message
                    == "the PostgreSQL URL's sslmode must be disable, allow, prefer, require, verify-ca or verify-full"
            }
        }
    }

    /// What a server that declines TLS is sent on one connection: the 8 bytes of the
    /// SSLRequest, then whatever comes after its refusal (`N`).
    static func sentToADecliningServer(sslmode: String) async throws -> [UInt8] {
        let listener = try LoopbackListener()
        defer { listener.close() }
        // Blocking reads, on a thread of their own: never one of the tasks' few threads.
        let received = Mutex<[UInt8]?>(nil)
        let done = DispatchSemaphore(value: 0)
        let server = Thread {
            defer { done.signal() }
            var waiting = pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 20_000) == 1 else { return received.withLock { $0 = [] } }
            let client = accept(listener.descriptor, nil, nil)
            guard client >= 0 else { return received.withLock { $0 = [] } }
            defer { close(client) }
            var timeout = timeval(tv_sec: 20, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1_024)
            // Until the client closes, or sends anything past the SSLRequest.
            while bytes.count <= 8 {
                let count = read(client, &buffer, buffer.count)
                guard count > 0 else { break }
                let before = bytes.count
                bytes += buffer[0..<count]
                if before < 8, bytes.count >= 8 { _ = write(client, "N", 1) }
            }
            received.withLock { $0 = bytes }
        }
        server.start()
        let driver = try Self.driver("postgres://gw@127.0.0.1:\(listener.port)/gangway?sslmode=\(sslmode)")
        await #expect(throws: StorageError.self) { try await driver.waitUntilReachable(within: .zero) }
        await withCheckedContinuation { continuation in
            Thread {
                done.wait()
                continuation.resume()
            }
            .start()
        }
        return received.withLock { $0 } ?? []
    }

    @Test(
        "require, verify-ca and verify-full stop at a server that declines TLS: nothing but the request for it is sent",
        arguments: ["require", "verify-ca", "verify-full"]
    )
    func tlsOrNothing(sslmode: String) async throws {
        let sent = try await Self.sentToADecliningServer(sslmode: sslmode)
        #expect(sent.count == 8, "the SSLRequest alone, no startup message in plain text: \(sent.count) bytes")
    }

    @Test("prefer goes on without TLS when the server declines it: the startup message follows, user and database")
    func preferGoesOn() async throws {
        let sent = try await Self.sentToADecliningServer(sslmode: "prefer")
        #expect(sent.count > 8 && String(decoding: sent.dropFirst(8), as: UTF8.self).contains("gangway"))
    }

    @Test("a password in the user part or the query is found, and shown as ***; an empty one is none")
    func passwords() {
        #expect(WebURL.password(in: "postgres://gw:s3cret@db/g") == "s3cret")
        #expect(WebURL.password(in: "postgres://gw@db/g?sslmode=require&password=s3cret") == "s3cret")
        #expect(WebURL.password(in: "postgres://gw@db/g?password=") == nil)
        #expect(WebURL.password(in: "postgres://gw@db/g") == nil)
        #expect(WebURL.hidingPassword("postgres://gw:s3cret@db/g") == "postgres://gw:***@db/g")
        #expect(
            WebURL.hidingPassword("postgres://gw@db/g?sslmode=require&password=s3cret")
                == "postgres://gw@db/g?sslmode=require&password=***"
        )
        #expect(WebURL.hidingPassword("postgres://gw@db/g") == "postgres://gw@db/g")
    }

    @Test("the services a server runs on PostgreSQL describe themselves by name: the service group logs them at debug")
    func servicesHideTheirConfiguration() throws {
        let driver = try Self.driver("postgres://gw:s3cret-41@127.0.0.1:1/g?sslmode=disable")
        let listener = try #require(driver.makeNoticeListener { _ in })
        let pool = try #require(driver.makeConnectionPool())
        for service in [listener, pool] {
            // As ServiceLifecycle writes its `sl-services` and `sl-service` metadata.
            for text in ["\(service)", String(reflecting: service), "\([service])"] {
                #expect(!text.contains("s3cret-41") && !text.contains("gw"), "\(text)")
            }
        }
        #expect("\(listener)" == "PostgresNoticeListener")
    }
}
