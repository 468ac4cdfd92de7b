import Foundation
import GangwayTesting
import NIOHTTP1
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `gangway serve` told to stop, as a supervisor does it (SIGTERM): it says it is not
/// ready, goes on serving for its drain, stops taking connections, lets the request in
/// flight finish, and exits 0.
@Suite(
    "gangway serve stops as a supervisor expects: not ready at once, the request in flight finished, exit 0",
    .tags(.endToEnd),
    .skipsTags
)
struct ServeShutdownEndToEndTests {
    /// One HTTP/1.1 connection to the server, written and read by hand, so a request can
    /// be left half sent.
    final class Connection: Sendable {
        let socket: Int32

        init(port: Int) throws {
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard socket >= 0 else { throw Refusal("no socket") }
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(socket)
                throw Refusal("connection refused")
            }
        }

        deinit { close(socket) }

        func send(_ text: String) throws {
            let bytes = Array(text.utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes.withUnsafeBytes {
                    Glibc.send(socket, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                }
                guard count > 0 else { throw Refusal("the server stopped reading after \(sent) bytes") }
                sent += count
            }
        }

        /// All the server writes until it closes the connection.
        func readToEnd() -> String {
            var answer = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                answer += buffer[0..<count]
            }
            return String(decoding: answer, as: UTF8.self)
        }
    }

    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A chunk of NDJSON lines putting checks `range`, in the chunked transfer coding.
    static func chunk(_ range: ClosedRange<Int>) -> String {
        let lines = range.map { #"{"id": "S-\#($0)", "fields": {"status": "open", "item": "stand check"}}"# + "\n" }
            .joined()
        return String(lines.utf8.count, radix: 16) + "\r\n" + lines + "\r\n"
    }

    @Test("SIGTERM mid-request: ready answers 503 during the drain, the ingest in flight ends 200, the process exits 0")
    func drainAndFinish() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-shutdown")
        defer { directory.remove() }
        let serve = try await ServeProcess(
            ["--demo", "--drain-seconds", "2", "--log-level", "notice"],
            in: directory.appending("server")
        )
        defer { serve.stop() }
        let port = try #require(URLComponents(string: serve.url)?.port)
        let token = try String(contentsOfFile: serve.tokenFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await DestinationStreamingEndToEndTests.call(.GET, serve.url + "/health/live").status == 200)
        let ready = try await DestinationStreamingEndToEndTests.call(.GET, serve.url + "/health/ready")
        #expect(ready.status == 200 && ready.body["status"] as? String == "ready", "\(ready.body)")

        // An ingest whose body is half sent when the server is told to stop.
        let connection = try Connection(port: port)
        try connection.send(
            "POST /admin/apps/checks/data/checks/ingest/shutdown HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(token)\r\nContent-Type: application/x-ndjson\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n" + Self.chunk(1...100)
        )
        try await Task.sleep(for: .milliseconds(300))
        kill(serve.process.processIdentifier, SIGTERM)

        // Draining: still serving, and saying it is not ready.
        var drained: (status: UInt, body: [String: Any])?
        for _ in 0..<40 {
            let probe = try await DestinationStreamingEndToEndTests.call(.GET, serve.url + "/health/ready")
            if probe.status == 503 {
                drained = probe
                break
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        let probe = try #require(drained, "ready answered 503 within a second of SIGTERM")
        #expect(probe.body["reason"] as? String == "draining", "\(probe.body)")
        #expect(serve.process.isRunning, "it goes on for its drain")

        // The request in flight finishes after the drain, and is answered.
        try connection.send(Self.chunk(101...150) + "0\r\n\r\n")
        let answer = connection.readToEnd()
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(400))")
        #expect(answer.contains(#""written":150"#), "\(answer.suffix(400))")

        serve.process.waitUntilExit()
        #expect(serve.process.terminationReason == .exit && serve.process.terminationStatus == 0)
        #expect(throws: Refusal.self, "the port is closed once it has exited") { try Connection(port: port) }
        // Each step of the stop is said, the last too.
        let log = try await serve.stopAndReadLog()
        var rest = Substring(log)
        for step in ["Stopping: /health/ready answers 503", "Stopping: no new connections", "Stopped"] {
            let found = try #require(rest.range(of: step), "\(step) in \(log)")
            rest = rest[found.upperBound...]
        }
    }

    @Test("SIGTERM while a sync waits for a change: answered at the drain's end, its cursor as it was; exit 0 at once")
    func waitingSyncIsAnswered() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-shutdown")
        defer { directory.remove() }
        let serve = try await ServeProcess(
            ["--demo", "--drain-seconds", "1", "--log-level", "warning"],
            in: directory.appending("server")
        )
        defer { serve.stop() }
        let session = try await DestinationStreamingEndToEndTests.call(
            .POST,
            serve.url + "/apps/checks/sessions",
            json: #"{"username": "alice", "password": "preflight-alice", "deviceID": "stand-9"}"#
        )
        let token = try #require(session.body["token"] as? String, "\(session.body)")
        let registered = try await DestinationStreamingEndToEndTests.call(
            .PUT,
            serve.url + "/apps/checks/devices/stand-9",
            token: token,
            json: #"{"deviceName": "stand 9", "platform": "linux", "appVersion": "1.0.0"}"#
        )
        #expect((200..<300).contains(registered.status), "\(registered.body)")
        let first = try await DestinationStreamingEndToEndTests.call(
            .GET,
            serve.url + "/apps/checks/data/checks/changes",
            token: token
        )
        let cursor = try #require(first.body["cursor"] as? String, "\(first.body)")
        let changes = serve.url + "/apps/checks/data/checks/changes?wait=15&cursor="
        let waiting = Task {
            let answer = try await DestinationStreamingEndToEndTests.call(
                .GET,
                changes + (cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor),
                token: token
            )
            return (
                answer.status, answer.body["cursor"] as? String, (answer.body["entities"] as? [Any])?.count,
                "\(answer.body)"
            )
        }
        try await Task.sleep(for: .milliseconds(500))
        let signalled = ContinuousClock.now
        kill(serve.process.processIdentifier, SIGTERM)
        let (status, answeredCursor, entities, body) = try await waiting.value
        let answered = ContinuousClock.now - signalled
        #expect(status == 200, "\(body)")
        #expect(answeredCursor == cursor, "nothing changed: the same cursor, to ask again elsewhere")
        #expect(entities == 0, "\(body)")
        #expect(answered >= .seconds(1), "served through the drain: \(answered)")
        #expect(answered < .seconds(10), "not held for the wait's 15 s: \(answered)")
        serve.process.waitUntilExit()
        #expect(serve.process.terminationReason == .exit && serve.process.terminationStatus == 0)
    }

    @Test("a request still running after the grace period does not hold the process: it ends all the same")
    func graceEnds() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-shutdown")
        defer { directory.remove() }
        let serve = try await ServeProcess(
            ["--demo", "--grace-seconds", "1", "--log-level", "warning"],
            in: directory.appending("server")
        )
        defer { serve.stop() }
        let port = try #require(URLComponents(string: serve.url)?.port)
        let token = try String(contentsOfFile: serve.tokenFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let connection = try Connection(port: port)
        try connection.send(
            "POST /admin/apps/checks/data/checks/ingest/stuck HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(token)\r\nContent-Type: application/x-ndjson\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n" + Self.chunk(1...10)
        )
        try await Task.sleep(for: .milliseconds(300))
        let signalled = ContinuousClock.now
        kill(serve.process.processIdentifier, SIGTERM)
        // The body never ends; the process does, soon after its grace.
        while serve.process.isRunning, ContinuousClock.now - signalled < .seconds(20) {
            try await Task.sleep(for: .milliseconds(50))
        }
        let took = ContinuousClock.now - signalled
        #expect(!serve.process.isRunning, "ended after its grace, not held by the request")
        serve.process.waitUntilExit()
        #expect(took >= .seconds(1), "the request had its grace: \(took)")
        #expect(serve.process.terminationReason == .exit)
    }

    @Test(
        "a drain, grace or cache lifetime out of range is refused in one sentence, exit 64",
        arguments: [
            (["--drain-seconds", "301"], "--drain-seconds must be between 0 and 300 seconds."),
            (["--drain-seconds", "-1"], "--drain-seconds must be between 0 and 300 seconds."),
            (["--grace-seconds", "0"], "--grace-seconds must be between 1 and 3600 seconds."),
            (["--cache-seconds", "3601"], "--cache-seconds must be between 0 and 3600 seconds."),
            (["--cache-seconds", "-1"], "--cache-seconds must be between 0 and 3600 seconds."),
        ]
    )
    func outOfRange(arguments: [String], message: String) async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-shutdown")
        defer { directory.remove() }
        let result = try await GangwayProcess(deviceKeys: directory.appending("keys")).run(
            ["serve", "--port", "0", "--data-dir", directory.appending("server").path] + arguments
        )
        #expect(result.status == 64)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("server").path), "nothing written")
    }
}
