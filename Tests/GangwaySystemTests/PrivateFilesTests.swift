import Foundation
import GangwaySystem
import Synchronization
import Testing

@Suite("Private files: owner-only from the moment they exist")
struct PrivateFilesTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gangway-private-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a write makes the missing directories 0700 and the file 0600, and replaces it whole")
    func write() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("a/b/token")
        try PrivateFiles.write(Data("first\n".utf8), to: file)
        #expect(PrivateFiles.mode(of: root.appendingPathComponent("a").path) == 0o700)
        #expect(PrivateFiles.mode(of: root.appendingPathComponent("a/b").path) == 0o700)
        #expect(PrivateFiles.mode(of: file.path) == 0o600)
        #expect(try Data(contentsOf: file) == Data("first\n".utf8))

        // A file an older version left readable is replaced by a private one.
        chmod(file.path, 0o644)
        try PrivateFiles.write(Data("second\n".utf8), to: file)
        #expect(PrivateFiles.mode(of: file.path) == 0o600)
        #expect(try Data(contentsOf: file) == Data("second\n".utf8))
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path) == ["token"])
    }

    @Test("a watcher never sees the file, or its temporary, readable by others")
    func watcher() async throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("admin-token")
        let seen = Mutex<Set<mode_t>>([])
        let done = Atomic<Bool>(false)
        let watcher = Thread {
            while !done.load(ordering: .relaxed) {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] {
                    if let mode = PrivateFiles.mode(of: root.appendingPathComponent(name).path) {
                        seen.withLock { _ = $0.insert(mode) }
                    }
                }
            }
        }
        watcher.start()
        for round in 0..<300 {
            try PrivateFiles.write(Data("token-\(round)\n".utf8), to: file)
        }
        done.store(true, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(20))
        let modes = seen.withLock { $0 }
        #expect(!modes.isEmpty)
        #expect(modes == [0o600])
    }

    @Test("an owned directory open to others is narrowed; a shared sticky one is left alone")
    func directories() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let wide = root.appendingPathComponent("wide")
        try FileManager.default.createDirectory(at: wide, withIntermediateDirectories: false)
        chmod(wide.path, 0o755)
        try PrivateFiles.makeDirectory(wide)
        #expect(PrivateFiles.mode(of: wide.path) == 0o700)

        let sticky = root.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: sticky, withIntermediateDirectories: false)
        chmod(sticky.path, 0o1777)
        try PrivateFiles.makeDirectory(sticky)
        #expect(PrivateFiles.mode(of: sticky.path) == 0o1777)
        chmod(sticky.path, 0o700)
    }

    @Test("a path that is a file is not a directory")
    func fileIsNotADirectory() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("plain")
        try Data().write(to: file)
        let error = #expect(throws: PrivateFileError.self) { try PrivateFiles.makeDirectory(file) }
        #expect(error == .notADirectory)
        #expect(error?.path == file.path)
        // Writing under it fails the same way, and leaves nothing.
        let nested = #expect(throws: PrivateFileError.self) {
            try PrivateFiles.write(Data("x".utf8), to: file.appendingPathComponent("inside"))
        }
        #expect(nested == .notADirectory)
    }

    @Test("prepare creates an empty private file, narrows an owned one, and keeps its contents")
    func prepare() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let database = root.appendingPathComponent("server.sqlite")
        try PrivateFiles.prepare(database)
        #expect(PrivateFiles.mode(of: database.path) == 0o600)
        #expect(try Data(contentsOf: database).isEmpty)

        try Data("kept".utf8).write(to: database)
        chmod(database.path, 0o644)
        try PrivateFiles.prepare(database)
        #expect(PrivateFiles.mode(of: database.path) == 0o600)
        #expect(try Data(contentsOf: database) == Data("kept".utf8))

        let wal = root.appendingPathComponent("server.sqlite-wal")
        try PrivateFiles.narrow(wal)  // absent: nothing to do
        #expect(PrivateFiles.mode(of: wal.path) == nil)
        try Data().write(to: wal)
        chmod(wal.path, 0o644)
        try PrivateFiles.narrow(wal)
        #expect(PrivateFiles.mode(of: wal.path) == 0o600)
    }

    @Test("a write into a directory that cannot be made fails with the path, and no contents")
    func unwritable() throws {
        let error = #expect(throws: PrivateFileError.self) {
            try PrivateFiles.write(Data("secret-value".utf8), to: URL(fileURLWithPath: "/proc/gangway/x"))
        }
        #expect(error == .failed)
        #expect(error?.description.contains("/proc/gangway") == true)
        #expect(error?.description.contains("secret-value") == false)
    }
}
