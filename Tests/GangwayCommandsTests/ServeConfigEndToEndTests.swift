import Foundation
import GangwaySystem
import GangwayTerminal
import GangwayTesting
import NIOHTTP1
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `gangway serve --config FILE` and `GANGWAY_*` settings through the built binary, as an
/// operator's unit file runs it; `--check-config` says what it would run with and starts
/// nothing; the systemd unit in `docs/` passes systemd's own checks.
@Suite(
    "Serve's configuration through the built server: a file and the environment set it, --check-config shows it",
    .tags(.endToEnd),
    .skipsTags
)
struct ServeConfigEndToEndTests {
    static let unit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/systemd/gangway.service")

    @Test("--check-config: each setting with where it came from, the URL's password hidden; nothing started or written")
    func checkConfig() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.appending("serve.json")
        let data = directory.appending("data")
        try PrivateFiles.write(
            Data(
                #"{"port": 8443, "data-dir": "\#(data.path)", "trusted-proxy": ["10.0.0.0/8"], "rotate-keys-days": 90}"#
                    .utf8
            ),
            to: config
        )
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let checked = try await runner.run(
            [
                "serve", "--config", config.path, "--check-config", "--cache-seconds", "3", "--postgres",
                "postgres://gangway:pw-9@db/gangway",
            ],
            extraEnvironment: ["GANGWAY_DRAIN_SECONDS": "10", "GANGWAY_PORT": "9443", "GANGWAY_BCRYPT_COST": "4"]
        )
        #expect(checked.status == 0, "\(checked.standardError)")
        // A cheaper password hash is not the environment's to ask for: said, and not taken.
        #expect(checked.standardError.contains("GANGWAY_BCRYPT_COST is not read"), "\(checked.standardError)")
        let lines = checked.output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        for line in [
            "port 9443 (GANGWAY_PORT)", "drain-seconds 10 (GANGWAY_DRAIN_SECONDS)", "cache-seconds 3 (command line)",
            "data-dir \(data.path) (\(config.path))", "trusted-proxy 10.0.0.0/8 (\(config.path))",
            "rotate-keys-days 90 (\(config.path))", "postgres postgres://gangway:***@db/gangway (command line)",
            "host 127.0.0.1 (default)", "bcrypt-cost 12 (default)",
            // A setting not set says what serve does without it.
            "metrics-port none: no metrics (default)", "public-url http://127.0.0.1:9443 (default)",
            "key-file \(data.path)/server-key (default)", "wait-for-database 30 (default)",
            "trace-sample-ratio unused without otlp-endpoint (default)", "log-level info (default)",
        ] {
            #expect(lines.contains(line), "\(line) in \(checked.output)")
        }
        #expect(!checked.output.contains("(none)"), "\(checked.output)")
        #expect(!checked.output.contains("pw-9") && !checked.standardError.contains("pw-9"))
        #expect(!FileManager.default.fileExists(atPath: data.path))
    }

    @Test("--check-config refuses what serve would refuse before writing, and warns as serve warns; it writes nothing")
    func checkConfigRefuses() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let open = directory.appending("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        chmod(open.path, 0o777)
        let wide = try await runner.run(
            ["serve", "--check-config", "--data-dir", directory.appending("data").path, "--trusted-proxy", "0.0.0.0/0"]
        )
        #expect(wide.status == 0, "\(wide.standardError)")
        #expect(wide.standardError.contains("Warning: --trusted-proxy 0.0.0.0/0 trusts every address"))
        for (arguments, reason) in [
            (["--data-dir", open.path], "others can write"),
            (["--data-dir", open.appendingPathComponent("below").path], "anyone can rename entries of the directory"),
            (["--data-dir", directory.appending("data").path, "--key-file", "/nonexistent/key"], "does not exist"),
        ] {
            let refused = try await runner.run(["serve", "--check-config"] + arguments)
            #expect(refused.status == 1, "\(arguments): \(refused.standardError)")
            #expect(refused.standardError.contains(reason), "\(arguments): \(refused.standardError)")
            #expect(!refused.output.contains("Checked"), "\(refused.output)")
        }
        // A path with a control character is refused as the command line's mistake.
        let config = directory.appending("serve.json")
        try PrivateFiles.write(Data(#"{"data-dir": "\#(directory.url.path)/a\u0000b"}"#.utf8), to: config)
        let control = try await runner.run(["serve", "--check-config", "--config", config.path])
        #expect(control.status == 64, "\(control.standardError)")
        #expect(control.standardError.contains("--data-dir holds a control character"), "\(control.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: open.path).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("data").path))
    }

    @Test("--check-config shows a level from GANGWAY_LOG_LEVEL and a ratio as written; a misspelt variable is said")
    func checkConfigVariables() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let arguments = [
            "serve", "--data-dir", data.path, "--check-config", "--otlp-endpoint", "http://127.0.0.1:4318",
            "--trace-sample-ratio", "-0",
        ]
        let checked = try await runner.run(
            arguments,
            extraEnvironment: ["GANGWAY_LOG_LEVEL": "debug", "GANGWAY_DRAIN_SECOND": "10"]
        )
        #expect(checked.status == 0, "\(checked.standardError)")
        let lines = checked.output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        for line in [
            "log-level debug (GANGWAY_LOG_LEVEL)", "trace-sample-ratio 0 (command line)",
            "drain-seconds 0 (default)", "postgres none: SQLite in \(data.path)/gangway-server.sqlite (default)",
        ] {
            #expect(lines.contains(line), "\(line) in \(checked.output)")
        }
        #expect(
            checked.standardError.contains(
                "Warning: GANGWAY_DRAIN_SECOND is no setting of serve; did you mean GANGWAY_DRAIN_SECONDS?"
            ),
            "\(checked.standardError)"
        )
        // A URL from postgres-file is said to come from where that setting came.
        let urlFile = directory.appending("database-url")
        try PrivateFiles.write(Data("postgres://gangway:pw-3@127.0.0.1:1/gangway\n".utf8), to: urlFile)
        let fromFile = try await runner.run(arguments, extraEnvironment: ["GANGWAY_POSTGRES_FILE": urlFile.path])
        #expect(fromFile.status == 0, "\(fromFile.standardError)")
        #expect(
            fromFile.output.contains(/postgres +from postgres-file +\(GANGWAY_POSTGRES_FILE\)/),
            "\(fromFile.output)"
        )
        #expect(!fromFile.output.contains("pw-3"))
        // A level that is none is left out, and the default shown.
        let unread = try await runner.run(arguments, extraEnvironment: ["GANGWAY_LOG_LEVEL": "loud"])
        #expect(unread.status == 0, "\(unread.standardError)")
        #expect(unread.output.contains(/log-level +info +\(default\)/), "\(unread.output)")
        #expect(unread.standardError.contains("GANGWAY_LOG_LEVEL 'loud' is not a level"), "\(unread.standardError)")
        #expect(!FileManager.default.fileExists(atPath: data.path))
    }

    @Test("serve takes its console's own port from the file and its public URL from the environment, and serves")
    func serves() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.appending("serve.json")
        try PrivateFiles.write(Data(#"{"console-port": 0, "cache-seconds": 0}"#.utf8), to: config)
        let serve = try await ServeProcess(
            ["--config", config.path, "--demo"],
            in: directory.appending("server"),
            environment: ["GANGWAY_PUBLIC_URL": "https://gangway.example.com"]
        )
        defer { serve.stop() }
        // The console listens apart, on an address that is not the devices'.
        let console = try #require(
            serve.printed.split(separator: "\n").first { $0.hasPrefix("Console: http://127.0.0.1:") },
            "\(serve.printed)"
        )
        #expect(!console.contains(serve.url), "\(serve.printed)")
        let discovered = try await DestinationStreamingEndToEndTests.call(
            .GET,
            serve.url + "/discovery?email=alice@\(DemoApp.emailDomain)"
        )
        #expect(discovered.status == 200 && discovered.body["serverURL"] as? String == "https://gangway.example.com")
    }

    @Test(
        "a setting it does not know, an action, a file others can write or a bad value: one sentence, exit 64, nothing made"
    )
    func refused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let data = directory.appending("data")
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let cases: [(String, mode_t, [String: String], String)] = [
            (#"{"prot": 1}"#, 0o600, [:], "no setting prot; did you mean port?\n"),
            (#"{"zzz": 1}"#, 0o600, [:], "no setting zzz; the settings are serve's options.\n"),
            (#"{"demo": true}"#, 0o600, [:], "demo is an action"),
            (#"{"port": 8443}"#, 0o666, [:], "others can write"),
            (#"{"cache-seconds": 7200}"#, 0o600, [:], "--cache-seconds must be between 0 and 3600 seconds (set in"),
            (#"{}"#, 0o600, ["GANGWAY_PORT": "70000"], "--port must be between 0 and 65535 (set by GANGWAY_PORT)"),
            (#"{"port": 8080.5}"#, 0o600, [:], "port must be a whole number"),
            (#"{"key-file": ""}"#, 0o600, [:], "--key-file must name a file"),
            (#"{"log-level": "DEBUG"}"#, 0o600, [:], "--log-level 'DEBUG' is not a level (trace, debug, info,"),
            (#"{"postgres-file": " "}"#, 0o600, [:], "--postgres-file must name a file"),
            (#"{}"#, 0o600, ["GANGWAY_PORT": "abc"], "GANGWAY_PORT: port must be a whole number"),
            (#"{}"#, 0o600, ["GANGWAY_TRACE_SAMPLE_RATIO": "half"], "trace-sample-ratio must be a number"),
            // A password in the URL's query is one too: from a file of its own alone.
            (
                #"{"postgres": "postgres://gw@db/g?password=s3cret-in-query"}"#, 0o600, [:],
                "a PostgreSQL URL with a password belongs in a file of yours"
            ),
            (
                #"{}"#, 0o600, ["GANGWAY_POSTGRES": "postgres://gw@db/g?password=s3cret-in-query"],
                "a PostgreSQL URL with a password belongs in a file of yours"
            ),
        ]
        for (text, mode, environment, reason) in cases {
            let config = directory.appending("serve.json")
            try? FileManager.default.removeItem(at: config)
            try PrivateFiles.write(Data(text.utf8), to: config)
            chmod(config.path, mode)
            let result = try await runner.run(
                ["serve", "--config", config.path, "--data-dir", data.path],
                extraEnvironment: environment
            )
            #expect(result.status == 64, "\(text): \(result.standardError)")
            #expect(result.standardError.contains(reason), "\(text): \(result.standardError)")
            // Said as every refusal of the command line is.
            #expect(result.standardError.hasPrefix("Error: "), "\(text): \(result.standardError)")
            #expect(result.standardError.contains("See 'gangway serve --help'"), "\(result.standardError)")
            #expect(!result.standardError.contains("Fatal") && !result.standardError.contains("Stack"))
            #expect(!result.standardError.contains("s3cret") && !result.output.contains("s3cret"))
            #expect(!FileManager.default.fileExists(atPath: data.path))
        }
        // A file of the user's own, 0600, in a directory anyone may rename entries of.
        let shared = directory.appending("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        let config = shared.appendingPathComponent("serve.json")
        try PrivateFiles.write(Data(#"{"port": 8443}"#.utf8), to: config)
        chmod(shared.path, 0o777)
        let result = try await runner.run(["serve", "--config", config.path, "--data-dir", data.path, "--check-config"])
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains("anyone can rename entries of the directory"), "\(result.standardError)")
    }

    @Test(
        "a file root owns and alone may write is read by serve's account, as the unit installs it; one a group may write, or another account owns, is not",
        .enabled(
            if: geteuid() == 0 && ExternalTool("setpriv").executable != nil,
            "needs root and setpriv (util-linux), to run serve as another account"
        )
    )
    func rootsFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Serve runs as nobody, from a copy of the binary it may run (as /usr/local/bin's).
        chmod(directory.url.path, 0o755)
        let binary = directory.appending("gangway")
        try FileManager.default.copyItem(at: GangwayProcess.shippedExecutable, to: binary)
        chmod(binary.path, 0o755)
        let nobody: uid_t = 65534
        // /etc/gangway as the unit's steps install it: root's, the service's group may read.
        let etc = directory.appending("etc")
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: false)
        chown(etc.path, 0, nobody)
        chmod(etc.path, 0o750)
        let data = directory.appending("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: false)
        chown(data.path, nobody, nobody)
        chmod(data.path, 0o700)
        let config = etc.appendingPathComponent("serve.json")
        try Data(#"{"port": 8443, "data-dir": "\#(data.path)"}"#.utf8).write(to: config)
        chown(config.path, 0, nobody)
        chmod(config.path, 0o640)

        var runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        runner.executable = URL(fileURLWithPath: try #require(ExternalTool("setpriv").executable))
        let serve = [
            "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", binary.path, "serve", "--config", config.path,
            "--check-config",
        ]
        let read = try await runner.run(serve)
        #expect(read.status == 0, "\(read.standardError)")
        let lines = read.output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("port 8443 (\(config.path))"), "\(read.output)")

        chmod(config.path, 0o660)
        let writable = try await runner.run(serve)
        #expect(writable.status == 64, "\(writable.standardError)")
        #expect(writable.standardError.contains("others can write to it"), "\(writable.standardError)")

        chmod(config.path, 0o644)
        chown(config.path, nobody - 1, nobody - 1)
        let theirs = try await runner.run(serve)
        #expect(theirs.status == 64, "\(theirs.standardError)")
        #expect(
            theirs.standardError.contains("belongs to another user (uid \(nobody - 1))"),
            "\(theirs.standardError)"
        )
    }

    @Test(
        "the systemd unit in docs/ passes systemd-analyze verify, and its exposure is at most 2.0 of 10",
        .enabled(if: ExternalTool("systemd-analyze").executable != nil, "needs systemd-analyze (Debian's systemd)")
    )
    func systemdUnit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
        #expect(text.contains("ExecStart=/usr/local/bin/gangway serve --config /etc/gangway/serve.json"))
        // The unit as installed, its binary the one built here.
        let unit = directory.appending("gangway.service")
        try Data(
            text.replacingOccurrences(of: "/usr/local/bin/gangway", with: GangwayProcess.shippedExecutable.path).utf8
        ).write(to: unit)
        let tool = ExternalTool("systemd-analyze")
        let verified = try #require(try await tool.run(["verify", unit.path]))
        #expect(verified.status == 0, "\(verified.text)")
        let security = try #require(try await tool.run(["security", "--offline=yes", unit.path]))
        let exposure = try #require(
            security.text.firstMatch(of: /Overall exposure level for gangway.service: ([0-9.]+)/).flatMap {
                Double($0.output.1)
            },
            "\(security.text)"
        )
        #expect(exposure <= 2.0)
    }
}
