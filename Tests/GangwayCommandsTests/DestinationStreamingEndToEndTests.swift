import AsyncHTTPClient
import Foundation
import GangwayServerTesting
import GangwayTesting
import NIOCore
import NIOHTTP1
import Testing

/// A destination's answer streams through `gangway serve`: fifty megabytes from the
/// company's backend (not Gangway's code, ``TestDestinationBackend``) reach the device
/// while the server's memory stays flat, measured as its resident set.
@Suite(
    "Destinations through the built server: a 50 MB answer streams, the server's memory stays flat",
    .tags(.endToEnd),
    .skipsTags
)
struct DestinationStreamingEndToEndTests {
    /// The resident set of process `id`, in bytes, from `/proc`.
    static func residentBytes(of id: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(id)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? ""))
        return kilobytes * 1024
    }

    static func call(
        _ method: HTTPMethod,
        _ url: String,
        token: String? = nil,
        json: String? = nil
    ) async throws -> (status: UInt, body: [String: Any]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        let object = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
        return (response.status.code, object)
    }

    /// A session of the demo's `user` (password `preflight-USER`) on `device`, registered
    /// through the server at `url`: what a device holds once it has onboarded.
    static func registeredSession(_ url: String, user: String = "alice", device: String) async throws -> String {
        let session = try await call(
            .POST,
            url + "/apps/checks/sessions",
            json: #"{"username": "\#(user)", "password": "preflight-\#(user)", "deviceID": "\#(device)"}"#
        )
        let token = try #require(session.body["token"] as? String, "\(session)")
        let registered = try await call(
            .PUT,
            url + "/apps/checks/devices/\(device)",
            token: token,
            json: #"{"deviceName": "Tablet", "platform": "linux", "appVersion": "1.0.0"}"#
        )
        #expect(registered.status == 200, "\(registered)")
        return token
    }

    @Test(
        "fifty megabytes from the backend, as alice, through a destination added with gangway admin",
        .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func fiftyMegabytes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let serve = try await ServeProcess(["--demo"], in: directory.appending("server"))
        defer { serve.stop() }
        let url = serve.url
        let issuer = url + "/apps/checks"
        try await TestDestinationBackend.using(jwks: issuer + "/destination-keys", issuer: issuer) { backend in
            let runner = GangwayProcess(deviceKeys: directory.appending("device-keys"))
            let added = try await runner.run(
                [
                    "admin", "destinations", "add", "files", "--url", backend.url, "--server", url, "--token-file",
                    serve.tokenFile,
                ],
                lines: []
            )
            #expect(added.status == 0, "\(added.standardError)")

            let token = try await Self.registeredSession(url, device: "stand-12")
            let whoami = try await Self.call(.GET, url + "/apps/checks/destinations/files/whoami", token: token)
            #expect(whoami.body["sub"] as? String == "alice", "\(whoami)")

            let size = 50 << 20
            let server = serve.process.processIdentifier
            let before = try Self.residentBytes(of: server)
            var request = HTTPClientRequest(url: url + "/apps/checks/destinations/files/download?bytes=\(size)")
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
            #expect(response.status.code == 200)
            var received = 0
            var peak = before
            var chunks = 0
            for try await chunk in response.body {
                received += chunk.readableBytes
                chunks += 1
                // The device reads slowly at times, as a phone on a poor network does: the
                // server must hold back, not buffer the rest.
                if chunks % 64 == 0 {
                    peak = max(peak, try Self.residentBytes(of: server))
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            #expect(received == size)
            let grown = peak - before
            #expect(grown < 16 << 20, "the server's memory grew by \(grown / (1 << 20)) MB for a 50 MB answer")
            print("destination.stream.rss_growth_mb: \(grown / (1 << 20))")
        }
    }
}
