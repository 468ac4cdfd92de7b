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
    "Three gangway serve processes on one PostgreSQL: a wipe, a lock, a key rotation and a sign-out through one hold on the others at once",
    .tags(.endToEnd, .postgres),
    .skipsTags
)
struct CrossProcessEndToEndTests {
    typealias Call = DestinationStreamingEndToEndTests

    @Test(
        "a wiped device is refused by the other two, a locked one too, a rotated key is theirs too, and a session signed out through one is refused by all",
        .enabled(if: TestDatabase.postgresqlFromEnvironment != nil, "needs \(TestDatabase.environmentVariable)")
    )
    func threeProcesses() async throws {
        guard case .postgresql(let url) = TestDatabase.postgresqlFromEnvironment else { return }
        try await TestDatabase.withNewPostgresSchema(of: url) { schemaURL in
            let directory = try TemporaryDirectory(prefix: "gangway-processes")
            defer { directory.remove() }
            let common = ["--postgres", schemaURL, "--cache-seconds", "60", "--log-level", "warning"]
            let first = try await ServeProcess(common + ["--demo"], in: directory.appending("a"))
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
                others.append(try await ServeProcess(common, in: data))
            }
            let servers = [first] + others
            // Their admin token is the first's, which their directories do not hold: said.
            for other in others {
                #expect(
                    other.printed.contains("copy the admin-token file of the server that made it here"),
                    "\(other.printed)"
                )
            }

            // Alice's and Bob's tablets, registered through the first; each process reads
            // both, and keeps what it read for a minute.
            var tokens: [String: String] = [:]
            for (user, device) in [("alice", "stand-1"), ("bob", "stand-2")] {
                tokens[user] = try await Call.registeredSession(first.url, user: user, device: device)
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

            // The destination key is rotated at once through the first (each process has read
            // the key set and keeps it a minute): the others publish the new key, and sign
            // with it, at once.
            var keySets: [String: [String]] = [:]
            for server in servers {
                let keys = try await Call.call(.GET, server.url + "/apps/checks/destination-keys")
                keySets[server.url] = (keys.body["keys"] as? [[String: Any]] ?? []).compactMap { $0["kid"] as? String }
                #expect(keySets[server.url]?.count == 1, "\(keys)")
            }
            let rotated = try await admin.run(
                [
                    "admin", "keys", "rotate", "destination", "--immediately", "--server", first.url, "--token-file",
                    first.tokenFile,
                ]
            )
            #expect(rotated.status == 0, "\(rotated.standardError)")
            for server in others {
                #expect(
                    try await eventually {
                        let keys = try await Call.call(.GET, server.url + "/apps/checks/destination-keys")
                        let kids = (keys.body["keys"] as? [[String: Any]] ?? []).compactMap { $0["kid"] as? String }
                        return kids.count == 2 && rotated.output.contains(kids[0])
                    },
                    "\(server.url) does not publish the new key"
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
