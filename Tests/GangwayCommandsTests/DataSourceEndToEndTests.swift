import Foundation
import GangwayServerTesting
import GangwayTesting
import Testing

/// `gangway admin data source` and `pull` against `gangway serve`, with the company's
/// OData service (not Gangway's code, ``TestODataBackend``) as a destination: the set
/// fills itself, then takes only the service's changes.
@Suite(
    "gangway admin data source and pull: an entity set read from the company's OData service, whole then by changes",
    .tags(.endToEnd),
    .skipsTags
)
struct DataSourceEndToEndTests {
    @Test(
        "a source set with the command is read at once and on demand; the service's changes come in; bad input refused",
        .enabled(if: TestODataBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func setPullAndShow() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let serve = try await ServeProcess(["--demo", "--log-level", "warning"], in: directory.appending("server"))
        defer { serve.stop() }
        let issuer = serve.url + "/apps/checks"
        let runner = GangwayProcess(deviceKeys: directory.appending("device-keys"))
        func admin(_ arguments: [String]) async throws -> GangwayProcess.Result {
            try await runner.run(
                ["admin"] + arguments + ["--server", serve.url, "--token-file", serve.tokenFile],
                lines: []
            )
        }
        try await TestODataBackend.using(jwks: issuer + "/destination-keys", issuer: issuer) { odata in
            try await odata.load(500)
            #expect(try await admin(["destinations", "add", "erp", "--url", odata.url]).status == 0)

            let set = try await admin(
                ["data", "source", "set", "erpchecks", "--destination", "erp", "--path", "/Checks", "--every", "1h"]
            )
            #expect(set.status == 0, "\(set.standardError)")
            #expect(
                set.output.contains(
                    "Added the source of erpchecks: erp /Checks, keyed by ID, read every 1h; the first read starts now."
                ),
                "\(set.output)"
            )
            let full = try await admin(["data", "pull", "erpchecks", "--full"])
            #expect(full.status == 0, "\(full.standardError)")
            #expect(full.output.contains("erpchecks: full, 500 rows:"), "\(full.output)")

            try await odata.change(
                put: [["ID": "C-0000001", "Status": "done"], ["ID": "C-0000002", "Status": "done"], ["ID": "X-1"]],
                remove: ["C-0000003", "C-0000004"]
            )
            let delta = try await admin(["data", "pull", "erpchecks"])
            #expect(delta.status == 0, "\(delta.standardError)")
            #expect(
                delta.output.contains("erpchecks: delta, 5 rows: 3 written, 2 removed, 0 kept, 0 refused"),
                "\(delta.output)"
            )
            let listed = try await admin(["data", "list", "erpchecks", "--json", "--limit", "1000"])
            let entities = try #require(
                try JSONSerialization.jsonObject(with: listed.standardOutput) as? [[String: Any]]
            )
            #expect(entities.count == 499)

            let sources = try await admin(["data", "source"])
            #expect(sources.status == 0 && sources.output.contains("erp /Checks by ID"), "\(sources.output)")
            #expect(sources.output.contains("1h"))
            let shown = try await admin(["data", "source", "erpchecks"])
            #expect(shown.output.contains("Delta link:") && shown.output.contains("kept"), "\(shown.output)")

            // A key the service's rows lack: every row refused by its place, none of the
            // set's entities removed for it, exit 1.
            #expect(
                try await admin(
                    [
                        "data", "source", "set", "erpchecks", "--destination", "erp", "--path", "/Checks", "--key",
                        "Code",
                    ]
                ).status == 0
            )
            let refused = try await admin(["data", "pull", "erpchecks"])
            #expect(refused.status == 1, "\(refused.output)")
            #expect(refused.output.contains("full, 499 rows"), "\(refused.output)")
            #expect(refused.output.contains("INVALID_LINE"), "\(refused.output)")
            #expect(refused.output.contains("0 removed"), "\(refused.output)")
            #expect(refused.standardError.contains("499 rows named no entity ID"), "\(refused.standardError)")
            let kept = try await admin(["data", "list", "erpchecks", "--json", "--limit", "1000"])
            #expect(try (JSONSerialization.jsonObject(with: kept.standardOutput) as? [Any])?.count == 499)

            let missing = try await admin(["data", "pull", "nosuch"])
            #expect(missing.status == 1 && missing.standardError.contains("has no data source"))
            let fast = try await admin(
                ["data", "source", "set", "erpchecks", "--destination", "erp", "--path", "/Checks", "--every", "5s"]
            )
            #expect(fast.status == 64 && fast.standardError.contains("is not a time from 1m to 7d"))
            let nowhere = try await admin(
                ["data", "source", "set", "erpchecks", "--destination", "crm", "--path", "/Checks"]
            )
            #expect(
                nowhere.status == 1 && nowhere.standardError.contains("no destination crm"),
                "\(nowhere.standardError)"
            )

            let waiting = try await admin(["data", "deliveries"])
            #expect(waiting.status == 0 && waiting.output.contains("No change waits for the company's backend."))
            let unknown = try await admin(["data", "deliveries", "retry", UUID().uuidString])
            #expect(
                unknown.status == 1 && unknown.standardError.contains("waits for the backend"),
                "\(unknown.standardError)"
            )
            let malformed = try await admin(["data", "deliveries", "discard", "not-a-change"])
            #expect(malformed.status == 64 && malformed.standardError.contains("is not a change ID"))
            let delivering = try await admin(
                [
                    "data", "source", "set", "erpchecks", "--destination", "erp", "--path", "/Checks",
                    "--deliver-changes",
                ]
            )
            #expect(delivering.output.contains("devices' changes delivered to it"), "\(delivering.output)")

            let removed = try await admin(["data", "source", "remove", "erpchecks"])
            #expect(removed.status == 0 && removed.output.contains("its entities stay"))
            #expect(try await admin(["data", "source"]).output.contains("No data sources."))
        }
    }
}
