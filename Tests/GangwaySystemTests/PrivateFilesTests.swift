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

    @Test("an empty file is made 0600 where nothing is; a move never replaces what is at its new name")
    func createEmptyAndMoveWithoutReplacing() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let made = root.appendingPathComponent("made")
        try PrivateFiles.createEmpty(made)
        #expect(PrivateFiles.mode(of: made.path) == 0o600)
        #expect(try Data(contentsOf: made).isEmpty)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.createEmpty(made) }

        let taken = root.appendingPathComponent("taken")
        try Data("theirs".utf8).write(to: taken)
        try Data("mine".utf8).write(to: made)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.moveWithoutReplacing(made, to: taken) }
        #expect(try Data(contentsOf: taken) == Data("theirs".utf8), "what was there is as it was")
        #expect(try Data(contentsOf: made) == Data("mine".utf8), "the file is where it was")

        let free = root.appendingPathComponent("free")
        try PrivateFiles.moveWithoutReplacing(made, to: free)
        #expect(try Data(contentsOf: free) == Data("mine".utf8))
        #expect(!FileManager.default.fileExists(atPath: made.path))
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

    @Test("making a directory says which it made, outermost first, and none when it was there")
    func madeDirectories() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let made = try PrivateFiles.makeDirectory(root.appendingPathComponent("a/b"))
        #expect(made.map(\.lastPathComponent) == ["a", "b"])
        #expect(made.map { PrivateFiles.mode(of: $0.path) } == [0o700, 0o700])
        #expect(try PrivateFiles.makeDirectory(root.appendingPathComponent("a/b")).isEmpty)
        #expect(try PrivateFiles.makeDirectory(root.appendingPathComponent("a/c")).map(\.lastPathComponent) == ["c"])
    }

    @Test("checking that a directory could be made refuses what making it would, and makes nothing")
    func checkMakeable() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        chmod(root.path, 0o700)
        try PrivateFiles.checkMakeable(root.appendingPathComponent("a/b"))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("a").path), "nothing made")
        let open = root.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        chmod(open.path, 0o777)
        for unsafe in [open, open.appendingPathComponent("a/b")] {
            #expect(throws: PrivateFileError.self, "\(unsafe.path)") { try PrivateFiles.checkMakeable(unsafe) }
            #expect(throws: PrivateFileError.self, "\(unsafe.path)") { try PrivateFiles.makeDirectory(unsafe) }
        }
        let file = root.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.checkMakeable(file.appendingPathComponent("a")) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: open.path).isEmpty)
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

    @Test("a directory that existed is used as it is: never narrowed, its parents never touched")
    func existingDirectoriesAreLeftAlone() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // Like $HOME or /var/lib: a parent others read, with another service's files in it.
        let home = root.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        chmod(home.path, 0o755)
        let neighbour = home.appendingPathComponent("other-service")
        try FileManager.default.createDirectory(at: neighbour, withIntermediateDirectories: false)
        chmod(neighbour.path, 0o750)

        let data = home.appendingPathComponent(".gangway/server")
        try PrivateFiles.makeDirectory(data)
        #expect(PrivateFiles.mode(of: data.path) == 0o700)
        #expect(PrivateFiles.mode(of: home.appendingPathComponent(".gangway").path) == 0o700)
        #expect(PrivateFiles.mode(of: home.path) == 0o755, "the existing parent keeps its mode")
        #expect(PrivateFiles.mode(of: neighbour.path) == 0o750)
        try PrivateFiles.write(Data("x".utf8), to: data.appendingPathComponent("f"))
        #expect(PrivateFiles.mode(of: home.path) == 0o755)

        // An existing data directory others may read is used, and stays as it was.
        let wide = root.appendingPathComponent("wide")
        try FileManager.default.createDirectory(at: wide, withIntermediateDirectories: false)
        chmod(wide.path, 0o755)
        try PrivateFiles.makeDirectory(wide)
        #expect(PrivateFiles.mode(of: wide.path) == 0o755)
    }

    @Test("a directory others can write, even a sticky one, is refused and left as it is")
    func writableByOthersIsRefused() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        for mode: mode_t in [0o777, 0o1777, 0o775, 0o757] {
            let shared = root.appendingPathComponent("shared-\(String(mode, radix: 8))")
            try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
            chmod(shared.path, mode)
            let error = #expect(throws: PrivateFileError.self) { try PrivateFiles.makeDirectory(shared) }
            #expect(error == .unsafe, "\(String(mode, radix: 8))")
            #expect(error?.description.contains("others can write to it") == true)
            #expect(PrivateFiles.mode(of: shared.path) == mode, "not narrowed")
            // Nothing is written into it, and no directory is made under it by a write.
            #expect(throws: PrivateFileError.self) {
                try PrivateFiles.write(Data("secret-value".utf8), to: shared.appendingPathComponent("admin-token"))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).isEmpty)
            chmod(shared.path, 0o700)
        }
        // Below a directory anyone can rename entries of (no sticky bit), nothing is made.
        let open = root.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        chmod(open.path, 0o777)
        let below = open.appendingPathComponent("mine/server")
        let error = #expect(throws: PrivateFileError.self) { try PrivateFiles.makeDirectory(below) }
        #expect(error == .unsafe)
        #expect(error?.description.contains("above it") == true)
        #expect(!FileManager.default.fileExists(atPath: open.appendingPathComponent("mine").path))
        chmod(open.path, 0o700)
    }

    @Test(
        "a directory or file of another account is refused",
        .enabled(if: geteuid() == 0, "needs root, to give a directory to another account")
    )
    func anotherAccountsDirectory() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let theirs = root.appendingPathComponent("theirs")
        try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: false)
        chmod(theirs.path, 0o700)
        chown(theirs.path, 65534, 65534)
        let error = #expect(throws: PrivateFileError.self) { try PrivateFiles.makeDirectory(theirs) }
        #expect(error == .unsafe)
        #expect(error?.description.contains("belongs to another user") == true)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.checkDirectory(theirs) }
        // Below it too: they could swap what is below for their own.
        chmod(theirs.path, 0o755)
        let below = #expect(throws: PrivateFileError.self) {
            try PrivateFiles.makeDirectory(theirs.appendingPathComponent("server"))
        }
        #expect(below?.description.contains("above it belongs to another user") == true)

        let planted = root.appendingPathComponent("admin-token")
        try Data("planted\n".utf8).write(to: planted)
        chmod(planted.path, 0o600)
        chown(planted.path, 65534, 65534)
        let read = #expect(throws: PrivateFileError.self) { try PrivateFiles.read(planted) }
        #expect(read == .unsafe)
        #expect(read?.description.contains("planted") == false, "never the contents")
    }

    @Test(
        "a link another account planted in a shared directory is not followed; the user's own link is",
        .enabled(if: geteuid() == 0, "needs root, to make a link of another account")
    )
    func anotherAccountsLink() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // A data directory anyone may add to (sticky, like /tmp), and a target the user owns.
        let shared = root.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        chmod(shared.path, 0o1777)
        let victim = root.appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: victim, withIntermediateDirectories: false)
        chmod(victim.path, 0o755)
        let planted = shared.appendingPathComponent("device")
        try FileManager.default.createSymbolicLink(at: planted, withDestinationURL: victim)
        lchown(planted.path, 65534, 65534)
        let attempts: [@Sendable () throws -> Void] = [
            { try PrivateFiles.makeDirectory(planted) },
            { try PrivateFiles.makeDirectory(planted.appendingPathComponent("stores")) },
            { try PrivateFiles.checkDirectory(planted) },
        ]
        for attempt in attempts {
            let error = #expect(throws: PrivateFileError.self) { try attempt() }
            #expect(error == .unsafe)
            #expect(error?.description.contains("symbolic link another user (uid 65534) made") == true)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: victim.path).isEmpty, "nothing written through it")
        #expect(try FileManager.default.attributesOfItem(atPath: victim.path)[.posixPermissions] as? Int == 0o755)
        // The user's own link is theirs to make.
        let own = root.appendingPathComponent("own")
        try FileManager.default.createSymbolicLink(at: own, withDestinationURL: victim)
        try PrivateFiles.makeDirectory(own.appendingPathComponent("stores"))
        #expect(FileManager.default.fileExists(atPath: victim.appendingPathComponent("stores").path))
    }

    @Test("a checked read: missing is nil; a file others can write is refused; a secret others can read too")
    func checkedRead() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("url")
        #expect(try PrivateFiles.read(file) == nil)
        try PrivateFiles.write(Data("http://127.0.0.1:8080\n".utf8), to: file)
        #expect(try PrivateFiles.read(file) == Data("http://127.0.0.1:8080\n".utf8))
        #expect(try PrivateFiles.read(file, secret: true) != nil)
        chmod(file.path, 0o644)
        #expect(try PrivateFiles.read(file) != nil, "others may read a URL")
        let secret = #expect(throws: PrivateFileError.self) { try PrivateFiles.read(file, secret: true) }
        #expect(secret == .unsafe)
        #expect(secret?.description.contains("others can read it (mode 0644)") == true)
        for mode: mode_t in [0o666, 0o620, 0o602] {
            chmod(file.path, mode)
            let error = #expect(throws: PrivateFileError.self) { try PrivateFiles.read(file) }
            #expect(error == .unsafe)
            #expect(error?.description.contains("others can write to it") == true)
            #expect(error?.description.contains("127.0.0.1") == false, "never the contents")
        }
        let directory = #expect(throws: PrivateFileError.self) { try PrivateFiles.read(root) }
        #expect(directory == .unsafe)
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
