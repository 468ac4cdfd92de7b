import Foundation
import GangwaySystem
import GangwayTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("gangway serve, run as a process", .tags(.endToEnd), .skipsTags)
struct ServeCommandEndToEndTests {
    /// Starts `gangway serve` on a free port and returns it with the port it printed.
    private func start(dataDirectory: URL, extra: [String] = []) async throws -> (Process, Pipe, Pipe, Int) {
        let (process, output, errors, port, printed) = try await starting(dataDirectory: dataDirectory, extra: extra)
        #expect(printed.contains("Admin token: new, written to \(dataDirectory.path)/admin-token"))
        return (process, output, errors, port)
    }

    /// The same, with what it printed up to the line that says it listens.
    /// - Parameter launcher: A program that runs `gangway` (`nohup`), or none.
    private func starting(
        dataDirectory: URL,
        extra: [String] = [],
        launcher: String? = nil
    ) async throws -> (Process, Pipe, Pipe, Int, String) {
        let process = Process()
        let arguments = ["serve", "--port", "0", "--data-dir", dataDirectory.path, "--bcrypt-cost", "4"] + extra
        if let launcher {
            process.executableURL = URL(fileURLWithPath: launcher)
            process.arguments = [GangwayProcess.executable.path] + arguments
        } else {
            process.executableURL = GangwayProcess.executable
            process.arguments = arguments
        }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.start()
        var printed = ""
        let deadline = ContinuousClock.now + .seconds(30)
        while !printed.contains("listening on"), ContinuousClock.now < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
        }
        let port = printed.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
        return (process, output, errors, port, printed)
    }

    @Test("serves /health, keeps the admin token out of its output, and stops cleanly on SIGTERM")
    func serveAndStop() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve")
        defer { directory.remove() }
        let (process, output, errors, port) = try await start(dataDirectory: directory.url)
        #expect(port > 0)

        let (body, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/health")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("\"sqlite\""))

        process.terminate()  // SIGTERM
        try await process.exit()
        #expect(process.terminationStatus == 0)
        let token = try String(contentsOf: directory.appending("admin-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let everything =
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            + String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!token.isEmpty)
        #expect(!everything.contains(token))
    }

    @Test(
        "under nohup a closed terminal (SIGHUP) leaves the server serving",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/nohup"))
    )
    func nohupOutlivesTheTerminal() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve-nohup")
        defer { directory.remove() }
        let (process, _, _, port, _) = try await starting(dataDirectory: directory.url, launcher: "/usr/bin/nohup")
        defer { process.terminate() }
        #expect(port > 0)
        kill(process.processIdentifier, SIGHUP)
        try await Task.sleep(for: .milliseconds(500))
        #expect(process.isRunning, "nohup's SIGHUP stopped the server")
        let (_, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/health")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        // Ended before its directory is removed: a server still stopping can write there
        // (it left its database behind once).
        process.terminate()
        try await process.exit()
    }

    @Test(
        "--host takes an IPv6 address in brackets as a URL writes it",
        .enabled(if: ListeningAddress.problem(host: "::1", port: 0) == nil, "needs the IPv6 loopback address ::1")
    )
    func bracketedIPv6Host() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve-v6")
        defer { directory.remove() }
        let (process, _, _, port, printed) = try await starting(
            dataDirectory: directory.appending("v6"),
            extra: ["--host", "[::1]"]
        )
        #expect(port > 0 && printed.contains("listening on http://[::1]:\(port)"), "\(printed)")
        // Ended before its directory is removed: a server still stopping can write there.
        process.terminate()
        try await process.exit()
    }

    @Test("--host: an empty one is a bad command line; every address without --public-url is warned of")
    func hostsAsTyped() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve-host")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        for host in ["", " "] {
            let empty = try await runner.run([
                "serve", "--host", host, "--port", "0", "--data-dir", directory.appending("x").path,
            ])
            #expect(empty.status == 64 && empty.standardError.contains("--host needs an address"), "\(empty)")
        }
        for host in ["[::1", "::1]", "http://127.0.0.1", "127.0.0.1 8080", "127.0.0.1:8080", "localhost:8080"] {
            let typo = try await runner.run([
                "serve", "--host", host, "--port", "0", "--data-dir", directory.appending("x").path,
            ])
            #expect(typo.status == 64 && typo.standardError.contains("is not an address"), "\(host): \(typo)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appending("x").path))

        // Every address: the address devices are given would be no address; said at start.
        let (all, _, errors, _, _) = try await starting(
            dataDirectory: directory.appending("all"),
            extra: ["--host", "0.0.0.0"]
        )
        defer { all.terminate() }
        let warning = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        #expect(warning.contains("Warning: --host 0.0.0.0 listens on every address"), "\(warning)")
        #expect(warning.contains("give --public-url"))
    }

    @Test("a closed terminal (SIGHUP) stops the server as SIGTERM does: cleanly, its URL file removed")
    func hangUpStopsCleanly() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve-hup")
        defer { directory.remove() }
        // The server starts as from a terminal, whatever this process does with SIGHUP:
        // under nohup a child inherits the hang-up ignored, and then rightly keeps running.
        let inherited = signal(SIGHUP, SIG_DFL)
        let started = try await start(dataDirectory: directory.url)
        signal(SIGHUP, inherited)
        let (process, _, _, port) = started
        #expect(port > 0)
        #expect(FileManager.default.fileExists(atPath: directory.appending("url").path))
        kill(process.processIdentifier, SIGHUP)
        try await process.exit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("url").path))
    }

    @Test(
        "--demo seeds the device app's demo once: the app runs against the separate server, onboards and edits a check"
    )
    func demoSeed() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve-demo")
        defer { directory.remove() }
        let (process, _, _, port, printed) = try await starting(dataDirectory: directory.url, extra: ["--demo"])
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        #expect(
            printed.contains(
                "Demo: app 'checks' (work email @airline.example), users alice / preflight-alice, bob / preflight-bob."
            )
        )
        let device = try DeviceAppEndToEndTests.Device()
        defer { device.directory.remove() }
        let app = try await device.launch(
            DeviceAppEndToEndTests.aliceOnboards + ["edit F-GTAJ-fuel status=done reading=9100kg", "quit"],
            arguments: ["--server", "http://127.0.0.1:\(port)"]
        )
        #expect(app.status == 0, "\(app.standardError)")
        #expect(app.output.contains("Checks:         5 checks from the server"), "\(app.output)")
        #expect(app.output.contains("The server answered: 1 applied."))
        let admin = try await GangwayProcess(deviceKeys: directory.appending("unused-keys"))
            .run(["admin", "data", "list", "checks", "--json", "--data-dir", directory.url.path])
        let checks = try #require(try JSONSerialization.jsonObject(with: admin.standardOutput) as? [[String: Any]])
        let fuel = try #require(checks.first { $0["id"] as? String == "F-GTAJ-fuel" })
        #expect(fuel["updatedBy"] as? String == "alice", "\(fuel)")
        #expect(fuel["version"] as? Int == 2)
        process.terminate()
        try await process.exit()

        // A second start finds the demo there and seeds nothing.
        let (again, _, _, _, second) = try await starting(dataDirectory: directory.url, extra: ["--demo"])
        again.terminate()
        try await again.exit()
        #expect(second.contains("Demo: the app 'checks' is there already; nothing seeded."))
    }

    @Test("the data directory is owner-only from the first start, and its url file goes when the server stops")
    func privateDataDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve")
        defer { directory.remove() }
        let data = directory.appending("server")
        let (process, _, _, port) = try await start(dataDirectory: data)
        #expect(port > 0)
        // A write, so SQLite has made its -wal and -shm files.
        _ = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/health")!)
        #expect(PrivateFiles.mode(of: data.path) == 0o700)
        for name in [
            "admin-token", "url", "gangway-server.sqlite", "gangway-server.sqlite-wal", "gangway-server.sqlite-shm",
        ] {
            #expect(PrivateFiles.mode(of: data.appendingPathComponent(name).path) == 0o600, "\(name)")
        }
        let listed = try FileManager.default.contentsOfDirectory(atPath: data.path)
        for name in listed {
            #expect(PrivateFiles.mode(of: data.appendingPathComponent(name).path) == 0o600, "\(name)")
        }

        process.terminate()  // SIGTERM
        try await process.exit()
        #expect(process.terminationStatus == 0)
        // A stale URL would send the next admin command, and its token, to whatever
        // listens on that port next.
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("url").path))
    }

    @Test(
        "a data directory left readable by others is used as it is (its files stay owner-only); the database is narrowed"
    )
    func usesAnOldDataDirectoryAsItIs() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve")
        defer { directory.remove() }
        let data = directory.appending("server")
        let first = try await start(dataDirectory: data)
        first.0.terminate()
        try await first.0.exit()
        chmod(data.path, 0o755)
        let database = data.appendingPathComponent("gangway-server.sqlite").path
        chmod(database, 0o644)

        let process = Process()
        process.executableURL = GangwayProcess.executable
        process.arguments = ["serve", "--port", "0", "--data-dir", data.path, "--bcrypt-cost", "4"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.start()
        var printed = ""
        while !printed.contains("listening on") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
        }
        // A directory that exists is never changed: it may be the operator's, with
        // reasons of their own; what Gangway keeps in it is owner-only.
        #expect(PrivateFiles.mode(of: data.path) == 0o755)
        #expect(PrivateFiles.mode(of: database) == 0o600)
        process.terminate()
        try await process.exit()
    }

    @Test(
        "with --console-port the console listens on an address of its own; the devices' address serves no console page"
    )
    func consoleApart() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve")
        defer { directory.remove() }
        let serve = try await ServeProcess(["--console-port", "0"], in: directory.appending("server"))
        defer { serve.stop() }
        let console = try #require(serve.printed.firstMatch(of: /Console: (http:\/\/127\.0\.0\.1:[0-9]+)\/console/)?.1)
        #expect(String(console) != serve.url)
        #expect(serve.printed.contains("an address of its own"))
        func status(_ address: String) async throws -> Int {
            var request = URLRequest(url: try #require(URL(string: address)))
            request.httpMethod = "GET"
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
        #expect(try await status(serve.url + "/console/sign-in") == 404)
        #expect(try await status(serve.url + "/health") == 200)
        #expect(try await status(console + "/console/sign-in") == 200)
        for path in ["/health", "/openapi.json", "/apps/checks/settings", "/admin/apps"] {
            #expect(try await status(console + path) == 404, "\(path)")
        }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let added = try await runner.run(
            [
                "admin", "operators", "add", "ops.root", "--role", "admin", "--server", serve.url, "--token-file",
                serve.tokenFile,
            ]
        )
        #expect(added.status == 0, "\(added.standardError)")
        let link = try #require(added.output.split(separator: "\n").first { $0.contains("/console/enrol?token=") })
            .trimmingCharacters(in: .whitespaces)
        #expect(link.hasPrefix(console + "/console/enrol?token="), "the link is the console's")
        #expect(try await status(link) == 200)
    }

    @Test(
        "a console port out of range, the API's own, or a console host without a port is refused before anything starts"
    )
    func badConsoleOptions() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        for extra in [
            ["--console-port", "70000"], ["--port", "8080", "--console-port", "8080"], ["--console-host", "0.0.0.0"],
        ] {
            let result = try await runner.run(["serve", "--data-dir", directory.url.path] + extra)
            #expect(result.status == 64, "\(extra)")
            #expect(result.standardError.contains("--console-"), "\(extra): \(result.standardError)")
            #expect(!result.standardError.contains("Fatal error"))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appending("admin-token").path))
    }

    @Test("a bad --postgres URL, bcrypt cost or port is refused before anything starts")
    func badOptions() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let cost = try await runner.run(["serve", "--data-dir", directory.url.path, "--bcrypt-cost", "3"])
        #expect(cost.status == 64)
        #expect(cost.standardError.contains("--bcrypt-cost"))
        let url = try await runner.run(["serve", "--data-dir", directory.url.path, "--postgres", "mysql://x"])
        #expect(url.status == 64)
        for port in ["70000", "65536", "-1"] {
            // As one argument or two: a negative number is the option's value, not another option.
            for arguments in [["--port=\(port)"], ["--port", port]] {
                let refused = try await runner.run(["serve", "--data-dir", directory.url.path] + arguments)
                #expect(refused.status == 64, "\(arguments)")
                #expect(
                    refused.standardError.contains("--port must be between 0 and 65535."),
                    "\(refused.standardError)"
                )
            }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appending("admin-token").path))
    }

    @Test("GANGWAY_LOG_LEVEL sets how much serve logs; --log-level wins over it")
    func logLevelVariable() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve")
        defer { directory.remove() }
        func log(_ extra: [String], _ environment: [String: String]) async throws -> String {
            let serve = try await ServeProcess(extra, in: directory.appending("data"), environment: environment)
            let (_, response) = try await URLSession.shared.data(from: URL(string: serve.url + "/health")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            return try await serve.stopAndReadLog()
        }
        let quiet = try await log([], ["GANGWAY_LOG_LEVEL": "warning"])
        #expect(!quiet.contains("path=/health"), "\(quiet)")
        let standard = try await log([], ["GANGWAY_LOG_LEVEL": "no-such-level"])
        #expect(standard.contains("path=/health"), "a value that is no level is no setting: \(standard)")
        #expect(
            standard.contains(
                "Warning: GANGWAY_LOG_LEVEL 'no-such-level' is not a level (trace, debug, info, notice, warning, "
                    + "error, critical); it is left out."
            ),
            "and it is said: \(standard)"
        )
        #expect(!quiet.contains("GANGWAY_LOG_LEVEL"), "a level is not warned of")
        let chosen = try await log(["--log-level", "info"], ["GANGWAY_LOG_LEVEL": "warning"])
        #expect(chosen.contains("path=/health"), "\(chosen)")
    }

    @Test("a trusted proxy block as wide as every address is warned of at start; a proxy's own network is not")
    func wideTrustedProxy() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve")
        defer { directory.remove() }
        let serve = try await ServeProcess(
            ["--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "0.0.0.0/0"],
            in: directory.appending("data")
        )
        let log = try await serve.stopAndReadLog()
        #expect(
            log.contains(
                "Warning: --trusted-proxy 0.0.0.0/0 trusts every address: any client in it can set X-Forwarded-For"
            ),
            "\(log)"
        )
        #expect(!log.contains("--trusted-proxy 10.0.0.0/8"), "\(log)")
    }

    @Test("a host that is no address of this machine is refused in one sentence, on any port, and nothing is written")
    func badHosts() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-serve")
        defer { directory.remove() }
        let data = directory.appending("data")
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        for (host, port) in [("not-an-ip", "0"), ("192.0.2.1", "0"), ("192.0.2.1", "18080")] {
            let result = try await runner.run(["serve", "--data-dir", data.path, "--host", host, "--port", port])
            #expect(result.status == 1, "\(host)")
            #expect(
                result.standardError
                    == "gangway serve: cannot listen on \(host):\(port): that host is not an address of this machine.\n",
                "\(result.standardError)"
            )
            #expect(!result.output.contains("Admin token"), "\(result.output)")
            #expect(!FileManager.default.fileExists(atPath: data.path), "nothing written for \(host)")
        }
        let console = try await runner.run([
            "serve", "--data-dir", data.path, "--port", "0", "--console-port", "0", "--console-host", "192.0.2.1",
        ])
        #expect(console.status == 1)
        #expect(
            console.standardError.contains("cannot listen on 192.0.2.1:0 for the console"),
            "\(console.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: data.path))
    }
}
