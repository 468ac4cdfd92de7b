import Foundation
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the built `gangway` does with directories it did not make: it never changes
/// them, and it refuses one another account could write to, before anything is read from
/// it or written into it.
@Suite("Data directories: never narrowed, never trusted when others can write them", .tags(.endToEnd), .skipsTags)
struct DataDirectorySafetyEndToEndTests {
    @Test("the first use leaves the home directory and a /var/lib-style parent as they were")
    func parentsKeepTheirModes() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-parents")
        defer { directory.remove() }
        let home = directory.appending("home")
        let varLib = directory.appending("var-lib")
        for parent in [home, varLib] {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: false)
            chmod(parent.path, 0o755)
        }
        // Another service's files, which its owner must still reach.
        let other = varLib.appendingPathComponent("postgresql")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: false)
        chmod(other.path, 0o755)

        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        // The app, then `gangway admin`, with the default data directory, ~/.gangway, in a
        // fresh home: a look at the demo, and quit.
        let app = try await runner.run(
            ["--bcrypt-cost", "4"],
            lines: ["4", "2"],
            extraEnvironment: ["HOME": home.path]
        )
        #expect(app.status == 0, "\(app.output)")
        let apps = try await runner.run(["admin", "apps", "--bcrypt-cost", "4"], extraEnvironment: ["HOME": home.path])
        #expect(apps.status == 0, "\(apps.standardError)")
        #expect(PrivateFiles.mode(of: home.path) == 0o755)
        #expect(PrivateFiles.mode(of: home.appendingPathComponent(".gangway").path) == 0o700)
        #expect(PrivateFiles.mode(of: home.appendingPathComponent(".gangway/server").path) == 0o700)

        let data = varLib.appendingPathComponent("gangway")
        let serve = try runner.launch(
            ["serve", "--port", "0", "--data-dir", data.path, "--bcrypt-cost", "4"],
            lines: []
        )
        defer {
            serve.terminate()
            serve.waitUntilExit()
        }
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: data.appendingPathComponent("url").path) {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("url").path))
        #expect(PrivateFiles.mode(of: varLib.path) == 0o755)
        #expect(PrivateFiles.mode(of: other.path) == 0o755)
        #expect(PrivateFiles.mode(of: data.path) == 0o700)
    }

    @Test("serve refuses a data directory others can write, in one sentence, and writes nothing there")
    func serveRefusesAWritableDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-shared")
        defer { directory.remove() }
        let shared = directory.appending("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        chmod(shared.path, 0o777)
        defer { chmod(shared.path, 0o700) }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let result = try await runner.run(["serve", "--port", "0", "--data-dir", shared.path, "--bcrypt-cost", "4"])
        #expect(result.status != 0)
        let lines = result.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(result.standardError)")
        #expect(result.standardError.contains(shared.path))
        #expect(result.standardError.contains("others can write to it (mode 0777)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).isEmpty)
        #expect(PrivateFiles.mode(of: shared.path) == 0o777, "left as it was")
    }

    @Test(
        "files planted in a directory others can write: admin believes neither the URL nor the token; nothing reaches the listener"
    )
    func adminRefusesPlantedFiles() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-planted")
        defer { directory.remove() }
        let shared = directory.appending("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        chmod(shared.path, 0o777)
        defer { chmod(shared.path, 0o700) }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        try await ImpostorServer.run { impostor in
            try Data((impostor.url.absoluteString + "\n").utf8).write(to: shared.appendingPathComponent("url"))
            try Data("planted-token\n".utf8).write(to: shared.appendingPathComponent("admin-token"))
            let added = try await runner.run(
                ["admin", "users", "add", "eve", "--data-dir", shared.path, "--bcrypt-cost", "4"],
                lines: ["eve-new-password-1"]
            )
            #expect(added.status != 0)
            #expect(added.standardError.contains(shared.path), "\(added.standardError)")
            #expect(added.standardError.contains("others can write to it"))
            #expect(!added.standardError.contains("planted-token"))
            #expect(impostor.requestedPaths.isEmpty, "no request reached the planted listener")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: shared.path).sorted() == ["admin-token", "url"],
            "nothing created there"
        )
    }

    @Test("an existing store in a directory others can write, or a device key others can read, is refused, unchanged")
    func storeAndKeysOthersCouldReplace() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-store-safety")
        defer { directory.remove() }
        let keys = directory.appending("keys")
        let runner = GangwayProcess(deviceKeys: keys)
        let store = directory.appending("store").path
        let passcode = "Ramp-Check-4711"
        await #expect(
            try runner.run(["store", "init", "--path", store, "--passcode-stdin"], lines: [passcode]).status == 0
        )
        let get = ["store", "list", "--path", store, "--passcode-stdin"]
        await #expect(try runner.run(get, lines: [passcode]).status == 0)

        chmod(store, 0o777)
        let open = try await runner.run(get, lines: [passcode])
        #expect(open.status == 1, "\(open.standardError)")
        #expect(open.standardError.contains("the store directory cannot be used: others can write to it"))
        #expect(PrivateFiles.mode(of: store) == 0o777, "refused, never narrowed")
        chmod(store, 0o700)

        let key = try #require(try FileManager.default.contentsOfDirectory(atPath: keys.path).first)
        chmod(keys.appendingPathComponent(key).path, 0o644)
        let readable = try await runner.run(get, lines: [passcode])
        #expect(readable.status != 0, "\(readable.standardError)")
        #expect(readable.standardError.contains("others can read it"), "\(readable.standardError)")
        #expect(!readable.standardError.contains(passcode))
        chmod(keys.appendingPathComponent(key).path, 0o600)
        await #expect(try runner.run(get, lines: [passcode]).status == 0)
    }

    @Test("admin refuses the running server's admin token when others can read it, as it refuses --token-file")
    func adminTokenReadableByOthers() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-token-mode")
        defer { directory.remove() }
        let data = directory.appending("data")
        let serve = try await ServeProcess(in: data)
        defer { serve.stop() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        await #expect(try runner.run(["admin", "apps", "--data-dir", data.path]).status == 0)
        chmod(serve.tokenFile, 0o644)
        let refused = try await runner.run(["admin", "apps", "--data-dir", data.path])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("others can read it (mode 0644)"), "\(refused.standardError)")
        let token = try String(contentsOfFile: serve.tokenFile, encoding: .utf8)
        #expect(!refused.standardError.contains(token.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test("a key file others can read is refused before the server starts")
    func keyFileReadableByOthers() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-key")
        defer { directory.remove() }
        let key = directory.appending("server-key")
        try Data(repeating: 7, count: 32).write(to: key)
        chmod(key.path, 0o644)
        let data = directory.appending("data")
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let result = try await runner.run([
            "serve", "--port", "0", "--data-dir", data.path, "--key-file", key.path, "--bcrypt-cost", "4",
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("\(key.path): others can read it (mode 0644)"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("url").path))
    }

    @Test("a key file in a directory that does not exist is refused, and no directory is made for it")
    func keyFileInAMissingDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-key-dir")
        defer { directory.remove() }
        let missing = directory.appending("no-such-dir")
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let result = try await runner.run([
            "serve", "--port", "0", "--data-dir", directory.appending("data").path, "--key-file",
            missing.appendingPathComponent("key").path, "--bcrypt-cost", "4",
        ])
        #expect(result.status == 1)
        #expect(
            result.standardError.contains("the directory of --key-file, \(missing.path), does not exist"),
            "\(result.standardError)"
        )
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("data").path))
    }

    @Test("the file system's root is refused as a data directory, before anything is written")
    func rootIsNoDataDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-root")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let link = directory.appending("root-link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/")
        // An out-of-range port too: should the root pass, the port still stops the server
        // before it writes.
        for path in ["/", link.path, "/tmp/.."] {
            let result = try await runner.run(["serve", "--data-dir", path, "--port", "70000"])
            #expect(result.status == 64)
            #expect(result.standardError.contains("--data-dir must not be the file system's root"), "\(result)")
        }
    }

    @Test("the app and a server's own data directory are kept apart, and admin does not guess between them")
    func appAndServeDirectoriesApart() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-apart")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let serveDirectory = directory.appending("serve")
        try PrivateFiles.makeDirectory(serveDirectory)
        try PrivateFiles.write(Data("token".utf8), to: serveDirectory.appendingPathComponent("admin-token"))
        let app = try await runner.run(["--data-dir", serveDirectory.path, "--bcrypt-cost", "4"], lines: [])
        #expect(app.status == 1)
        #expect(app.standardError.contains("is a 'gangway serve' data directory"), "\(app.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: serveDirectory.path) == ["admin-token"])

        let appDirectory = directory.appending("app")
        try PrivateFiles.makeDirectory(appDirectory.appendingPathComponent("device"))
        let serve = try await runner.run([
            "serve", "--data-dir", appDirectory.path, "--port", "0", "--bcrypt-cost", "4",
        ])
        #expect(serve.status == 1)
        #expect(serve.standardError.contains("is the device app's data directory"), "\(serve.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: appDirectory.path) == ["device"])

        // Made before the app refused: a server's files and the app's server side by side.
        try PrivateFiles.makeDirectory(serveDirectory.appendingPathComponent("server"))
        let admin = try await runner.run(["admin", "apps", "--data-dir", serveDirectory.path])
        #expect(admin.status == 1)
        #expect(admin.standardError.contains("name the one you mean with --server URL"), "\(admin.standardError)")

        // A file named as the data directory is said as such.
        let file = directory.appending("a-file")
        try Data().write(to: file)
        let notADirectory = try await runner.run(["admin", "apps", "--data-dir", file.path])
        #expect(notADirectory.status == 1)
        #expect(notADirectory.standardError.contains("\(file.path): it is not a directory."), "\(notADirectory)")
    }
}

/// What a device's log can do to the admin's terminal: nothing.
@Suite("gangway admin logs shows a device's escape codes written out", .tags(.endToEnd), .skipsTags)
struct AdminLogEscapesEndToEndTests {
    /// `request` to the server at `base`, with a bearer token and JSON.
    private func call(
        _ base: String,
        _ method: String,
        _ path: String,
        token: String,
        json: String
    ) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(json.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test("a log message that sets the title, clears the screen and moves the cursor is printed as text")
    func escapesThroughAdminLogs() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-log-escapes")
        defer { directory.remove() }
        let data = directory.appending("server")
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let serve = try runner.launch(
            ["serve", "--port", "0", "--data-dir", data.path, "--bcrypt-cost", "4", "--demo"],
            lines: []
        )
        defer {
            serve.terminate()
            serve.waitUntilExit()
        }
        let urlFile = data.appendingPathComponent("url")
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: urlFile.path) {
            try await Task.sleep(for: .milliseconds(50))
        }
        let base = try String(contentsOf: urlFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let adminToken = try String(contentsOf: data.appendingPathComponent("admin-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let (enabled, _) = try await call(
            base,
            "PATCH",
            "/admin/apps/checks",
            token: adminToken,
            json: #"{"settings": {"logSettings": {"logEnabled": true}}}"#
        )
        #expect(enabled == 200)
        var signIn = URLRequest(url: URL(string: base + "/apps/checks/sessions")!)
        signIn.httpMethod = "POST"
        signIn.setValue("application/json", forHTTPHeaderField: "Content-Type")
        signIn.httpBody = Data(#"{"username": "alice", "password": "preflight-alice", "deviceID": "d1"}"#.utf8)
        let (session, _) = try await URLSession.shared.data(for: signIn)
        let token = try #require(
            (try JSONSerialization.jsonObject(with: session) as? [String: Any])?["token"] as? String
        )
        let (registered, _) = try await call(
            base,
            "PUT",
            "/apps/checks/devices/d1",
            token: token,
            json: #"{"deviceName": "Stand 12 tablet", "platform": "linux", "appVersion": "1.0.0"}"#
        )
        #expect(registered == 200)
        let hostile = #"owned\u001b]0;pwned\u0007\u001b[2J\u001b[3A\u009b2K\r"#
        // A line break or tab in a message cannot make a row of the table that no device sent.
        let forged = #"sync ok\n2026-11-22 05:00  info   bob    d9  signed out\tnormally"#
        let (uploaded, _) = try await call(
            base,
            "POST",
            "/apps/checks/logs",
            token: token,
            json: #"""
                {"entries": [{"time": "2026-11-22T06:00:00Z", "level": "error", "message": "\#(hostile)"},
                             {"time": "2026-11-22T06:01:00Z", "level": "info", "message": "\#(forged)"}]}
                """#
        )
        #expect(uploaded == 202)

        let listed = try await runner.run(["admin", "logs", "--data-dir", data.path], lines: [])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.output.contains(#"owned\u{1B}]0;pwned\u{7}\u{1B}[2J\u{1B}[3A\u{9B}2K\u{D}"#), "\(listed.output)")
        #expect(!listed.standardOutput.contains(0x1B) && !listed.standardOutput.contains(0x07))
        #expect(!listed.standardOutput.contains(0x0D))
        #expect(listed.output.contains(#"sync ok\u{A}2026-11-22 05:00  info   bob    d9  signed out\u{9}normally"#))
        #expect(listed.output.split(separator: "\n").count == 3, "a header and two rows: \(listed.output)")
    }
}
