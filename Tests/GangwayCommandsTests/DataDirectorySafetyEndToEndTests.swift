import Foundation
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the built `gangway` does with directories it did not make: it never changes
/// them, and it refuses one another account could write to, before anything is read from
/// it or written into it.
@Suite("Data directories: never narrowed, never trusted when others can write them")
struct DataDirectorySafetyEndToEndTests {
    @Test("the first use leaves the home directory and a /var/lib-style parent as they were")
    func parentsKeepTheirModes() throws {
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
        // `gangway admin` with the default data directory, ~/.gangway, in a fresh home.
        let apps = try runner.run(["admin", "apps", "--bcrypt-cost", "4"], extraEnvironment: ["HOME": home.path])
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
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("url").path))
        #expect(PrivateFiles.mode(of: varLib.path) == 0o755)
        #expect(PrivateFiles.mode(of: other.path) == 0o755)
        #expect(PrivateFiles.mode(of: data.path) == 0o700)
    }

    @Test("serve refuses a data directory others can write, in one sentence, and writes nothing there")
    func serveRefusesAWritableDirectory() throws {
        let directory = try TemporaryDirectory(prefix: "gangway-shared")
        defer { directory.remove() }
        let shared = directory.appending("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        chmod(shared.path, 0o777)
        defer { chmod(shared.path, 0o700) }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let result = try runner.run(["serve", "--port", "0", "--data-dir", shared.path, "--bcrypt-cost", "4"])
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
            let added = try await runner.runOffThread(
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

    @Test("a key file others can read is refused before the server starts")
    func keyFileReadableByOthers() throws {
        let directory = try TemporaryDirectory(prefix: "gangway-key")
        defer { directory.remove() }
        let key = directory.appending("server-key")
        try Data(repeating: 7, count: 32).write(to: key)
        chmod(key.path, 0o644)
        let data = directory.appending("data")
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let result = try runner.run([
            "serve", "--port", "0", "--data-dir", data.path, "--key-file", key.path, "--bcrypt-cost", "4",
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("\(key.path): others can read it (mode 0644)"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("url").path))
    }
}
