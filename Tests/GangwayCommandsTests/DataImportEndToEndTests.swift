import Foundation
import GangwayTesting
import Testing

@Suite(
    "gangway admin data import: a CSV or NDJSON file into an entity set, in batches, each row once",
    .tags(.endToEnd),
    .skipsTags
)
struct DataImportEndToEndTests {
    /// `gangway admin …` against `serve`, with its token file.
    static func admin(
        _ runner: GangwayProcess,
        _ serve: ServeProcess,
        _ arguments: [String]
    ) async throws -> GangwayProcess.Result {
        try await runner.run(
            ["admin"] + arguments + ["--server", serve.url, "--token-file", serve.tokenFile],
            lines: []
        )
    }

    /// The set's entities as `data list --json` prints them, by ID.
    static func entities(
        _ runner: GangwayProcess,
        _ serve: ServeProcess,
        _ set: String
    ) async throws -> [String: [String: Any]] {
        var all: [String: [String: Any]] = [:]
        var after: String?
        repeat {
            let list = try await admin(
                runner,
                serve,
                ["data", "list", set, "--json", "--limit", "1000"] + (after.map { ["--after", $0] } ?? [])
            )
            #expect(list.status == 0, "\(list.standardError)")
            let page = try #require(try JSONSerialization.jsonObject(with: list.standardOutput) as? [[String: Any]])
            for entity in page { all[entity["id"] as? String ?? ""] = entity }
            after = list.standardError.contains("More follow") ? page.last?["id"] as? String : nil
        } while after != nil
        return all
    }

    @Test(
        "a CSV's rows are written by batch, refused rows named by row; run again it writes nothing twice; NDJSON removes"
    )
    func csvThenNDJSON() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let serve = try await ServeProcess(["--demo", "--log-level", "warning"], in: directory.appending("server"))
        defer { serve.stop() }
        let runner = GangwayProcess(deviceKeys: directory.appending("device-keys"))

        var csv = "\u{FEFF}id,aircraft,item,status\r\n"
        for row in 1...2_500 { csv += "part-\(row),\"A320, F-G\(row % 7)\",tyre \(row),open\r\n" }
        csv += "\r\n"  // row 2502: blank
        csv += "not an id!,A320,tyre,open\r\n"  // 2503
        csv += "short,A320\r\n"  // 2504
        csv += "quoted,\"say \"\"hi\"\"\",wheel,open\r\n"  // 2505
        let csvFile = directory.appending("parts.csv")
        try Data(csv.utf8).write(to: csvFile)

        // A set the app does not have: refused unless --new-set, and nothing is written.
        let typo = try await Self.admin(runner, serve, ["data", "import", csvFile.path, "--set", "parts"])
        #expect(typo.status == 1 && typo.standardError.contains("--new-set"), "\(typo.standardError)")

        let first = try await Self.admin(
            runner,
            serve,
            ["data", "import", csvFile.path, "--set", "parts", "--new-set", "--batch-size", "1000"]
        )
        #expect(first.status == 1, "\(first.standardError)")
        #expect(
            first.output.contains("2,504 rows in 3 batches, 2,501 written, 0 removed, 2 refused"),
            "\(first.output)"
        )
        #expect(first.output.contains("row 2503: INVALID_FIELD"), "\(first.output)")
        #expect(first.output.contains("row 2504: INVALID_LINE: The row has 2 cells where the header has 4."))
        #expect(first.standardError.contains("2 rows were refused; the others were written."))
        // Progress goes to standard error, a line a batch when it is no terminal.
        #expect(first.standardError.contains("batch 3: 2,504 rows, 2 refused"), "\(first.standardError)")

        var entities = try await Self.entities(runner, serve, "parts")
        #expect(entities.count == 2_501)
        let fields = try #require(entities["part-42"]?["fields"] as? [String: String])
        #expect(fields == ["aircraft": "A320, F-G0", "item": "tyre 42", "status": "open"])
        #expect((entities["quoted"]?["fields"] as? [String: String])?["aircraft"] == "say \"hi\"")

        // The same file again: every batch was done, nothing is written twice.
        let again = try await Self.admin(
            runner,
            serve,
            ["data", "import", csvFile.path, "--set", "parts", "--batch-size", "1000"]
        )
        #expect(again.output.contains("(2,504 sent by an earlier run, written once)"), "\(again.output)")
        entities = try await Self.entities(runner, serve, "parts")
        #expect(entities.values.allSatisfy { ($0["version"] as? Int) == 1 })

        // NDJSON: a put, a removal, a line that is no JSON.
        let ndjson = [
            #"{"id": "part-1", "fields": {"status": "done"}}"#, #"{"id": "part-2", "remove": true}"#, "{oops",
        ].joined(separator: "\n")
        let ndjsonFile = directory.appending("changes.ndjson")
        try Data(ndjson.utf8).write(to: ndjsonFile)
        let changes = try await Self.admin(runner, serve, ["data", "import", ndjsonFile.path, "--set", "parts"])
        #expect(changes.status == 1)
        #expect(changes.output.contains("3 rows in 1 batch, 1 written, 1 removed, 1 refused"), "\(changes.output)")
        #expect(changes.output.contains("row 3: INVALID_LINE: The line is not a JSON object."))
        entities = try await Self.entities(runner, serve, "parts")
        #expect(entities["part-2"] == nil && entities.count == 2_500)
        #expect((entities["part-1"]?["fields"] as? [String: String]) == ["status": "done"])
        #expect(entities["part-1"]?["version"] as? Int == 2)
    }

    @Test("a file that cannot be read, a format it cannot tell, or a bad option is refused with a sentence")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let serve = try await ServeProcess(["--demo", "--log-level", "warning"], in: directory.appending("server"))
        defer { serve.stop() }
        let runner = GangwayProcess(deviceKeys: directory.appending("device-keys"))
        let text = directory.appending("rows.txt")
        try Data("id,status\n".utf8).write(to: text)
        let noHeaderID = directory.appending("rows.csv")
        try Data("name,status\nx,open\n".utf8).write(to: noHeaderID)
        for (arguments, status, says) in [
            (["data", "import", directory.appending("missing.csv").path, "--set", "checks"], Int32(1), "no such file"),
            (["data", "import", directory.url.path, "--set", "checks", "--format", "csv"], 1, "it is a directory."),
            (["data", "import", "/dev/null", "--set", "checks", "--format", "ndjson"], 1, "not a regular file."),
            (["data", "import", text.path, "--set", "checks"], 64, "--format"),
            (["data", "import", noHeaderID.path, "--set", "checks"], 1, "no column 'id'"),
            (
                ["data", "import", text.path, "--set", "checks", "--format", "csv", "--batch-size", "0"], 64,
                "1 to 100000"
            ),
            (["data", "import", text.path, "--set", "bad set", "--format", "csv"], 64, "--set"),
        ] {
            let run = try await Self.admin(runner, serve, arguments)
            #expect(run.status == status, "\(arguments): \(run.standardError)")
            #expect(run.standardError.contains(says), "\(arguments): \(run.standardError)")
            #expect(!run.standardError.contains("Fatal error") && !run.standardError.contains("backtrace"))
            #expect(!run.standardError.contains("Error Domain"), "\(arguments): \(run.standardError)")
        }
    }
}
