import Foundation
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import NIOHTTP1
import Testing

/// Three `gangway serve` processes on one PostgreSQL schema, each keeping what it reads
/// for a minute (`--cache-seconds 60`): what an admin changes through one holds on the
/// others at once, because each hears the others' notices, not when its cache expires.
@Suite(
    "Three gangway serve processes on one PostgreSQL: a wipe, a lock and a sign-out through one hold on the others at once",
    .tags(.endToEnd, .postgres),
    .skipsTags
)
struct CrossProcessEndToEndTests {
    typealias Call = DestinationStreamingEndToEndTests

    @Test(
        "a wiped device is refused by the other two, a locked one too, and a session signed out through one is refused by all",
        .enabled(if: TestDatabase.postgresqlFromEnvironment != nil, "needs \(TestDatabase.environmentVariable)")
    )
    func threeProcesses() async throws {
        guard case .postgresql(let url) = TestDatabase.postgresqlFromEnvironment else { return }
        try await TestDatabase.withNewPostgresSchema(of: url) { schemaURL in
            let directory = try TemporaryDirectory(prefix: "gangway-processes")
            defer { directory.remove() }
            let common = ["--postgres", schemaURL, "--cache-seconds", "60", "--log-level", "warning"]
            let first = try ServeProcess(common + ["--demo"], in: directory.appending("a"))
            defer { first.stop() }
            // The others get the first one's server key, as the README says.
            var others: [ServeProcess] = []
            defer { for other in others { other.stop() } }
            for name in ["b", "c"] {
                let data = directory.appending(name)
                try PrivateFiles.makeDirectory(data)
                try PrivateFiles.write(
                    try Data(contentsOf: directory.appending("a").appendingPathComponent("server-key")),
                    to: data.appendingPathComponent("server-key")
                )
                others.append(try ServeProcess(common, in: data))
            }
            let servers = [first] + others

            // Alice's and Bob's tablets, registered through the first; each process reads
            // both, and keeps what it read for a minute.
            var tokens: [String: String] = [:]
            for (user, device) in [("alice", "stand-1"), ("bob", "stand-2")] {
                let session = try await Call.call(
                    .POST,
                    first.url + "/apps/checks/sessions",
                    json: #"{"username": "\#(user)", "password": "preflight-\#(user)", "deviceID": "\#(device)"}"#
                )
                let token = try #require(session.body["token"] as? String, "\(session)")
                let registered = try await Call.call(
                    .PUT,
                    first.url + "/apps/checks/devices/\(device)",
                    token: token,
                    json: #"{"deviceName": "Tablet", "platform": "linux", "appVersion": "1.0.0"}"#
                )
                #expect(registered.status == 200, "\(registered)")
                tokens[user] = token
            }
            for server in servers {
                for token in tokens.values {
                    #expect(try await Call.call(.GET, server.url + "/apps/checks/settings", token: token).status == 200)
                }
            }

            // Alice's tablet is wiped through the first, with the admin command.
            let admin = GangwayProcess(deviceKeys: directory.appending("keys"))
            let wiped = try await admin.run(
                ["admin", "devices", "wipe", "alice", "--server", first.url, "--token-file", first.tokenFile]
            )
            #expect(wiped.status == 0, "\(wiped.standardError)")
            for server in others {
                #expect(
                    try await eventually {
                        let reply = try await Call.call(
                            .GET,
                            server.url + "/apps/checks/settings",
                            token: tokens["alice"]
                        )
                        return reply.body["code"] as? String == "TRAFFIC_REG_WIPED"
                    },
                    "\(server.url) still serves the wiped device"
                )
            }

            // Bob's is locked through the second; the first and third refuse it.
            let locked = try await admin.run(
                ["admin", "devices", "lock", "bob", "--server", others[0].url, "--token-file", first.tokenFile]
            )
            #expect(locked.status == 0, "\(locked.standardError)")
            for server in [first, others[1]] {
                #expect(
                    try await eventually {
                        let reply = try await Call.call(
                            .GET,
                            server.url + "/apps/checks/settings",
                            token: tokens["bob"]
                        )
                        return reply.body["code"] as? String == "TRAFFIC_REG_LOCKED"
                    },
                    "\(server.url) still serves the locked device"
                )
            }

            // Alice signs in on another tablet through the third and out through the
            // second: all refuse that token.
            let session = try await Call.call(
                .POST,
                others[1].url + "/apps/checks/sessions",
                json: #"{"username": "alice", "password": "preflight-alice", "deviceID": "stand-3"}"#
            )
            let token = try #require(session.body["token"] as? String, "\(session)")
            for server in servers {
                #expect(try await Call.call(.GET, server.url + "/apps/checks/settings", token: token).status == 200)
            }
            #expect(
                try await Call.call(.DELETE, others[0].url + "/apps/checks/sessions/current", token: token).status
                    == 204
            )
            for server in servers {
                #expect(
                    try await eventually {
                        try await Call.call(.GET, server.url + "/apps/checks/settings", token: token).status == 401
                    },
                    "\(server.url) still takes the signed-out token"
                )
            }
        }
    }
}
